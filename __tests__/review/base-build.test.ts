/**
 * The base checkout's build for `--base` (review/diff.ts buildCheckout): only the files the app reaches from main.ts,
 * transpiled file by file or copied from the working tree's fresh build when the source is the same. Either way the
 * synthesis must be the one `tsc` gives: a worktree of HEAD built both ways synthesizes the same bytes as the
 * compiled app of this checkout's HEAD.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildCheckout } from '../../review/diff';
import { synthesize } from '../../review/load';

const ROOT = path.resolve(__dirname, '..', '..');

/** Every cdk.tf.json of a synthesis, by stack. */
function stacks(outdir: string): Record<string, string> {
  const dir = path.join(outdir, 'stacks');
  return Object.fromEntries(fs.readdirSync(dir).map((s) => [s, fs.readFileSync(path.join(dir, s, 'cdk.tf.json'), 'utf8')]));
}

test('transpiled alone, or reusing the working tree\'s build: the same synthesis, and only the app\'s files built', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'base-build-'));
  const worktree = path.join(tmp, 'src');
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', worktree, 'HEAD'], { stdio: 'ignore' });
  try {
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'), 'dir');
    buildCheckout(worktree);
    expect(fs.existsSync(path.join(worktree, 'dist', 'main.js'))).toBe(true);
    expect(fs.existsSync(path.join(worktree, 'dist', 'review', 'cli.js'))).toBe(false); // not reached from main.ts
    expect(fs.existsSync(path.join(worktree, 'dist', 'status', 'cli.js'))).toBe(false);
    synthesize(worktree, path.join(tmp, 'transpiled'));
    fs.rmSync(path.join(worktree, 'dist'), { recursive: true });
    // A stand-in "working tree" whose build of jobs/tpu.ts is marked: a file with the same source is copied from it.
    const other = path.join(tmp, 'other');
    // (Folders made from the files' own paths: the house move (issue 47) puts jobs/ files one level deeper.)
    fs.mkdirSync(path.dirname(path.join(other, 'dist', 'jobs', 'tpu.js')), { recursive: true });
    fs.mkdirSync(path.dirname(path.join(other, 'jobs', 'tpu.ts')), { recursive: true });
    fs.copyFileSync(path.join(worktree, 'jobs', 'tpu.ts'), path.join(other, 'jobs', 'tpu.ts'));
    buildCheckout(worktree, undefined, other); // nothing built there yet: everything transpiled
    const transpiled = fs.readFileSync(path.join(worktree, 'dist', 'jobs', 'tpu.js'), 'utf8');
    fs.writeFileSync(path.join(other, 'dist', 'jobs', 'tpu.js'), `${transpiled}// from the working tree's build\n`);
    buildCheckout(worktree, undefined, other);
    expect(fs.readFileSync(path.join(worktree, 'dist', 'jobs', 'tpu.js'), 'utf8')).toContain("// from the working tree's build");
    // an older build output than its source is not reused
    fs.utimesSync(path.join(other, 'dist', 'jobs', 'tpu.js'), new Date(0), new Date(0));
    buildCheckout(worktree, undefined, other);
    expect(fs.readFileSync(path.join(worktree, 'dist', 'jobs', 'tpu.js'), 'utf8')).toBe(transpiled);
    synthesize(worktree, path.join(tmp, 'reused'));
    expect(stacks(path.join(tmp, 'reused'))).toEqual(stacks(path.join(tmp, 'transpiled')));
  } finally {
    execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', worktree], { stdio: 'ignore' });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}, 120_000);
