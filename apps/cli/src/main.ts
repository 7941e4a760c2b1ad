#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerJobValidate } from './commands/job-validate';
import { registerJobPost } from './commands/job-post';
import { registerJobManage } from './commands/job-manage';
import { registerJobNode } from './commands/job-node';
import { registerKeys } from './commands/keys';
import { registerSign } from './commands/sign';
import { registerAdminUser } from './commands/admin-user';
import { registerAdminMarkets } from './commands/admin-markets';
import { registerAdminNodes } from './commands/admin-nodes';
import { registerAdminBenchmarks } from './commands/admin-benchmarks';

// The workspace's version: the CLI ships with the gateway it talks to.
const CLI_VERSION = (JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

/**
 * The `ocg` command line: every command hangs off this program. Tests pass
 * their own `program` (exitOverride, captured output); subcommands inherit it.
 */
export function buildProgram(program = new Command('ocg')): Command {
  program
    .description('Open Compute Gateway command-line client')
    .version(`ocg ${CLI_VERSION} (node ${process.version})`, '-V, --version', 'print the version of ocg and of the Node runtime it runs on')
    .showHelpAfterError();
  const job = program.command('job').description('Validate, post and manage jobs');
  registerJobValidate(job);
  registerJobPost(job);
  registerJobManage(job);
  registerJobNode(job);
  registerKeys(program);
  registerSign(program);
  const admin = program.command('admin').description('Operator commands (need an admin API key)');
  registerAdminUser(admin);
  registerAdminMarkets(admin);
  registerAdminNodes(admin);
  registerAdminBenchmarks(admin);
  return program;
}

/** Runs one command line (`node ocg ...`); errors go to stderr and set exit code 1. */
export async function main(argv: string[] = process.argv, program = buildProgram()): Promise<void> {
  // Node ends a process whose event loop ran dry with exit 0, even while a command still awaits (a connection
  // dropped without an error): such a command says so and fails instead of ending without a word.
  const unfinished = () => {
    process.stderr.write('ocg: the command ended before it had an answer; it may not have taken effect (check, e.g. with ocg job get)\n');
    process.exitCode = 1;
  };
  process.once('beforeExit', unfinished);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Commander has already printed its own usage errors (and help, which is no error).
    if (err instanceof CommanderError) return void (process.exitCode = err.exitCode);
    process.stderr.write(`ocg: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    process.removeListener('beforeExit', unfinished);
  }
}

if (require.main === module) void main();
