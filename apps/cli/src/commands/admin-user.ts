import type { Command } from 'commander';
import type { CreateUserRequest, CreateUserResponse, ErrorBody } from '@ocg/contracts';

interface CreateOptions {
  email: string;
  name: string;
  password?: string;
  json?: boolean;
  gateway?: string;
  apiKey?: string;
}

const DEFAULT_GATEWAY = 'http://127.0.0.1:8080';

/**
 * Adds `user create` to the `admin` command: an operator (an API key with
 * users:manage, e.g. ADMIN_API_KEY) creates a user and gets the user's first
 * API key.
 */
export function registerAdminUser(admin: Command): void {
  admin
    .command('user')
    .description('manage users (operators)')
    .command('create')
    .description("create a user with a wallet and print the user's first API key")
    .requiredOption('--email <email>', "the user's email (unique, any letter case)")
    .requiredOption('--name <name>', "the user's name")
    .option('--password <password>', 'enables password login (note: visible in shell history and the process list)')
    .option('--json', 'print the whole answer as JSON')
    .option('--gateway <url>', `gateway origin (env OCG_GATEWAY_URL, default ${DEFAULT_GATEWAY})`)
    .option('--api-key <key>', 'an operator API key with users:manage (env OCG_API_KEY)')
    .action((options: CreateOptions) => createUser(options));
}

async function createUser(options: CreateOptions): Promise<void> {
  const gateway = options.gateway ?? process.env.OCG_GATEWAY_URL ?? DEFAULT_GATEWAY;
  const apiKey = options.apiKey ?? process.env.OCG_API_KEY;
  if (!apiKey) return fail('an operator API key is required: pass --api-key or set OCG_API_KEY');
  const body: CreateUserRequest = { email: options.email, name: options.name, ...(options.password !== undefined ? { password: options.password } : {}) };
  const url = new URL('/users', gateway).toString();
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    return fail(`the gateway at ${gateway} is not answering (${reason(err)}); is the stack running? (--gateway or OCG_GATEWAY_URL)`);
  }
  const answer = (await res.json().catch(() => undefined)) as CreateUserResponse | ErrorBody | undefined;
  if (res.status !== 200 || !answer || !('user' in answer)) return fail(explain(res.status, answer as ErrorBody | undefined));
  process.stdout.write(options.json ? `${JSON.stringify(answer, null, 2)}\n` : report(answer));
}

function report({ user, apiKey }: CreateUserResponse): string {
  return [
    `created user ${user.id} <${user.email}>`,
    `wallet address: ${user.generatedAddress}`,
    `first API key (${apiKey.id}, scopes ${apiKey.scopes.join(' ')}):`,
    apiKey.key,
    '',
  ].join('\n');
}

function explain(status: number, body: ErrorBody | undefined): string {
  const said = body?.message ?? 'no error body';
  if (status === 401) return `the gateway refused the API key (401): ${said}`;
  if (status === 403) return `the API key may not create users (403): ${said}`;
  if (status === 400 && body?.errors?.length) return ['the gateway refused the user (400):', ...body.errors.map((e) => `  ${e.path || '(body)'}: ${e.message}`)].join('\n');
  return `the gateway answered ${status}: ${said}`;
}

function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function fail(message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}
