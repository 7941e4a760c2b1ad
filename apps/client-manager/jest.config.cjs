module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'client-manager',
  rootDir: __dirname,
};
