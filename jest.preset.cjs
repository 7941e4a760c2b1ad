// Shared jest settings: swc for speed, tsconfig paths as module names, ESM-only
// dependencies transformed to CommonJS.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(__dirname, target);
}

const esmOnly = ['@seriousme', '@noble', 'multiformats', 'jose', 'bs58', 'base-x', 'uint8arrays'];

module.exports = {
  testEnvironment: 'node',
  moduleNameMapper,
  transform: {
    '^.+\\.(t|j|mj)s$': [
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
