/**
 * Preloaded (`--import`) into every process `startTsProcess` starts: its
 * standard input is a pipe from the starter that nothing is written to, so
 * the pipe's end means the starter is gone (killed outright, or its terminal
 * closed) without having stopped it. The process then stops itself as a
 * SIGTERM would stop it, through its own handler: a node agent drains its
 * jobs instead of being left running with them.
 */
const input = process.stdin;
input.once('end', () => process.kill(process.pid, 'SIGTERM'));
input.resume();
// Watching must not keep a process alive that would otherwise exit.
input.unref();
