/**
 * dist/ for the suites that run the compiled entry points as a user does (`node dist/main.js`, `node
 * dist/status/cli.js`): brought up to date by the project's one build (`tsc -b tsconfig.build.json`, as `npm run
 * status` and `npm run review` do), once per jest run. The run's folder (__tests__/global-setup.js,
 * TPT_JEST_RUN_DIR) remembers that it was built; without it (a runner without the globalSetup) every call builds.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..');

export function ensureDist(): void {
  const runDir = process.env.TPT_JEST_RUN_DIR;
  const marker = runDir ? path.join(runDir, 'dist-built') : undefined;
  if (marker && fs.existsSync(marker)) return;
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`tsc -b tsconfig.build.json failed:\n${build.stdout}${build.stderr}`);
  if (marker && fs.existsSync(runDir!)) fs.writeFileSync(marker, '');
}
