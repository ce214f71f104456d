// Mutation testing (`npm run mutate`, StrykerJS 9): do the tests *assert* what jobs/, config/, review/, util/ and status/ do?
// Not part of `npm test` (it runs each covered test once per mutant: hours for the whole set on two cores; run it one file at a time).
//
// Narrow it to one file: `npm run mutate -- --mutate jobs/jobset.ts`; on a shared machine add `--concurrency 1`.
// A quicker, conservative score counts only some tests: MUTATE_TESTS="__tests__/jobs __tests__/models" (folders or
// files, space-separated); a mutant only the other tests would kill then survives.
// Reports: reports/mutation/ (HTML and JSON, gitignored); `--incremental` reuses reports/mutation/incremental.json.
//
// What counts as a kill: an explicit assertion. The byte-for-byte golden test (__tests__/golden) and the stack
// snapshots are tripwires, not behaviour: a careless `jest -u` or UPDATE_GOLDEN=1 accepts any change they catch. So
// the mutation run leaves the golden test out and turns `toMatchSnapshot` into a no-op
// (scripts/stryker/snapshots-off.js); a mutant only they would catch survives and shows where an assertion is missing.
const only = (process.env.MUTATE_TESTS ?? '').split(/[\s,]+/).filter(Boolean);
const testMatch = only.map((p) => (p.endsWith('.ts') ? `<rootDir>/${p}` : `<rootDir>/${p.replace(/\/$/, '')}/**/*.test.ts`));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  coverageAnalysis: 'perTest',
  mutate: ['jobs/**/*.ts', 'config/**/*.ts', 'review/**/*.ts', 'util/**/*.ts', 'status/**/*.ts'],
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    // Only the tests that import the mutated files (jest --findRelatedTests).
    enableFindRelatedTests: true,
    config: {
      ...(testMatch.length ? { testMatch } : {}),
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/golden/'],
      setupFilesAfterEnv: ['<rootDir>/__tests__/setup.js', '<rootDir>/scripts/stryker/snapshots-off.js'],
    },
  },
  // Synthesis tests take seconds; a mutant that loops is still cut off.
  timeoutMS: 20000,
  ignorePatterns: ['dist', 'cdktf.out', 'cdktf.out.golden', '.gen', 'coverage', 'reports', '__tests__/golden/fixtures'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/mutation/incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
