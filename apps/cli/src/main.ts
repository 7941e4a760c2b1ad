#!/usr/bin/env node
import { Command } from 'commander';
import { registerJobValidate } from './commands/job-validate';
import { registerAdminUser } from './commands/admin-user';
import { registerAdminMarkets } from './commands/admin-markets';
import { registerAdminBenchmarks } from './commands/admin-benchmarks';

/** The `ocg` command line: every command hangs off this program. */
export function buildProgram(): Command {
  const program = new Command('ocg').description('Open Compute Gateway command-line client').showHelpAfterError();
  const job = program.command('job').description('Validate, post and manage jobs');
  registerJobValidate(job);
  const admin = program.command('admin').description('Operator commands (need an admin API key)');
  registerAdminUser(admin);
  registerAdminMarkets(admin);
  registerAdminBenchmarks(admin);
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
