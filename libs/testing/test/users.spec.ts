import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { grantTraversal } from '../src/users';

describe('grantTraversal', () => {
  it('adds search permission, and only that, to private parents the server user cannot pass', async () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-trav-'));
    const inner = path.join(top, 'a', 'b');
    fs.mkdirSync(inner, { recursive: true, mode: 0o700 });
    fs.chmodSync(top, 0o700);
    await grantTraversal([path.join(inner, 'data')], { name: 'nobody', uid: 65534, gid: 65534 });
    for (const dir of [top, path.join(top, 'a'), inner]) expect(fs.statSync(dir).mode & 0o777).toBe(0o701);
    fs.rmSync(top, { recursive: true, force: true });
  });

  it('leaves alone parents that already allow it and parents the server user owns', async () => {
    const open = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-trav-'));
    fs.chmodSync(open, 0o755);
    await grantTraversal([path.join(open, 'x')], { name: 'nobody', uid: 65534, gid: 65534 });
    expect(fs.statSync(open).mode & 0o777).toBe(0o755);
    const owned = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-trav-'));
    fs.chmodSync(owned, 0o700);
    await grantTraversal([path.join(owned, 'x')], { name: 'me', uid: fs.statSync(owned).uid, gid: 0 });
    expect(fs.statSync(owned).mode & 0o777).toBe(0o700);
    fs.rmSync(open, { recursive: true, force: true });
    fs.rmSync(owned, { recursive: true, force: true });
  });
});
