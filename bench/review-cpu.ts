/**
 * `npm run bench -- review`: the CPU time (user + system of the command and every process it waits for: npm, the
 * build check, the synthesis, the base worktree's build and synthesis) of `npm run review` and of
 * `npm run review -- --base HEAD`, measured by bash's `times` around each.
 *
 * `npm run review` reuses the synthesis in cdktf.out while its inputs are unchanged (review/synth-cache.ts): it is
 * measured both ways, once synthesizing (the record removed first: the first review after an edit) and min of 3
 * reusing (the review run again: the target). `--base HEAD` min of 3.
 *
 * Targets, half of what was measured before (CPU seconds): `npm run review` 0.53 s (1.05-1.10 s before issue 35's
 * speed work), `--base` 2.8 s (5.6-6.1 s on main before issue 35; issue 35 itself measured 1.8 s and 9 s).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { INPUTS_RECORD } from '../review/synth-cache';

/** The targets, in seconds of CPU. */
export const REVIEW_CPU_TARGET_S = 0.53;
export const BASE_CPU_TARGET_S = 2.8;

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
    fs.rmSync(path.join(root, 'cdktf.out', INPUTS_RECORD), { force: true });
    const synthesizing = cpuSeconds(root, out, []);
    const review = Math.min(...[0, 1, 2].map(() => cpuSeconds(root, out, [])));
    const base = Math.min(...[0, 1, 2].map(() => cpuSeconds(root, out, ['--base', 'HEAD'])));
    const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
    console.log(`${'npm run review (CPU, synthesizing)'.padEnd(38)} ${synthesizing.toFixed(2).padStart(6)} s           (1 run, the record removed)`);
    console.log(`${'npm run review (CPU)'.padEnd(38)} ${review.toFixed(2).padStart(6)} s           (min of 3, the synthesis reused)`);
    console.log(`${'npm run review -- --base HEAD (CPU)'.padEnd(38)} ${base.toFixed(2).padStart(6)} s           (min of 3)`);
    console.log(`load average after: ${load}`);
    return [
      [`review CPU <= ${REVIEW_CPU_TARGET_S} s (${review.toFixed(2)} s)`, review <= REVIEW_CPU_TARGET_S],
      [`review --base CPU <= ${BASE_CPU_TARGET_S} s (${base.toFixed(2)} s)`, base <= BASE_CPU_TARGET_S],
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
