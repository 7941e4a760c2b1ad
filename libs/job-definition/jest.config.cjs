module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'job-definition',
  rootDir: __dirname,
};
