// `npm run review [-- options]`: the build step (scripts/build-if-stale.mjs: `tsc -b` only when a source, a tsconfig or
// the lockfile is newer than the last build), then the review (dist/review/cli.js `main`) in this same process: one
// Node start, not two (each about 0.05 s of CPU). Exit status: tsc's when the build fails, else the review's.
import { createRequire } from 'node:module';
import { buildIfStale } from './build-if-stale.mjs';

const built = buildIfStale();
if (built !== 0) {
  process.exitCode = built;
} else {
  const { main } = createRequire(import.meta.url)('../dist/review/cli.js');
  process.exitCode = main(process.argv.slice(2));
}
