module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'node-agent',
  rootDir: __dirname,
  // Real containers: starting, health-checking and stopping them takes seconds, not milliseconds.
  testTimeout: 60000,
};
