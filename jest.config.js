/** Jest runs the TypeScript sources through ts-jest in isolatedModules mode (transpile only);
 * type-checking is `tsc --noEmit`, the first half of `npm test`. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFilesAfterEnv: ['<rootDir>/__tests__/setup.js'],
  // One folder per run for what test files share: synthesized JSON (__tests__/util.ts), the dist/ build (__tests__/dist.ts).
  globalSetup: '<rootDir>/__tests__/global-setup.js',
  globalTeardown: '<rootDir>/__tests__/global-teardown.js',
  testTimeout: 60000,
};
