/**
 * Byte-identical synthesis: every stack's cdk.tf.json (as `app.synth()` writes it, through the same path main.ts
 * takes) and the notices the user is shown, for each configuration of ./configs.ts, equal the recorded files in
 * ./fixtures/<config>/. This is the guard of refactors (issue 18): a change of structure changes no byte. A change of
 * behaviour re-records on purpose, `UPDATE_GOLDEN=1 npx jest __tests__/golden`, in a commit that says so; CI never
 * records.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { findRepoRoot } from '../../config/load';
import { composeApp } from '../../stacks/app';
import { GOLDEN_CONFIGS } from './configs';

const FIXTURES = path.join(__dirname, 'fixtures');
const RECORD = process.env.UPDATE_GOLDEN === '1';
if (RECORD && process.env.CI && !['0', 'false'].includes(process.env.CI)) throw new Error('UPDATE_GOLDEN=1 records fixtures; CI only compares');

/** Every file the synthesis of one configuration gives the user: each stack's JSON and the notices, by name. */
function synthesize(env: Readonly<Record<string, string>>, outdir: string): Record<string, string> {
  fs.rmSync(outdir, { recursive: true, force: true });
  fs.mkdirSync(outdir, { recursive: true });
  const { app, notices } = composeApp(loadDeployment({ env: { ...env } }), { outdir });
  app.synth();
  const files: Record<string, string> = { 'notices.txt': notices.map((n) => `note: ${n}\n`).join('') };
  for (const stack of fs.readdirSync(path.join(outdir, 'stacks')).sort()) {
    files[`${stack}.tf.json`] = fs.readFileSync(path.join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8');
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  return files;
}

describe.each(Object.keys(GOLDEN_CONFIGS))('synthesized output unchanged: %s', (name) => {
  // A fixed folder under the repository (like cdktf.out), so the local backend's relative state path is the same on
  // every machine and in every clone.
  const outdir = path.join(findRepoRoot(), 'cdktf.out.golden', name);
  const dir = path.join(FIXTURES, name);
  const files = synthesize(GOLDEN_CONFIGS[name]!, outdir);

  if (RECORD) {
    test('recorded', () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
      // The recording is what a comparison run reads back: every file, byte for byte, and nothing else in the folder.
      expect(fs.readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
      for (const [file, text] of Object.entries(files)) expect(fs.readFileSync(path.join(dir, file), 'utf8')).toBe(text);
      expect(Object.keys(files)).toContain('notices.txt');
      expect(Object.keys(files).some((f) => f.endsWith('.tf.json'))).toBe(true);
    });
    return;
  }

  test('the same stacks', () => {
    expect(Object.keys(files).sort()).toEqual(fs.readdirSync(dir).sort());
  });
  test.each(Object.keys(files))('%s is byte-identical', (file) => {
    const want = fs.readFileSync(path.join(dir, file), 'utf8');
    const got = files[file]!;
    if (got !== want) {
      // Name the first differing line, not a 3,000-line diff.
      const [a, b] = [want.split('\n'), got.split('\n')];
      const i = a.findIndex((line, k) => line !== b[k]);
      throw new Error(`${name}/${file} differs from the recording at line ${i + 1}:\n  recorded: ${a[i]}\n  now:      ${b[i]}\n(re-record with UPDATE_GOLDEN=1 only for an intended change of behaviour)`);
    }
  });
});

test('every configuration has its recording, and no recording is left without one', () => {
  expect(fs.readdirSync(FIXTURES).sort()).toEqual(Object.keys(GOLDEN_CONFIGS).sort());
});
