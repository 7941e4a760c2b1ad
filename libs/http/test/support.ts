import { Writable } from 'node:stream';
import type { Express } from 'express';
import { createApp, createLogger, installErrorHandling, listen, type HttpAppOptions, type Logger, type RunningServer } from '../src';

export type LogLine = Record<string, unknown>;

/** pino writes one JSON line per call; keep them, parsed, for assertions. */
export class LogCapture {
  readonly lines: LogLine[] = [];
  readonly raw: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _enc, done) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        this.raw.push(line);
        this.lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });

  text(): string {
    return this.raw.join('\n');
  }

  /** Request lines are written on 'finish', which can land after the client has the response. */
  async waitFor(match: (line: LogLine) => boolean, timeoutMs = 2000): Promise<LogLine> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (Date.now() > until) throw new Error(`no matching log line in:\n${this.text()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

export interface TestServer {
  url: string;
  logs: LogCapture;
  logger: Logger;
  server: RunningServer;
  close(): Promise<void>;
}

/** A real app on 127.0.0.1, port 0, with the caller's routes between the bootstrap and the error handling. */
export async function startApp(routes: (app: Express) => void, opts: Partial<HttpAppOptions> = {}): Promise<TestServer> {
  const logs = new LogCapture();
  const logger = createLogger({ service: 'http-test', level: 'debug', destination: logs.stream });
  const app = createApp({ service: 'http-test', logger, ...opts });
  routes(app);
  installErrorHandling(app, logger);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  return { url: server.url, logs, logger, server, close: () => server.close() };
}

/** A route that answers with what the body parser produced, so formats can be compared. */
export function echoRoutes(app: Express): void {
  app.post('/echo', (req, res) => {
    res.status(200).json({ body: req.body === undefined ? '<undefined>' : req.body });
  });
  app.get('/echo', (req, res) => {
    res.status(200).json({ body: req.body === undefined ? '<undefined>' : req.body });
  });
}
