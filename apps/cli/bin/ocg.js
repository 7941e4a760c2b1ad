#!/usr/bin/env node
// The `ocg` command (package.json "bin"): runs the TypeScript sources through
// tsx, so `npm link` or `npx ocg` works without a build step. tsx must be told
// which tsconfig maps the @ocg/* imports, since the caller's cwd may be anywhere.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// `npm link` puts this file on the PATH under the machine's own Node, which may be
// older than the Node 24 the project pins: run again under the pinned binary.
const REQUIRED_MAJOR = 24;
if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  const pinned = path.resolve(__dirname, '../../../node_modules/node/bin/node');
  if (!fs.existsSync(pinned)) {
    process.stderr.write(`ocg: needs Node ${REQUIRED_MAJOR} or later, this is ${process.version}; run \`bash tools/setup.sh\` in the checkout\n`);
    process.exit(1);
  }
  const run = spawnSync(pinned, [__filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

process.env.TSX_TSCONFIG_PATH ??= path.resolve(__dirname, '../../../tsconfig.json');
require('tsx/cjs');
require('../src/main.ts').main(process.argv);
