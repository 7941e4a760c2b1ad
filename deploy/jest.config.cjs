module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'deploy',
  rootDir: __dirname,
  // Image builds and a composed stack: minutes, not seconds.
  testTimeout: 600000,
};
