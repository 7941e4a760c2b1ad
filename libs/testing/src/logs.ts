import { Writable } from 'node:stream';

export interface CapturedLogs {
  /** Pass to pino (or anything that writes lines) as its destination. */
  stream: NodeJS.WritableStream;
  /** Each line parsed as JSON; a line that is not JSON is returned as its text. */
  lines(): any[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- log records have any shape; tests index into them
  text(): string;
}

/** An in-memory destination for asserting on structured (pino JSON) log output. */
export function captureLogs(): CapturedLogs {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = () => chunks.join('');
  return {
    stream,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map(parseLine),
  };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
}
