import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../..');
const eslintBin = join(root, 'node_modules/eslint/bin/eslint.js');

/** Lints `code` as if it were `file`, in a child process as CI's lint does. */
async function lint(file: string, code: string): Promise<string[]> {
  const run = spawnSync(process.execPath, [eslintBin, '--stdin', '--stdin-filename', join(root, file), '--format', 'json'], {
    cwd: root,
    input: code,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false' },
  });
  const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string; message: string }[] }[];
  return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
}

describe('module boundaries', () => {
  it('fails lint when a lib imports an app', async () => {
    const messages = await lint('libs/http/src/probe.ts', "import { buildApp } from '../../../apps/client-manager/src/app';\nexport const x = buildApp;\n");
    expect(messages.length).toBeGreaterThan(0);
  });

  it('fails lint when contracts imports another lib', async () => {
    // @ocg/testing imports no other lib (sources and tests), so the scope rule, not a cycle through contracts, is what fails.
    const messages = await lint('libs/contracts/src/probe.ts', "import { freePort } from '@ocg/testing';\nexport const x = freePort;\n");
    expect(messages.join('\n')).toMatch(/scope:contracts/);
  });

  it('fails lint when a pure lib imports a server lib', async () => {
    const messages = await lint('libs/job-definition/src/probe.ts', "import { createRedis } from '@ocg/redis';\nexport const x = createRedis;\n");
    expect(messages.join('\n')).toMatch(/scope:pure/);
  });

  it('passes lint when an app imports a lib by its root', async () => {
    expect(await lint('apps/gateway/src/probe.ts', "import { SCOPE_CATALOG } from '@ocg/contracts';\nexport const x = SCOPE_CATALOG;\n")).toEqual([]);
  });
});
