module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'node-agent',
  rootDir: __dirname,
};
