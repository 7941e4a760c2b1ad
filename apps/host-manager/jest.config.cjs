module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'host-manager',
  rootDir: __dirname,
};
