import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createSigner, parseMasterKey, type WalletSigner } from '@ocg/auth';

export interface NodeKeySettings {
  /** The seed itself (hex or base64 of 32 bytes). */
  NODE_KEY?: string;
  /** Else: the file holding it, made on first use. */
  NODE_KEY_FILE: string;
}

/**
 * The node's ed25519 key: its address is who the node is to the control
 * plane, so it must survive restarts. From NODE_KEY, else from NODE_KEY_FILE,
 * which is created with a fresh seed (mode 0600) when it does not exist.
 */
export async function loadNodeKey(settings: NodeKeySettings): Promise<WalletSigner> {
  if (settings.NODE_KEY !== undefined) return createSigner(parseSeed(settings.NODE_KEY, 'NODE_KEY'));
  const file = settings.NODE_KEY_FILE;
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new Error(`NODE_KEY_FILE ${file} cannot be read: ${err.message}`);
  });
  if (text !== undefined) return createSigner(parseSeed(text, `NODE_KEY_FILE ${file}`));
  const seed = randomBytes(32);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // wx: two agents starting at once must not each write a different key.
  await fs.writeFile(file, `${seed.toString('hex')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw new Error(`NODE_KEY_FILE ${file} cannot be written: ${err.message}`);
  });
  return createSigner(parseSeed(await fs.readFile(file, 'utf8'), `NODE_KEY_FILE ${file}`));
}

function parseSeed(text: string, where: string): Buffer {
  try {
    return parseMasterKey(text);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message.replace('master key', 'node key seed')}`);
  }
}
