// `npm run review [-- options]`: the build step (scripts/build-if-stale.mjs: tsc only when the content of a source, a
// tsconfig or the lockfile changed), then the review (dist/review/cli.js `main`) in this same process: one
// Node start, not two (each about 0.05 s of CPU). Exit status: tsc's when the build fails, else the review's.
import { createRequire } from 'node:module';
import { buildIfStale, enableCompileCache } from './build-if-stale.mjs';

const built = buildIfStale();
if (built !== 0) {
  process.exitCode = built;
} else {
  enableCompileCache();
  const { main } = createRequire(import.meta.url)('../dist/review/cli.js');
  process.exitCode = main(process.argv.slice(2));
}
