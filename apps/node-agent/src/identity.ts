/**
 * Who this agent is on its engine. Every container, network and volume it
 * makes carries its node id (label `ocg.node`), and it lists, adopts and
 * cleans up only objects with that label. The id defaults to the node key's
 * address, so two agents on one engine never share it by accident (a host
 * name would be the same for both); a lock file refuses a second agent with
 * the same id on this machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WalletSigner } from '@ocg/auth';
import type { AgentConfig } from './config';
import { loadNodeKey } from './control-plane/node-key';

export interface NodeIdentity {
  signer: WalletSigner;
  /** The `ocg.node` label: NODE_ID, else the key's address. */
  nodeId: string;
  /** Frees the id for the next agent (the lock file). */
  release(): void;
}

export async function resolveIdentity(config: AgentConfig, lockDir = os.tmpdir()): Promise<NodeIdentity> {
  const signer = await loadNodeKey(config);
  const nodeId = config.NODE_ID ?? signer.address;
  const release = lockNodeId(nodeId, lockDir);
  return { signer, nodeId, release };
}

/** One live agent per node id on this machine: a second would adopt and end the first one's jobs. */
export function lockNodeId(nodeId: string, dir: string): () => void {
  const file = path.join(dir, `ocg-node-${nodeId}.pid`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => removeIfOurs(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8'));
      if (holder !== process.pid && alive(holder)) {
        throw new Error(`another node agent (pid ${holder}) runs as node ${nodeId} on this machine: give this one its own NODE_KEY_FILE (or NODE_ID)`);
      }
      fs.rmSync(file, { force: true }); // left by an agent that died
    }
  }
  throw new Error(`cannot lock the node id ${nodeId} (${file})`);
}

function removeIfOurs(file: string): void {
  try {
    if (Number(fs.readFileSync(file, 'utf8')) === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
