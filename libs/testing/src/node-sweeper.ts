// The sweeper behind testNodeId (node-objects.ts): reads node ids, one a line,
// until its owner's end of the pipe closes (the owner exited, however: a killed
// test run skips its afterAll), then removes what Docker still holds of them.
import { createInterface } from 'node:readline';
import { removeNodeObjects } from './node-objects';

const ids = new Set<string>();
for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM'] as const) process.on(signal, () => undefined); // only the pipe ends it
createInterface({ input: process.stdin })
  .on('line', (line) => line.trim() && ids.add(line.trim()))
  .on('close', () => {
    void (async () => {
      for (const id of ids) await removeNodeObjects(id).catch(() => undefined);
      process.exit(0);
    })();
  });
