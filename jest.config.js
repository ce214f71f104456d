/** Jest runs the TypeScript sources through ts-jest in isolatedModules mode (transpile only);
 * type-checking is `tsc --noEmit`, the first half of `npm test`. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFilesAfterEnv: ['<rootDir>/__tests__/setup.js'],
  testTimeout: 60000,
};
