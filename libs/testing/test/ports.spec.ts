import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, freePorts, RESERVATION_MS, RESERVATIONS_DIR, reservablePorts, reservePort } from '../src/ports';

const run = promisify(execFile);

it('hands out distinct ports below the kernel ephemeral range, each one bindable', async () => {
  const { low, high } = reservablePorts();
  const ports = Object.values(await freePorts(['a', 'b', 'c', 'd']));
  expect(new Set(ports).size).toBe(4);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(low);
    expect(port).toBeLessThanOrEqual(high);
    expect(fs.readFileSync(path.join(RESERVATIONS_DIR, String(port)), 'utf8').trim()).toBe(String(process.pid));
  }
});

it('does not hand out a port reserved a moment ago, and takes over a lapsed reservation', async () => {
  const port = await freePort();
  expect(reservePort(port)).toBe(false);
  expect(reservePort(port, Date.now() + RESERVATION_MS + 1000)).toBe(true);
});

it('never gives two test processes running at once the same port', async () => {
  // Without the reservations, 300 random picks each from about 12,000 ports would share about seven.
  const script = `import('${path.resolve(__dirname, '../src/ports.ts')}').then(async ({ freePort }) => { const ports = []; for (let i = 0; i < 300; i++) ports.push(await freePort()); console.log(JSON.stringify(ports)); })`;
  const child = () => run(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' }).then(({ stdout }) => JSON.parse(stdout) as number[]);
  const [a, b] = await Promise.all([child(), child()]);
  expect(a).toHaveLength(300);
  expect(b.filter((port) => a.includes(port))).toEqual([]);
}, 60_000);
