import type { Command } from 'commander';
import type { CreateUserRequest, CreateUserResponse } from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { print, printJson } from '../output';

interface CreateOptions extends GatewayOptions {
  email: string;
  name: string;
  password?: string;
  json?: boolean;
}

/**
 * Adds `user create` to the `admin` command: an operator (an API key with
 * users:manage, e.g. ADMIN_API_KEY) creates a user and gets the user's first
 * API key.
 */
export function registerAdminUser(admin: Command): void {
  withGatewayOptions(
    admin
      .command('user')
      .description('manage users (operators)')
      .command('create')
      .description("create a user with a wallet and print the user's first API key")
      .requiredOption('--email <email>', "the user's email (unique, any letter case)")
      .requiredOption('--name <name>', "the user's name")
      .option('--password <password>', 'enables password login (note: visible in shell history and the process list)')
      .option('--json', 'print the whole answer as JSON'),
  ).action((options: CreateOptions) => createUser(options));
}

async function createUser(options: CreateOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const body: CreateUserRequest = { email: options.email, name: options.name, ...(options.password !== undefined ? { password: options.password } : {}) };
  const created = await answer(gateway, () => gateway.client.POST('/users', { body }));
  if (options.json) return printJson(created);
  print(report(created));
}

function report({ user, apiKey }: CreateUserResponse): string {
  return [
    `created user ${user.id} <${user.email}>`,
    `wallet address: ${user.generatedAddress}`,
    `first API key (${apiKey.id}, scopes ${apiKey.scopes.join(' ')}):`,
    apiKey.key,
  ].join('\n');
}
