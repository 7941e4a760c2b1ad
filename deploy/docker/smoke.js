// Run in each image's build stage: the bundle loads every module it needs on this
// base (native ones included) and reaches its config check, which refuses the
// deliberately bad LOG_LEVEL. A missing module or a binary built for another
// libc fails the build here instead of the first start.
'use strict';
const { spawnSync } = require('node:child_process');
const run = spawnSync(process.execPath, [process.argv[2]], { env: { LOG_LEVEL: 'not-a-level' }, encoding: 'utf8', timeout: 30000 });
const output = `${run.stdout}${run.stderr}`;
if (!/Invalid configuration:[\s\S]*LOG_LEVEL/.test(output)) {
  console.error(`smoke: ${process.argv[2]} did not reach its config check:\n${output}`);
  process.exit(1);
}
