// Shared jest settings: swc for speed, tsconfig paths as module names, ESM-only
// dependencies transformed to CommonJS.
const fs = require('node:fs');
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(__dirname, target);
}

// Each project's results land here (--outputFile); tools/test-summary.ts adds them up.
fs.mkdirSync(path.join(__dirname, 'tmp', 'test-results'), { recursive: true });

// multiformats publishes its subpaths under the `import` condition only.
moduleNameMapper['^multiformats/(.*)$'] = path.join(__dirname, 'node_modules/multiformats/dist/src/$1.js');

// @opentelemetry's exporter loads node:http with import(), which jest's CommonJS runtime refuses untransformed.
const esmOnly = ['@seriousme', '@noble', 'multiformats', 'jose', 'bs58', 'base-x', 'uint8arrays', '@opentelemetry'];

module.exports = {
  testEnvironment: 'node',
  moduleNameMapper,
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testMatch: ['**/?(*.)spec.ts'],
  testTimeout: 30000,
};
