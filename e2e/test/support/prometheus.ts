/** A real Prometheus (Debian's `prometheus`) for a test: its own config, storage and port, scraping every second. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@ocg/testing';

export interface Prometheus {
  url: string;
  /** An instant query's result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Every rule of the loaded rule files: its name, health (`ok`, `err`, `unknown` before its first evaluation) and last error. */
  rules(): Promise<{ name: string; health: string; lastError?: string }[]>;
  stop(): Promise<void>;
}

/** Scrapes `targets` (job name to `host:port` of its /metrics) every second, and evaluates `ruleFiles` every second. */
export async function startPrometheus(targets: Record<string, string>, ruleFiles: string[] = []): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'ocg-prometheus-'));
  const jobs = Object.entries(targets).map(([job, target]) => `  - job_name: ${job}\n    static_configs:\n      - targets: ['${target}']`);
  const rules = ruleFiles.length ? `rule_files:\n${ruleFiles.map((f) => `  - '${f}'`).join('\n')}\n` : '';
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n${rules}scrape_configs:\n${jobs.join('\n')}\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => output.push(c.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(
    async () => {
      if (gone) throw new Error(`prometheus exited:\n${output.join('')}`);
      return (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'prometheus to be ready' },
  );
  return {
    url,
    query: async (expr) => {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
      return body.data!.result;
    },
    rules: async () => {
      const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } };
      return body.data.groups.flatMap((g) => g.rules.map(({ name, health, lastError }) => ({ name, health, lastError })));
    },
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
