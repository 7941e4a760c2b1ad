/**
 * Makes what deploy/compose.yaml reads: an env file with fresh secrets
 * (the settings of deploy/.env.example, the secrets filled in) and a TLS
 * directory with a local CA and a certificate for localhost and
 * *.<NODE_DOMAIN>, its key readable by the gateway's user (uid 1000).
 * Existing files are kept.
 *
 *   tsx tools/images/compose-env.ts [directory] [NAME=value ...]     (default: deploy/)
 *
 * The NAME=value pairs replace the template's settings. Prints the env
 * file's and the TLS directory's paths as JSON.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { statSync } from 'node:fs';
import { generateApiKey } from '@ocg/auth';
import { ensureLocalTls } from '@ocg/testing';

const root = resolve(__dirname, '../..');
/** The images' user, which reads the gateway's key. */
const IMAGE_UID = 1000;

export function composeSecrets(): Record<string, string> {
  return {
    POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
    REDIS_PASSWORD: randomBytes(24).toString('hex'),
    MASTER_KEY: randomBytes(32).toString('hex'),
    INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    ADMIN_API_KEY: generateApiKey(),
    DOCKER_GID: existsSync('/var/run/docker.sock') ? String(statSync('/var/run/docker.sock').gid) : '',
  };
}

/** The template with `values` set (a variable of the template not in `values` keeps its line). */
export function envFileText(values: Record<string, string>): string {
  const template = readFileSync(join(root, 'deploy/.env.example'), 'utf8');
  const left = new Map(Object.entries(values));
  const lines = template.split('\n').map((line) => {
    const name = /^#?\s*([A-Z_][A-Z0-9_]*)=/.exec(line)?.[1];
    const value = name === undefined ? undefined : left.get(name);
    if (name === undefined || value === undefined) return line;
    left.delete(name);
    return `${name}=${value}`;
  });
  return [...lines, ...[...left].map(([k, v]) => `${k}=${v}`), ''].join('\n').replace(/\n+$/, '\n');
}

export async function makeComposeEnv(dir: string, overrides: Record<string, string> = {}): Promise<{ envFile: string; tlsDir: string }> {
  const tlsDir = join(dir, 'tls');
  const domain = overrides.NODE_DOMAIN ?? 'nodes.localhost';
  const tls = await ensureLocalTls({ dir: tlsDir, dnsNames: ['localhost', `*.${domain}`], ips: ['127.0.0.1'] });
  chmodSync(tlsDir, 0o755);
  if (process.getuid?.() === 0) chownSync(tls.keyFile, IMAGE_UID, IMAGE_UID);
  else chmodSync(tls.keyFile, 0o644); // no other way for uid 1000 to read it: keep the directory private instead
  const envFile = join(dir, '.env');
  if (!existsSync(envFile)) writeFileSync(envFile, envFileText({ ...composeSecrets(), TLS_DIR: tlsDir, ...overrides }), { mode: 0o600 });
  return { envFile, tlsDir };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const dir = resolve(args[0] && !args[0].includes('=') ? String(args.shift()) : join(root, 'deploy'));
  const overrides = Object.fromEntries(args.map((arg) => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]));
  makeComposeEnv(dir, overrides).then(
    (made) => console.log(JSON.stringify(made)),
    (err: unknown) => {
      console.error(`compose-env: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
