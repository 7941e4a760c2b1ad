// Run in each image's build stage, as root: runs the bundle as the image's user
// (uid 1000) until it proves it loaded every module it needs on this base
// (native ones included): a service reaches its config check, which refuses the
// deliberately bad LOG_LEVEL; the CLI prints its version. A missing module or
// a binary built for another libc fails the build here instead of the first
// start. Meanwhile V8's compile cache of the bundle is written to
// NODE_COMPILE_CACHE (Node keeps one directory per uid), then made root's and
// read-only: each start then loads the modules in about half the time.
//   node smoke.js <entry> <expected output (regex)> [args...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const [entry, expected, ...args] = process.argv.slice(2);
const cache = process.env.NODE_COMPILE_CACHE;
const UID = 1000;
if (cache) {
  fs.mkdirSync(cache, { recursive: true });
  fs.chownSync(cache, UID, UID);
}
const env = { LOG_LEVEL: 'not-a-level', ...(cache ? { NODE_COMPILE_CACHE: cache } : {}) };
const run = spawnSync(process.execPath, [entry, ...args], { env, uid: UID, gid: UID, encoding: 'utf8', timeout: 30000 });
const output = `${run.stdout}${run.stderr}`;
if (!new RegExp(expected).test(output)) {
  console.error(`smoke: ${entry} ${args.join(' ')} did not print /${expected}/:\n${output}`);
  process.exit(1);
}
if (cache) seal(cache);

function seal(dir) {
  fs.chownSync(dir, 0, 0);
  fs.chmodSync(dir, 0o755);
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isDirectory()) seal(file);
    else {
      fs.chownSync(file, 0, 0);
      fs.chmodSync(file, 0o644);
    }
  }
}
