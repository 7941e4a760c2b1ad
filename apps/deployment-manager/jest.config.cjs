module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'deployment-manager',
  rootDir: __dirname,
};
