/** Jest runs the TypeScript sources through ts-jest in isolatedModules mode (transpile only);
 * type-checking is `tsc --noEmit`, the first half of `npm test`. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFilesAfterEnv: ['<rootDir>/__tests__/setup.js'],
  // One folder of synthesized JSON per run, shared by the test files (__tests__/util.ts cachedSynth).
  globalSetup: '<rootDir>/__tests__/global-setup.js',
  globalTeardown: '<rootDir>/__tests__/global-teardown.js',
  testTimeout: 60000,
};
