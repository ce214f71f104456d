/**
 * Lineage you can audit (issue 32 item 5; jobs/hf-revision.ts): the weights, the tokenizer and its chat template come
 * from one commit resolved once before any download, and each step's run record holds the commits it downloaded.
 * The step lines run for real in bash with the real python3, over stand-in `huggingface_hub` and `gcsfs` modules
 * (a Hub whose head moves between steps, a bucket in a folder).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { listingRevisionPatch, resolveRevisionLines, RevisionSource, tokenizerAtRevisionLines, TOKENIZER_DIR } from '../../jobs/hf-revision';
import { shellQuote } from '../../jobs/maxtext';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { recordLine, RunRecord } from '../../jobs/run-record';
import { testPlatform } from './fixtures';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const T = 'c'.repeat(40);

const HUB = `
import json, os
def _log(*a):
    with open(os.environ["STUB_LOG"], "a") as f:
        f.write(json.dumps(a) + "\\n")
class _Info:
    def __init__(self, sha):
        self.sha = sha
class HfApi:
    def model_info(self, repo, revision=None):
        _log("model_info", repo, revision)
        heads = json.load(open(os.environ["STUB_HEADS"]))
        if revision is None:
            return _Info(heads[repo])
        if revision not in heads.get("known", []):
            raise Exception("404 Revision Not Found: " + revision)
        return _Info(revision)
def snapshot_download(repo, revision=None, local_dir=None, allow_patterns=None):
    _log("snapshot_download", repo, revision, local_dir, allow_patterns)
    return local_dir
`;
const GCS = `
import os
def _local(p):
    return os.path.join(os.environ["STUB_GCS"], p.replace("gs://", "").replace("/", "__"))
class GCSFileSystem:
    def cat(self, p):
        return open(_local(p), "rb").read()
    def pipe(self, p, data):
        open(_local(p), "wb").write(data)
`;

/** A Hub, a bucket and a log in a folder; `heads` is each repository's head (and `known` commits). */
function world(heads: Record<string, unknown>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rev-'));
  for (const [mod, code] of [['huggingface_hub', HUB], ['gcsfs', GCS]]) {
    fs.mkdirSync(path.join(dir, 'py', mod), { recursive: true });
    fs.writeFileSync(path.join(dir, 'py', mod, '__init__.py'), code);
  }
  fs.mkdirSync(path.join(dir, 'gcs'));
  const env = { STUB_LOG: path.join(dir, 'log'), STUB_HEADS: path.join(dir, 'heads.json'), STUB_GCS: path.join(dir, 'gcs'), PYTHONPATH: path.join(dir, 'py') };
  fs.writeFileSync(env.STUB_LOG, '');
  const setHeads = (h: Record<string, unknown>) => fs.writeFileSync(env.STUB_HEADS, JSON.stringify(h));
  setHeads(heads);
  return {
    setHeads,
    run(lines: string[]): { rc: number; out: string; err: string } {
      const r = spawnSync('bash', ['-c', ['set -eu', ...lines].join('\n')], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
      return { rc: r.status ?? -1, out: r.stdout, err: r.stderr };
    },
    log: (): unknown[][] => fs.readFileSync(env.STUB_LOG, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)),
    record: (gs: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(env.STUB_GCS, gs.replace('gs://', '').replace(/\//g, '__')), 'utf8')),
  };
}

const pipeline = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
const REPO = pipeline.model.hfRepo;
const rec = (step: 'to-maxtext' | 'train' | 'to-hf') => pipeline.runRecords[step];
const start = (step: 'to-maxtext' | 'train' | 'to-hf', record?: RunRecord) =>
  recordLine(record ?? rec(step).record, rec(step).path, 'start', shellQuote);
const source = (over: Partial<RevisionSource> = {}): RevisionSource => ({ repo: REPO, tokenizer: REPO, conversionRecord: rec('to-maxtext').path, ...over });

describe('one commit for weights, tokenizer and chat template', () => {
  test('unpinned: the conversion resolves the head once and records it; later steps use it although the head moved', () => {
    const w = world({ [REPO]: A });
    const conv = w.run([...resolveRevisionLines(source()), start('to-maxtext'), 'echo "converting at $HF_REVISION"']);
    expect(conv.rc).toBe(0);
    expect(conv.out).toContain(`converting at ${A}`);
    expect(w.record(rec('to-maxtext').path)).toMatchObject({ hfRepo: REPO, hfRevisionDownloaded: A });
    // A new commit lands on the Hub while the run trains.
    w.setHeads({ [REPO]: B });
    const train = w.run([...tokenizerAtRevisionLines(source()), start('train')]);
    expect(train.rc).toBe(0);
    expect(w.log()).toContainEqual(['snapshot_download', REPO, A, TOKENIZER_DIR, ['*.json', '*.jinja', '*.model', '*.tiktoken', '*.txt']]);
    expect(w.record(rec('train').path)).toMatchObject({ tokenizer: REPO, hfRevisionDownloaded: A, tokenizerRevisionDownloaded: A });
    const toHf = w.run([...tokenizerAtRevisionLines(source()), start('to-hf')]);
    expect(toHf.rc).toBe(0);
    expect(w.record(rec('to-hf').path)).toMatchObject({ tokenizer: REPO, hfRevisionDownloaded: A, tokenizerRevisionDownloaded: A });
    // The head was asked for once, by the conversion; never by a later step.
    expect(w.log().filter((l) => l[0] === 'model_info')).toEqual([['model_info', REPO, null]]);
  });

  test('pinned: the commit is checked to exist before any download, and later steps read it from the script', () => {
    const w = world({ [REPO]: B, known: [A] });
    expect(w.run([...resolveRevisionLines(source({ pinned: A })), start('to-maxtext')]).rc).toBe(0);
    expect(w.log()).toEqual([['model_info', REPO, A]]);
    const train = w.run([...tokenizerAtRevisionLines(source({ pinned: A })), 'echo "$HF_REVISION $TOKENIZER_REVISION"']);
    expect(train.out).toContain(`${A} ${A}`);
    const bad = world({ [REPO]: B, known: [] }).run([...resolveRevisionLines(source({ pinned: A })), 'echo downloading']);
    expect(bad.rc).not.toBe(0);
    expect(bad.out).not.toContain('downloading');
    expect(bad.err).toContain(`cannot resolve ${REPO} at ${A}: 404 Revision Not Found`);
  }, 60_000);

  test('unpinned without a recorded commit: training stops before downloading, saying how to fix it', () => {
    const w = world({ [REPO]: A });
    const train = w.run([...tokenizerAtRevisionLines(source()), 'echo training']);
    expect(train.rc).not.toBe(0);
    expect(train.out).not.toContain('training');
    expect(train.err).toContain(`cannot read the conversion record ${rec('to-maxtext').path}`);
  });

  test('a tokenizer of another repository: its head resolved once in the step and recorded', () => {
    const w = world({ [REPO]: A, 'acme/tok': T });
    w.run([...resolveRevisionLines(source()), start('to-maxtext')]);
    const r = w.run([...tokenizerAtRevisionLines(source({ tokenizer: 'acme/tok' })), start('train', { ...rec('train').record, tokenizer: 'acme/tok' })]);
    expect(r.rc).toBe(0);
    expect(w.log()).toContainEqual(['snapshot_download', 'acme/tok', T, TOKENIZER_DIR, expect.any(Array)]);
    expect(w.record(rec('train').path)).toMatchObject({ tokenizer: 'acme/tok', hfRevisionDownloaded: A, tokenizerRevisionDownloaded: T });
  });
});

describe('the steps run those lines in order, and pass the commit and the tokenizer directory to MaxText', () => {
  const script = (step: string) => {
    const m = pipeline.steps.find((s) => s.name === step)!.manifest as any;
    const jobs = m.spec.replicatedJobs;
    const containers = jobs.flatMap((j: any) => j.template.spec.template.spec.containers);
    return containers.map((c: any) => (c.command ?? [])[2] ?? '').find((s: string) => s.includes('python3 -m')) as string;
  };
  const order = (text: string, parts: string[]) => parts.map((p) => text.indexOf(p)).every((v, i, a) => v >= 0 && (i === 0 || v > a[i - 1]));

  test('conversion: resolve, listing patch, record, to_maxtext --revision', () => {
    const s = script('to-maxtext');
    expect(order(s, ['HF_REVISION="$(python3', 'revision listing patch', 'hfRevisionDownloaded', 'python3 -m maxtext.checkpoint_conversion.to_maxtext'])).toBe(true);
    expect(s).toContain('--revision="$HF_REVISION"');
  });

  test('training and export: the tokenizer at the commit, passed as a directory', () => {
    expect(order(script('train'), ['snapshot_download', 'tokenizerRevisionDownloaded', 'tokenizer_path=/tmp/tokenizer-at-revision'])).toBe(true);
    expect(order(script('to-hf'), ['snapshot_download', 'tokenizerRevisionDownloaded', '--hf_model_path=/tmp/tokenizer-at-revision'])).toBe(true);
  });

  test('RL without tokenizer_path (rl-llama3): the tokenizer RLConfig would pick, HF_IDS[model_name], at the commit', () => {
    const llama = buildPipeline(RECIPES['rl-llama3'], testPlatform(), { runId: 'r1' });
    expect(llama.recipe.train.args['tokenizer_path']).toBeUndefined();
    const train = (llama.steps.find((s) => s.name === 'train')!.manifest as any).spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2] as string;
    expect(order(train, ['tokenizer and chat template: meta-llama/Llama-3.1-8B-Instruct at $TOKENIZER_REVISION', 'tokenizer_path=/tmp/tokenizer-at-revision'])).toBe(true);
    expect(llama.runRecords.train.record.tokenizer).toBe('meta-llama/Llama-3.1-8B-Instruct');
  });

  test('eval: the base model served at the commit, both models scored with the tokenizer at it', () => {
    const m = pipeline.steps.find((s) => s.name === 'eval')!.manifest as any;
    const s = m.spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2] as string;
    expect(order(s, ['snapshot_download', `score base ${REPO} "--revision=$HF_REVISION"`, "score trained "])).toBe(true);
    expect(s).toContain('--tokenizer /tmp/tokenizer-at-revision');
    expect(s).toContain('tokenizer=/tmp/tokenizer-at-revision,');
  });
});

describe("to_maxtext's file listing at the revision (maxtext-v0.2.4 to_maxtext.py line 142)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-listing-'));
  fs.mkdirSync(path.join(dir, 'checkpoint_conversion'));
  const file = path.join(dir, 'checkpoint_conversion', 'to_maxtext.py');
  const run = () => spawnSync('bash', ['-c', listingRevisionPatch(dir)], { encoding: 'utf8' });

  test('patched once, idempotent on a restart; the pod fails when the line is gone', () => {
    fs.writeFileSync(file, '    else:\n      files = list_repo_files(self.model_id, token=self.token)\n');
    expect(run().status).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('    else:\n      files = list_repo_files(self.model_id, token=self.token, revision=self.revision)\n');
    expect(run().status).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('revision=self.revision)\n');
    fs.writeFileSync(file, 'files = something_else()\n');
    const failed = run();
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('revision listing patch: list_repo_files(self.model_id, token=self.token) not found in');
  });
});
