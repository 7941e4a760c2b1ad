#!/usr/bin/env node
import { Command } from 'commander';
import { registerJobValidate } from './commands/job-validate';

/** The `ocg` command line: every command hangs off this program. */
export function buildProgram(): Command {
  const program = new Command('ocg').description('Open Compute Gateway command-line client').showHelpAfterError();
  const job = program.command('job').description('Validate, post and manage jobs');
  registerJobValidate(job);
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      process.stderr.write(`ocg: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
