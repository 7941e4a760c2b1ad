#!/usr/bin/env node
// The `ocg` command (package.json "bin"): runs the TypeScript sources through
// tsx, so `npm link` or `npx ocg` works without a build step. tsx must be told
// which tsconfig maps the @ocg/* imports, since the caller's cwd may be anywhere.
'use strict';
const path = require('node:path');

process.env.TSX_TSCONFIG_PATH ??= path.resolve(__dirname, '../../../tsconfig.json');
require('tsx/cjs');
require('../src/main.ts').main(process.argv);
