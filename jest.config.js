/** Jest runs the TypeScript sources through ts-jest in isolatedModules mode (transpile only);
 * type-checking is `tsc --noEmit`, the first half of `npm test`. */
const os = require('os');

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
  // At least two workers: on 2 cores jest's default (cores - 1) runs in band, one file at a time, and the suites that
  // wait on child processes (the compiled CLIs, terraform, git, tsc) leave the other core idle meanwhile.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
};
