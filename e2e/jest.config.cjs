module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'e2e',
  rootDir: __dirname,
  testTimeout: 120000,
  // Two files at a time, whatever the core count (jest's default is one worker on two cores): the longest
  // specs spend most of their time waiting through outages and restarts, and each starts a stack of its own
  // on free ports, so they overlap without sharing anything.
  maxWorkers: 2,
};
