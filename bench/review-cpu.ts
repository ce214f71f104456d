/**
 * `npm run bench -- review`: the CPU time (user + system of the command and every process it waits for: npm, the no-op
 * `tsc -b`, the synthesis, the base worktree's build and synthesis) of `npm run review` and of
 * `npm run review -- --base HEAD`, measured by bash's `times` around each, min of 3. Targets: half of what issue 35
 * measured before its changes (1.8 s and 9 s of CPU).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Issue 35's targets, in seconds of CPU. */
export const REVIEW_CPU_TARGET_S = 0.9;
export const BASE_CPU_TARGET_S = 4.5;

/** CPU seconds (children's user + system, bash `times`) of `npm run review -- <args>` run in `root`. */
function cpuSeconds(root: string, out: string, args: readonly string[]): number {
  const quoted = ['--quiet', '--out', out, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('bash', ['-c', `npm run --silent review -- ${quoted} >/dev/null 2>&1; code=$?; times; exit $code`], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`npm run review ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  // `times` prints the shell's then its children's user and system times: "0m0.961s 0m0.164s"
  const [, m1, s1, m2, s2] = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(r.stdout.trim()) ?? [];
  if (m1 === undefined) throw new Error(`bash times printed nothing readable: ${r.stdout}`);
  return Number(m1) * 60 + Number(s1) + Number(m2) * 60 + Number(s2);
}

export function reviewCpuBench(root: string): Array<[string, boolean]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-review-cpu-'));
  try {
    const out = path.join(tmp, 'review.md');
    const review = Math.min(...[0, 1, 2].map(() => cpuSeconds(root, out, [])));
    const base = Math.min(...[0, 1, 2].map(() => cpuSeconds(root, out, ['--base', 'HEAD'])));
    console.log(`${'npm run review (CPU)'.padEnd(34)} ${review.toFixed(2).padStart(6)} s           (min of 3)`);
    console.log(`${'npm run review -- --base HEAD (CPU)'.padEnd(34)} ${base.toFixed(2).padStart(6)} s           (min of 3)`);
    return [
      [`review CPU <= ${REVIEW_CPU_TARGET_S} s (${review.toFixed(2)} s)`, review <= REVIEW_CPU_TARGET_S],
      [`review --base CPU <= ${BASE_CPU_TARGET_S} s (${base.toFixed(2)} s)`, base <= BASE_CPU_TARGET_S],
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
