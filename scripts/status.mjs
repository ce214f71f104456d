// `npm run status|logs|workflows-ui [-- options]`: the build step (scripts/build-if-stale.mjs: tsc only when a source's
// content changed), then the status CLI (dist/status/cli.js `main`) in this same process: one Node start, not two.
// Exits as the CLI does when run itself (status/cli.ts: at once, so a request abandoned at its deadline holds nothing
// open). Exit status: tsc's when the build fails, else the CLI's.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { buildIfStale, enableCompileCache, ROOT } from './build-if-stale.mjs';

const built = buildIfStale();
if (built !== 0) process.exit(built);
enableCompileCache();
const { main } = createRequire(import.meta.url)(path.join(ROOT, 'dist', 'status', 'cli.js'));
main(process.argv.slice(2)).then((code) => process.exit(code));
