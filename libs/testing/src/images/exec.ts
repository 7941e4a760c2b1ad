import { execFile, type ExecFileOptions } from 'node:child_process';

/** Runs a command, resolving with its stdout; the error names the command and carries its stderr. */
export function run(command: string, args: string[], opts: ExecFileOptions & { input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024, ...opts, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}
