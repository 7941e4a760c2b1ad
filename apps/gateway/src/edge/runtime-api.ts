import net from 'node:net';

/**
 * HAProxy's runtime API on its admin socket: commands sent together on one
 * connection (`a; b; c`), the answer read to the end. The edge's map of
 * forwards is changed through it without a reload.
 */
export function runtimeCommand(socketPath: string, commands: string[], timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`the edge's runtime API did not answer within ${timeoutMs} ms`)));
    socket.on('connect', () => socket.end(`${commands.join('; ')}\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', (hadError) => hadError || resolve(Buffer.concat(chunks).toString()));
  });
}

/**
 * One runtime API command that takes a payload (`set ssl cert <file> <<`):
 * the payload follows the command's line and ends at the first empty line,
 * so its own empty lines are left out (a PEM has none that matter).
 */
export function runtimePayloadCommand(socketPath: string, command: string, payload: string, timeoutMs = 5000): Promise<string> {
  const lines = payload.split('\n').filter((line) => line.trim() !== '');
  return runtimeCommand(socketPath, [`${command} <<\n${lines.join('\n')}\n`], timeoutMs);
}

/** A map key or value the runtime API takes as one word: no spaces, separators or escapes. */
export const isMapWord = (text: string): boolean => /^[A-Za-z0-9.:_-]{1,255}$/.test(text);
