/**
 * The local stack's secrets: made once on first start and kept in
 * .data/secrets.json (git-ignored, mode 0600), so data encrypted under the
 * master key stays readable across restarts and the admin key stays valid.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateApiKey } from '@ocg/auth';

export interface StackSecrets {
  MASTER_KEY: string;
  INTERNAL_TOKEN: string;
  ADMIN_API_KEY: string;
}

export function loadOrCreateSecrets(file: string): { secrets: StackSecrets; created: boolean } {
  if (existsSync(file)) {
    const secrets = JSON.parse(readFileSync(file, 'utf8')) as StackSecrets;
    // A deleted admin key stays deleted (client-manager remembers it); removing it from the file asks for a new one.
    if (secrets.ADMIN_API_KEY) return { secrets, created: false };
    secrets.ADMIN_API_KEY = generateApiKey();
    writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
    return { secrets, created: false };
  }
  const secrets: StackSecrets = {
    MASTER_KEY: randomBytes(32).toString('hex'),
    INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    ADMIN_API_KEY: generateApiKey(),
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  return { secrets, created: true };
}
