module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'e2e',
  rootDir: __dirname,
  testTimeout: 120000,
};
