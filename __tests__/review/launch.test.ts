/** review/launch.js: the `npm run review` entry point that refreshes only stale dist/ files. */
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const launch = require('../../review/launch.js') as { sources: () => string[] };
const ROOT = path.resolve(__dirname, '..', '..');

test('the launcher sees the build sources: the review, the app entry point and the price table', () => {
  const rel = launch.sources().map((f) => path.relative(ROOT, f));
  expect(rel).toEqual(expect.arrayContaining(['main.ts', path.join('review', 'cli.ts'), path.join('review', 'prices.json'), path.join('jobs', 'tpu.ts')]));
  expect(rel.some((f) => f.startsWith('__tests__'))).toBe(false);
  expect(rel.some((f) => f.endsWith('.d.ts'))).toBe(false);
});
