/**
 * The reward that runs is the reward reviewed (issue 32 item 3):
 * - shipped byte for byte: a reward holding Terraform template syntax (`${`, `%{`, `$$`), cdktf token markers, every
 *   control character but NUL, C1 characters, CRLF line ends, a BOM and non-ASCII text is synthesized, read back by
 *   Terraform itself (a `terraform_data` whose input is the synthesized ConfigMap, applied with local state), and the
 *   sha256 of what Terraform holds equals the file's and the run record's; the old `data` form is shown to fail;
 * - its signature checked with Python's own parser (config/python.ts) against how MaxText 0.2.4 and Tunix c4ec573d
 *   call it (jobs/reward.ts): each refusal names `reward`, the file and the line.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { findRepoRoot } from '../../config/load';
import { readRepoFile } from '../../config/pipelines';
import { parsePython } from '../../config/python';
import { rewardFunctions } from '../../jobs/reward';
import { terraformTest } from '../ci-env';
import { terraformApply } from '../stand-ins';
import { configFile, synthStack, WITH_SINGLE_HOST } from '../util';

const ROOT = findRepoRoot();
/** Reward files of these tests, inside the repository (the only place a reward may come from), removed afterwards. */
fs.mkdirSync(path.join(ROOT, '.gen'), { recursive: true });
const DIR = fs.mkdtempSync(path.join(ROOT, '.gen', 'test-rewards-'));
const rel = (name: string) => path.relative(ROOT, path.join(DIR, name));
afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));

const GRPO = { method: 'grpo', model: 'qwen3-8b', hfModel: 'Qwen/Qwen3-8B', dataset: { hf: 'openai/gsm8k', config: 'main' }, slice: 'v6e-8' };

/** Every control character but NUL (which no Python source may hold), LF and CR (the line ends, used as CRLF). */
const CONTROL = Array.from({ length: 31 }, (_, i) => i + 1)
  .filter((c) => c !== 10 && c !== 13)
  .map((c) => String.fromCharCode(c))
  .join('') + '\x7f';
/** U+0080..U+00FF (C1 controls and Latin-1), the JavaScript line separators, CJK and an astral character. */
const NON_ASCII = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x80 + i)).join('') + '\u2028\u2029 é 漢字 🙂';
const NASTY =
  '\uFEFF"""Terraform and cdktf syntax: ${var.x} ${x} %{ if true }x%{ endif } $${y} $$ $${ %%{ ${TfToken[TOKEN.0]} $${TfToken[TOKEN.1]}"""\r\n' +
  `CONTROL = "${CONTROL}"\r\n` +
  `NON_ASCII = "${NON_ASCII}"\r\n` +
  'def nasty(prompts, completions, answer, tmvp_config, **kwargs):\r\n' +
  '    return [0.0 for _ in completions]  # ${never} %{ endfor }\r\n';

function write(name: string, content: string | Buffer): string {
  fs.writeFileSync(path.join(DIR, name), content);
  return rel(name);
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A Terraform configuration holding `value` where the pipeline stack holds the ConfigMap manifest. */
const holding = (value: unknown) => ({
  resource: { terraform_data: { files: { input: value } } },
  output: { files: { value: '${terraform_data.files.output}' } },
});

describe('the reward file reaches the pod byte for byte', () => {
  const file = write('nasty.py', NASTY);
  const bytes = fs.readFileSync(path.join(ROOT, file));
  const env = { CONFIG_FILE: configFile((c) => (c.pipelines.mine = { ...GRPO, reward: file })), PIPELINES: 'mine', ...WITH_SINGLE_HOST };

  test('the synthesized ConfigMap holds the base64 of the file, nothing in data; the record holds the file\'s sha256', () => {
    const tf = synthStack('mine', env);
    const cm = tf.resource.kubernetes_manifest.files.manifest;
    expect(cm.data).toBeUndefined();
    expect(Buffer.from(cm.binaryData['nasty.py'], 'base64')).toEqual(bytes);
    expect(cm.binaryData['nasty.py']).toMatch(/^[A-Za-z0-9+/=]+$/);
    const pipeline = loadDeployment({ env }).pipelines[0];
    expect(pipeline.recipe.lineage?.reward).toEqual({ path: file, sha256: sha256(bytes) });
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  terraformTest('Terraform 1.11.4 reads the synthesized value and its sha256 is the file\'s', () => {
    const tf = synthStack('mine', env);
    const result = terraformApply(holding(tf.resource.kubernetes_manifest.files.manifest));
    expect(result.errors).toBeUndefined();
    const held = result.outputs!.files.value as { binaryData: Record<string, string> };
    expect(sha256(Buffer.from(held.binaryData['nasty.py'], 'base64'))).toBe(sha256(bytes));
  }, 120_000);

  terraformTest('the run record, which holds the reward\'s path as written, reaches Terraform as written', () => {
    fs.mkdirSync(path.join(DIR, '${x}%{y}'));
    const odd = write(path.join('${x}%{y}', 'r.py'), 'def r(prompts, completions, **kw):\n  return []\n');
    const tf = synthStack('mine', { ...env, CONFIG_FILE: configFile((c) => (c.pipelines.mine = { ...GRPO, reward: odd })) });
    const result = terraformApply(holding(tf.resource.kubernetes_manifest.record.manifest));
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.outputs!.files.value)).toContain(JSON.stringify(odd).slice(1, -1));
  }, 120_000);

  terraformTest('the old form (the text under data) is what Terraform breaks: an unknown reference fails, %{ } is rewritten', () => {
    const failing = terraformApply(holding({ data: { 'r.py': 'x = "${var.x}"\n' } }));
    expect(failing.errors).toMatch(/Reference to undeclared input variable/);
    const rewritten = terraformApply(holding({ data: { 'r.py': 'x = "%{ if true }x%{ endif }"\n' } }));
    expect((rewritten.outputs!.files.value as any).data['r.py']).toBe('x = "x"\n');
  }, 120_000);
});

describe('the reward signature, by Python\'s parser, as MaxText 0.2.4 and Tunix call it', () => {
  const errorOf = (reward: unknown): string => {
    try {
      loadDeployment({ env: { CONFIG_FILE: configFile((c) => (c.pipelines.mine = { ...GRPO, reward })), PIPELINES: 'mine', ...WITH_SINGLE_HOST } });
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('expected a config error');
  };
  const problemsOf = (content: string, functions?: string[]) => {
    const f = readRepoFile(ROOT, write(`case${createHash('md5').update(content).digest('hex').slice(0, 8)}.py`, content));
    expect(f.problem).toBeUndefined();
    return rewardFunctions(f.path, f.python!, functions).problems.map((p) => `${p.key}: ${p.text}`);
  };

  test('accepted: MaxText\'s own shape, defaults, keyword-only with defaults, answer and question required, *args', () => {
    expect(problemsOf('def a(prompts, completions, tmvp_config, **kargs):\n  return []\n')).toEqual([]);
    expect(problemsOf('def a(prompts, completions, answer, question, tmvp_config=None, *args, scale=1.0, **kw):\n  return []\n')).toEqual([]);
    expect(problemsOf('def a(*, prompts, completions, **kw):\n  return []\n')).toEqual([]);
    const d = loadDeployment({ env: { CONFIG_FILE: configFile((c) => (c.pipelines.mine = { ...GRPO, reward: 'config/examples/rewards/final_number.py' })), PIPELINES: 'mine', ...WITH_SINGLE_HOST } });
    expect(d.pipelines[0].recipe.train.args['reward_functions']).toBe('final_number');
  });

  test('a file that does not parse is refused naming reward, the file and the line', () => {
    const file = write('broken.py', '"""ok"""\n\ndef r(prompts, completions, **kw)\n  return []\n');
    expect(errorOf(file)).toContain(`pipelines.mine.reward: '${file}' line 3 does not parse as Python (python 3.`);
    expect(errorOf(file)).toMatch(/expected ':'; MaxText imports the whole file/);
  });

  test('a NUL byte, which no Python source may hold, is refused', () => {
    const file = write('nul.py', 'def r(prompts, completions, **kw):\n  return ["\0"]\n');
    expect(errorOf(file)).toMatch(new RegExp(`pipelines\\.mine\\.reward: '${file.replace(/[.]/g, '\\.')}'.* does not parse as Python .*null bytes`));
  });

  test('a function named in reward.functions that is missing, or not a def, is refused with the line', () => {
    const file = write('two.py', 'def r(prompts, completions, **kw):\n  return []\n\nother = r\n');
    expect(errorOf({ file, functions: ['nope'] })).toContain(`pipelines.mine.reward.functions: 'nope' is not defined at the top level of '${file}'; it defines r`);
    expect(errorOf({ file, functions: ['other'] })).toContain(`pipelines.mine.reward.functions: '${file}' line 4: 'other' is not bound by a top-level def`);
    // The last binding wins, as when Python runs the file: a def rebound by an assignment is no def.
    expect(problemsOf('def r(prompts, completions, **kw):\n  return []\nr = None\n', ['r'])).toEqual([
      expect.stringContaining("line 3: 'r' is not bound by a top-level def"),
    ]);
  });

  test('no reward function at all', () => {
    const file = write('none.py', 'def helper(x):\n  return x\n');
    expect(errorOf(file)).toContain(`pipelines.mine.reward: '${file}' defines no top-level reward function 'def <name>(prompts, completions, **kwargs)'`);
  });

  test('no **kwargs: refused naming the line and what MaxText passes', () => {
    const file = write('nokw.py', '# a reward\ndef r(prompts, completions, tmvp_config):\n  return []\n');
    expect(errorOf(file)).toContain(
      `pipelines.mine.reward: '${file}' line 2: r has no **kwargs: MaxText 0.2.4 calls a reward with keywords only: prompts, completions, tmvp_config and the batch columns (question, answer), plus mode in training`,
    );
    expect(errorOf(file)).toContain('so it raises TypeError at the first training step; add **kwargs');
  });

  test('an extra required parameter: refused naming it and its line; with a default it is accepted', () => {
    const file = write('extra.py', 'def r(prompts,\n      completions,\n      reference,\n      **kwargs):\n  return []\n');
    expect(errorOf(file)).toContain(`pipelines.mine.reward: '${file}' line 3: r requires parameter 'reference', which MaxText does not pass`);
    expect(errorOf(file)).toContain("give 'reference' a default or read it from kwargs");
    expect(problemsOf('def r(prompts, completions, *, reference, **kwargs):\n  return []\n')).toEqual([expect.stringContaining("line 1: r requires parameter 'reference'")]);
    expect(problemsOf('def r(prompts, completions, reference=None, **kwargs):\n  return []\n')).toEqual([]);
  });

  test('positional-only parameters and async def are refused', () => {
    expect(problemsOf('def r(prompts, completions, /, **kwargs):\n  return []\n')).toEqual([
      expect.stringContaining("line 1: r parameter 'prompts' is positional-only (before '/')"),
      expect.stringContaining("line 1: r parameter 'completions' is positional-only (before '/')"),
    ]);
    expect(problemsOf('async def r(prompts, completions, **kwargs):\n  return []\n')).toEqual([expect.stringContaining("line 1: r is 'async def'")]);
  });

  test('a coding declaration and a BOM are Python\'s to read; a file that is not UTF-8 is refused with the fix', () => {
    expect(problemsOf('\uFEFFdef r(prompts, completions, **kwargs):\n  return []\n')).toEqual([]);
    const latin = write('latin.py', Buffer.from('# -*- coding: latin-1 -*-\ndef r(prompts, completions, **kw):\n  return ["\xe9"]\n', 'latin1'));
    expect(errorOf(latin)).toContain(`pipelines.mine.reward: '${latin}' is not UTF-8 text (Python 3 reads source as UTF-8, PEP 3120); save it as UTF-8`);
  });

  test('without python3 the reward is refused with the fix, never waved through', () => {
    // A name that is on no PATH stands for the missing interpreter (the child process sees the real environment).
    expect(parsePython(Buffer.from('def r(prompts, completions, **kw): pass\n'), 'k', 'python3-not-installed-here')).toEqual({
      problem: "cannot be checked with Python's parser (python3-not-installed-here is not on PATH): install Python 3 (python3 on PATH) and run again",
    });
  });
});
