/**
 * dist/ for the suites that run the compiled entry points as a user does (`node dist/main.js`, `node
 * dist/status/cli.js`): brought up to date by the project's one build (scripts/build-if-stale.mjs: tsc when a source's
 * content changed, as every `npm run` command does), once per jest run. The run's folder (__tests__/global-setup.js,
 * TPT_JEST_RUN_DIR) remembers that it was built, and a lock in it keeps two workers from building at once (one
 * builds, the other waits for it). Without that folder (a runner without the globalSetup) every call builds.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..');
/** Longer than any build of this project; a waiter gives up after it, naming the lock. */
const WAIT_MS = 10 * 60_000;

function build(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/build-if-stale.mjs failed:\n${r.stdout}${r.stderr}`);
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function ensureDist(): void {
  const runDir = process.env.TPT_JEST_RUN_DIR;
  if (!runDir || !fs.existsSync(runDir)) return build();
  const built = path.join(runDir, 'dist-built');
  const lock = path.join(runDir, 'dist-building');
  const deadline = Date.now() + WAIT_MS;
  while (!fs.existsSync(built)) {
    try {
      fs.mkdirSync(lock); // atomic: one worker wins
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) throw new Error(`dist/ is still being built by another jest worker after ${WAIT_MS / 1000} s (lock ${lock})`);
      pause(100);
      continue;
    }
    try {
      build(); // a failed build leaves no marker: the next waiter builds and reports the same error
      fs.writeFileSync(built, '');
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}
