module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'api-spec',
  rootDir: __dirname,
};
