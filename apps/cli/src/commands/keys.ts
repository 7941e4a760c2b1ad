/** `ocg keys create|list|get|update|delete`: the caller's API keys (scope api-keys:manage). */
import { Option, type Command } from 'commander';
import type { ApiKeyRecord, CreateApiKeyRequest, CreateApiKeyResponse, Scope, UpdateApiKeyRequest } from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { CliError, collect, fields, localTime, print, printJson, table, wholeNumber } from '../output';

interface CreateOptions extends GatewayOptions {
  name: string;
  expiresIn?: string;
  scope: string[];
  llmModel: string[];
  json?: boolean;
}

interface UpdateOptions extends GatewayOptions {
  name?: string;
  status?: 'active' | 'disabled';
  /** A list, or false from --no-llm-models (no restriction). */
  llmModels?: string | false;
  json?: boolean;
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('create, list, read, update and delete your API keys (scope api-keys:manage)');
  withGatewayOptions(keys.command('create').description('create an API key; prints the key'))
    .requiredOption('--name <name>', 'a name to tell the key apart (1 to 100 characters)')
    .option('--expires-in <seconds>', 'the key expires this many seconds from now (default: never)')
    .option('--scope <scope>', "a scope the key holds (repeat; default: all of the calling key's scopes)", collect, [])
    .option('--llm-model <model>', 'an LLM model the key may call (repeat; default: any)', collect, [])
    .option('--json', 'print the API answer as JSON')
    .action((options: CreateOptions) => createKey(options));
  withGatewayOptions(keys.command('list').description('list your API keys (keys shortened; keys get <id> shows one in full)'))
    .option('--json', 'print {keys, total} as JSON (full keys)')
    .action((options: GatewayOptions & { json?: boolean }) => listKeys(options));
  withGatewayOptions(keys.command('get <id>').description('show one API key, the key in full'))
    .option('--json', 'print the key record as JSON')
    .action((id: string, options: GatewayOptions & { json?: boolean }) => getKey(id, options));
  withGatewayOptions(keys.command('update <id>').description('rename, enable or disable a key, or change its LLM models'))
    .option('--name <name>', 'the new name')
    .addOption(new Option('--status <status>', 'active keys work, disabled ones fail everywhere at once').choices(['active', 'disabled']))
    .option('--llm-models <models>', 'comma-separated models the key may call ("" denies every model)')
    .option('--no-llm-models', 'lift the model restriction')
    .option('--json', 'print the key record as JSON')
    .action((id: string, options: UpdateOptions) => updateKey(id, options));
  withGatewayOptions(keys.command('delete <id>').description('delete an API key; it fails everywhere at once'))
    .option('--json', 'print {success} as JSON')
    .action((id: string, options: GatewayOptions & { json?: boolean }) => deleteKey(id, options));
}

async function createKey(options: CreateOptions): Promise<void> {
  const body: CreateApiKeyRequest = {
    name: options.name,
    ...(options.expiresIn === undefined ? {} : { expiresIn: wholeNumber('--expires-in', options.expiresIn, 1) }),
    // Scope names are checked by the service, which names the offending one (/scopes/N).
    ...(options.scope.length ? { scopes: options.scope as Scope[] } : {}),
    ...(options.llmModel.length ? { llmModels: options.llmModel } : {}),
  };
  const gateway = gatewayFrom(options);
  const key = await answer(gateway, () => gateway.client.POST('/api-keys', { body }));
  if (options.json) return printJson(key);
  print(`created API key ${key.id}\n${describeKey(key)}`);
}

async function listKeys(options: GatewayOptions & { json?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const listed = await answer(gateway, () => gateway.client.GET('/api-keys'));
  if (options.json) return printJson(listed);
  if (listed.keys.length === 0) return print('no API keys');
  const rows = listed.keys.map((k) => [k.id, k.name, k.status, shortKey(k.key), k.scopes.join(' '), expiry(k.expiresAt), localTime(k.lastUsedAt)]);
  print(table(['ID', 'NAME', 'STATUS', 'KEY', 'SCOPES', 'EXPIRES', 'LAST USED'], rows));
}

async function getKey(id: string, options: GatewayOptions & { json?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const key = await answer(gateway, () => gateway.client.GET('/api-keys/{id}', { params: { path: { id } } }));
  if (options.json) return printJson(key);
  print(describeKey(key));
}

async function updateKey(id: string, options: UpdateOptions): Promise<void> {
  const body: UpdateApiKeyRequest = {
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.llmModels === undefined ? {} : { llmModels: options.llmModels === false ? null : models(options.llmModels) }),
  };
  if (Object.keys(body).length === 0) throw new CliError('nothing to update: give --name, --status, --llm-models or --no-llm-models');
  const gateway = gatewayFrom(options);
  const key = await answer(gateway, () => gateway.client.POST('/api-keys/{id}/update', { params: { path: { id } }, body }));
  if (options.json) return printJson(key);
  print(`updated API key ${key.id}\n${describeKey(key)}`);
}

async function deleteKey(id: string, options: GatewayOptions & { json?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const deleted = await answer(gateway, () => gateway.client.POST('/api-keys/{id}/delete', { params: { path: { id } } }));
  if (options.json) return printJson(deleted);
  print(`deleted API key ${id}`);
}

function describeKey(key: ApiKeyRecord | CreateApiKeyResponse): string {
  const record = 'updatedAt' in key ? key : undefined;
  return fields([
    ['id', key.id],
    ['name', key.name],
    ['status', key.status],
    ['key', key.key],
    ['scopes', key.scopes.join(' ')],
    ['LLM models', key.llmModels === null ? 'any' : key.llmModels.length === 0 ? 'none (inference denied)' : key.llmModels.join(', ')],
    ['expires', expiry(key.expiresAt)],
    ['created', localTime(key.createdAt)],
    ['updated', record ? localTime(record.updatedAt) : undefined],
    ['last used', record ? localTime(record.lastUsedAt) : undefined],
  ]);
}

/** `"a, b"` → ['a', 'b']; `""` → [] (which denies every model). */
const models = (text: string): string[] =>
  text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
const expiry = (at: string | null): string => (at ? localTime(at) : 'never');
/** Enough to tell keys apart in a table without putting every secret on screen. */
const shortKey = (key: string): string => `${key.slice(0, 10)}…${key.slice(-4)}`;
