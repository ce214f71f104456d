/**
 * A serve stack by name: `npm run deploy -- serve-<pipeline>` deploys it without `serve.enabled` in the config
 * (scripts/cdktf.mjs sets SERVE from the stack names; config/load.ts SERVE_ENV turns `serve.enabled` on). Defaults,
 * overrides and errors through loadDeployment; the wrapper end to end, with a stand-in `cdktf` on PATH that runs the
 * app the way cdktf does (cdktf.json's app, with the wrapper's environment) and records what it was given.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { modelPathOf } from '../../jobs/serve';
import { composeApp } from '../../stacks/app';
import { ensureDist } from '../dist';
import { runWrapper } from '../stand-ins';
import { configFile, configProblems } from '../util';

const ROOT = path.join(__dirname, '..', '..');
const served = (env: Record<string, string>, file?: string) =>
  loadDeployment({ env, ...(file ? { file } : {}) })
    .pipelines.filter((p) => p.serve)
    .map((p) => p.serve!.stack);
const problems = configProblems;

describe('SERVE (what npm run deploy -- serve-<pipeline> sets)', () => {
  test('default: no serve stack unless asked', () => expect(served({})).toEqual([]));
  test('SERVE=rl-qwen3 adds serve-rl-qwen3 alone; SERVE=rl-qwen3,rl-gemma4 both', () => {
    expect(served({ SERVE: 'rl-qwen3' })).toEqual(['serve-rl-qwen3']);
    expect(served({ SERVE: ' rl-gemma4 , rl-qwen3,rl-qwen3,' })).toEqual(['serve-rl-qwen3', 'serve-rl-gemma4']);
  });
  test("the file's serve settings are kept: SERVE only turns it on", () => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'].serve = { enabled: false, capacity: 'flex-start', internalLoadBalancer: true }));
    const p = loadDeployment({ env: { SERVE: 'rl-qwen3' }, file }).pipelines.find((x) => x.name === 'rl-qwen3')!;
    expect(p.serve).toMatchObject({ stack: 'serve-rl-qwen3', capacity: { type: 'flex-start' }, internalLoadBalancer: true });
  });
  test('a pipeline the file defines (not a preset) can be served by name', () => {
    const file = configFile((c) => (c.pipelines['my-rl'] = { extends: 'rl-qwen3', runId: 'mine' }));
    expect(served({ SERVE: 'my-rl' }, file)).toEqual(['serve-my-rl']);
  });
  test('a pipeline defined in config is synthesized with its serve stack: its own export, objects valid for Kubernetes', () => {
    const file = configFile((c) => (c.pipelines['my-rl'] = { extends: 'rl-qwen3', runId: 'mine' }));
    const d = loadDeployment({ env: { SERVE: 'my-rl' }, file });
    const outdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-serve-mine-')), 'out');
    composeApp(d, { outdir }).app.synth();
    const tf = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'serve-my-rl', 'cdk.tf.json'), 'utf8'));
    const manifests = Object.values<any>(tf.resource.kubernetes_manifest).map((m) => m.manifest);
    const deployment = manifests.find((m) => m.kind === 'Deployment');
    const mine = d.pipelines.find((p) => p.name === 'my-rl')!;
    expect(modelPathOf(deployment)).toBe(mine.paths.hfExportDir);
    expect(mine.paths.hfExportDir).not.toBe(d.pipelines.find((p) => p.name === 'rl-qwen3')!.paths.hfExportDir);
    expect(tf.output.model_path.value).toBe(mine.paths.hfExportDir);
    const objects = manifests.map((m) => ({ type: `V1${m.kind}`, object: m }));
    expect(objects.map((o) => o.type).sort()).toEqual(['V1Deployment', 'V1Job', 'V1Service']);
    const list = path.join(path.dirname(outdir), 'objects.json');
    fs.writeFileSync(list, JSON.stringify(objects));
    expect(JSON.parse(execFileSync(process.execPath, [path.join(ROOT, '__tests__', 'models', 'k8s-types.mjs'), list], { cwd: ROOT, encoding: 'utf8' }))).toEqual([]);
  });
  test('a pipeline may not be named serve-<x>: that is the serve stack of pipeline x (issue 32; it was a second stack of one name)', () => {
    const file = configFile((c) => (c.pipelines['serve-x'] = { extends: 'rl-qwen3', runId: 'sx' }));
    expect(problems({}, file).join('\n')).toContain(
      "pipelines.serve-x: 'serve-x' starts with 'serve-', the prefix of the serve stack of a pipeline (serve-<pipeline>); a pipeline is a stack named after it: rename the entry (e.g. 'x-serve')",
    );
  });
});

describe('errors: exit 1 at synth, naming SERVE', () => {
  test('no such pipeline: the name and the pipelines there are', () => {
    expect(problems({ SERVE: 'rl-qwen4' })).toEqual(["SERVE (env): no pipeline named 'rl-qwen4' to serve (stack serve-rl-qwen4); pipelines: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3"]);
  });
  test('a pipeline turned off: which setting turns it off', () => {
    expect(problems({ SERVE: 'rl-qwen3', PIPELINES: 'rl-gemma4' })).toEqual([
      'SERVE (env): serve-rl-qwen3 serves the export of rl-qwen3, which this config does not build: PIPELINES (env) turns it off',
    ]);
  });
  test('a pipeline left out for its slice', () => {
    expect(problems({ SERVE: 'rl-llama3' })).toEqual([
      'SERVE (env): serve-rl-llama3 serves the export of rl-llama3, which this config does not build: it is left out: infra has no slice of its shape (the note above says which variables add it)',
    ]);
  });
  test("a served model that fits no host: the serve key's own refusal", () => {
    const file = configFile((c) => (c.pipelines['sft-gemma4'].serve = { sequences: 64 }));
    expect(problems({ SERVE: 'sft-gemma4' }, file).join('\n')).toContain('pipelines.sft-gemma4.serve: gemma4-31b does not fit one v6e host');
  });
});

/** The example config's own output folder (stacks/backend.ts environmentOutdir), which the wrapper passes to cdktf. */
const EXAMPLE_OUTDIR = 'cdktf.out.my-tpu-project.tpu-post-train';

describe('scripts/cdktf.mjs: npm run deploy -- serve-<pipeline>', () => {
  beforeAll(ensureDist);
  /** scripts/cdktf.mjs with the stand-in cdktf (__tests__/stand-ins.ts): what cdktf got, SERVE and CHECKPOINT_DISABLE. */
  function run(args: string[], env: Record<string, string> = {}) {
    const r = runWrapper(args, env, ['SERVE', 'CHECKPOINT_DISABLE']);
    const called = r.called && { args: r.called.args, serve: r.called.env.SERVE, checkpoint: r.called.env.CHECKPOINT_DISABLE };
    return { status: r.status, stderr: r.stderr, called, stacks: r.stacks };
  }

  test('a serve stack named on the command line is synthesized for cdktf, which gets the same arguments', () => {
    const r = run(['deploy', 'serve-rl-qwen3', '--auto-approve']);
    expect(r.status).toBe(0);
    expect(r.called).toEqual({ args: ['deploy', 'serve-rl-qwen3', '--auto-approve', '--output', EXAMPLE_OUTDIR], serve: 'rl-qwen3', checkpoint: '1' });
    expect(r.stacks).toEqual(['infra', 'rl-gemma4', 'rl-qwen3', 'serve-rl-qwen3', 'sft-gemma4']);
  });
  test('without a serve stack named: no SERVE, no serve stack; SERVE already set is kept and joined', () => {
    expect(run(['synth']).called).toEqual({ args: ['synth', '--output', EXAMPLE_OUTDIR], serve: null, checkpoint: '1' });
    expect(run(['deploy', 'serve-rl-qwen3'], { SERVE: 'rl-gemma4' }).called?.serve).toBe('rl-gemma4,rl-qwen3');
    // A destroy turns no serve stack on: it synthesizes the named stack for its teardown (TEARDOWN,
    // __tests__/environments/teardown.test.ts), which needs neither the pipeline nor its export.
    expect(run(['destroy', 'serve-rl-qwen3'], { SERVE: 'rl-gemma4' }).called?.serve).toBe('rl-gemma4');
  });
  test("a bad name: the check fails once, naming SERVE, and cdktf never starts", () => {
    const r = run(['deploy', 'serve-rl-qwen4']);
    expect(r.status).toBe(1);
    expect(r.called).toBeUndefined();
    expect(r.stderr).toContain("SERVE (env): no pipeline named 'rl-qwen4' to serve (stack serve-rl-qwen4)");
  });
  test("a bare 'serve-' or 'rehearse-' names no stack: refused (exit 2), cdktf never starts", () => {
    for (const bare of ['serve-', 'rehearse-']) {
      const r = run(['deploy', bare]);
      expect(r.status).toBe(2);
      expect(r.called).toBeUndefined();
      expect(r.stderr).toBe(`'${bare}' names no stack: add the pipeline (${bare}<pipeline>, e.g. ${bare}rl-qwen3)\n`);
    }
  });
  test("cdktf's exit status is the command's", () => expect(run(['diff'], { FAKE_CDKTF_EXIT: '3' }).status).toBe(3));
  test('an unknown command: usage, exit 2, nothing run', () => {
    const r = run(['apply']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("usage: node scripts/cdktf.mjs synth|diff|deploy|destroy|empty-bucket [stacks] [cdktf options], got 'apply'\n");
    expect(r.called).toBeUndefined();
  });
});
