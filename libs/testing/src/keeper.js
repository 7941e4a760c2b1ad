'use strict';
// Keeps one server process (postgres, redis-server, dockerd) on a leash, so no
// server outlives the code that started it, even when that code is killed with
// SIGKILL (a jest worker torn down, a test runner interrupted):
// - SIGTERM/SIGINT/SIGHUP to the keeper stop the server (the owner's normal stop);
// - owner mode: stdin is a pipe from the owner; EOF means the owner is gone;
// - users mode (a shared dockerd): the server stops once no pid listed as a file
//   name in usersDir is alive any more.
// Plain JavaScript run by bare `node`, so it works the same under jest and tsx.
// The configuration comes in OCG_KEEPER (not argv, which `ps` shows to everyone).
const { spawn } = require('node:child_process');
const fs = require('node:fs');

const cfg = JSON.parse(process.env.OCG_KEEPER);
delete process.env.OCG_KEEPER;
let orphaned = false;
let stopping = false;

const child = spawn(cfg.command, cfg.args, {
  stdio: ['ignore', 'inherit', 'inherit'],
  uid: cfg.uid,
  gid: cfg.gid,
  cwd: cfg.cwd,
  env: { ...process.env, ...cfg.env },
});

function stop() {
  if (stopping) return;
  stopping = true;
  child.kill(cfg.stopSignal || 'SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), cfg.stopTimeoutMs || 20000).unref();
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return e.code === 'EPERM';
  }
  try {
    // A zombie answers kill(0) but is gone for our purposes.
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
  } catch {
    return true;
  }
}

function liveUsers(dir) {
  let names = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  let live = 0;
  for (const name of names) {
    if (alive(Number(name))) live++;
    else fs.rmSync(`${dir}/${name}`, { force: true });
  }
  return live;
}

for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, stop);

if (cfg.usersDir) {
  setInterval(() => {
    if (liveUsers(cfg.usersDir) === 0) stop();
  }, 500).unref();
} else {
  process.stdin.on('data', () => undefined);
  process.stdin.on('close', () => {
    orphaned = true;
    stop();
  });
}

child.on('error', (err) => {
  process.stderr.write(`keeper: cannot start ${cfg.command}: ${err.message}\n`);
  process.exit(127);
});

child.on('exit', (code, signal) => {
  if (orphaned) for (const p of cfg.removeWhenOrphaned || []) fs.rmSync(p, { recursive: true, force: true });
  if (signal && !stopping) process.stderr.write(`keeper: ${cfg.command} killed by ${signal}\n`);
  process.exit(code === null ? 1 : code);
});
