/**
 * The rehearsal check (constructs/rehearsal-check.ts): every pipeline's plan lists the bucket's rehearsal proofs and its
 * `rehearsal` output says passed, stale or none; with `requireRehearsal: true` the plan also fails unless the proof of
 * exactly this combination is there. Synthesized from the config; the postcondition and the `rehearsal` output
 * evaluated by Terraform itself for a simulated read (as __tests__/constructs/preflight.test.ts does): present passes,
 * absent and stale (a rehearsal of another image) fail, each naming the command.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { ConfigError } from '../../config/load';
import { buildApp } from '../../stacks/app';
import { Testing, TerraformStack } from 'cdktf';
import { terraformTest } from '../ci-env';
import { terraformPlan } from '../stand-ins';
import { extractStack } from '../../review/model';

const ROOT = path.join(__dirname, '..', '..');
const ONE_HOST = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };
const configFile = (patch: (c: any) => void) => {
  const c = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
  patch(c);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-require-')), 'config.json');
  fs.writeFileSync(file, JSON.stringify(c));
  return file;
};
const requiring = (image?: string) => configFile((c) => (c.pipelines['rl-qwen3'] = { runId: 'r1', requireRehearsal: true, ...(image ? { image } : {}) }));
/** The rehearsal proof rl-qwen3 carries (every pipeline that can be rehearsed on this infra has one). */
const proofOf = (d: ReturnType<typeof loadDeployment>) => {
  const check = d.pipelines.find((p) => p.name === 'rl-qwen3')!.rehearsalCheck!;
  if (!('proof' in check)) throw new Error(`no proof: ${check.unavailable}`);
  return check.proof;
};
const synth = (env: Record<string, string>, file: string) => {
  const app = buildApp(loadDeployment({ env, file }), { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-require-out-')) });
  return JSON.parse(Testing.synth(app.node.findChild('rl-qwen3') as TerraformStack));
};

/**
 * Terraform's verdict on the postcondition (when there is one) and the `rehearsal` output for one simulated list of
 * objects: the output's value is printed by the plan (`Changes to Outputs`).
 */
function evaluate(stack: any, objects: Array<{ name: string }>): { ok: boolean; output: string } {
  const data = Object.values<any>(stack.data.google_storage_bucket_objects)[0];
  const post = data.lifecycle.postcondition?.[0];
  const self = (t: string) => t.replace(/\bself\.bucket_objects\b/g, 'local.read');
  const read = (t: string) => t.replace(/\bdata\.google_storage_bucket_objects\.[\w-]+\.bucket_objects\b/g, 'local.read');
  const config = {
    locals: { read: objects },
    output: { rehearsal: { value: read(stack.output.rehearsal.value) } },
    ...(post ? { resource: { terraform_data: { post: { lifecycle: { precondition: [{ condition: self(post.condition), error_message: self(post.error_message) }] } } } } } : {}),
  };
  const p = terraformPlan(config);
  return { ok: p.ok, output: p.output.replace(/\s*│\s*/g, ' ') };
}

describe('requireRehearsal: true', () => {
  const d = loadDeployment({ env: ONE_HOST, file: requiring() });
  const proof = proofOf(d);
  const stack = synth(ONE_HOST, requiring());

  test("the proof is the rehearsal's eval.json, at the path its own rehearse- stack writes", () => {
    const r = loadDeployment({ env: { ...ONE_HOST, REHEARSE: 'rl-qwen3' }, file: requiring() }).pipelines.find((p) => p.name === 'rehearse-rl-qwen3')!;
    expect(`gs://${proof.bucket}/${proof.exact}`).toBe(r.eval!.evalJson);
    expect(proof.exact).toMatch(/^qwen3-30b-a3b\/hf-trained\/rehearse-rl-[0-9a-f]{12}\/[0-9a-f]{12}\/eval\.json$/);
    expect(proof.glob).toBe('qwen3-30b-a3b/hf-trained/rehearse-rl-*/*/eval.json');
    const data = Object.values<any>(stack.data.google_storage_bucket_objects)[0];
    expect(data).toMatchObject({ bucket: d.platform.bucket, match_glob: proof.glob });
    expect(stack.output.rehearsal.value).toContain(JSON.stringify(proof.exact));
  });

  test('another image is another combination: another proof path and key', () => {
    const other = loadDeployment({ env: ONE_HOST, file: requiring('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.3') });
    const p2 = proofOf(other);
    expect(p2.exact).not.toBe(proof.exact);
    expect(p2.key).not.toBe(proof.key);
    expect(p2.glob).toBe(proof.glob);
  });

  test('the postcondition is there only with requireRehearsal', () => {
    expect(Object.values<any>(stack.data.google_storage_bucket_objects)[0].lifecycle.postcondition).toHaveLength(1);
    const plain = synth(ONE_HOST, configFile(() => undefined));
    expect(Object.values<any>(plain.data.google_storage_bucket_objects)[0].lifecycle.postcondition).toBeUndefined();
  });

  test('a pipeline that cannot be rehearsed on this infra: refused at synth, naming the key and why', () => {
    let issues: readonly string[] = [];
    try {
      loadDeployment({ env: {}, file: requiring() });
    } catch (err) {
      issues = (err as ConfigError).issues;
    }
    expect(issues.join('\n')).toMatch(/pipelines\.rl-qwen3\.requireRehearsal: rl-qwen3 requires a passing rehearsal, and it cannot be rehearsed on this infra: .*infra has no single-host pool of it/);
  });

  terraformTest('present: the plan goes on', () => {
    expect(evaluate(stack, [{ name: proof.exact }]).ok).toBe(true);
  });
  terraformTest('absent: the plan fails, naming the command', () => {
    const r = evaluate(stack, []);
    expect(r.ok).toBe(false);
    expect(r.output).toContain(`none: no passing rehearsal of rl-qwen3 for this combination (key ${proof.key})`);
    expect(r.output).toContain('npm run deploy -- rehearse-rl-qwen3');
  });
  terraformTest('stale (a rehearsal of another image): the plan fails, saying so', () => {
    const other = loadDeployment({ env: ONE_HOST, file: requiring('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.3') });
    const r = evaluate(stack, [{ name: proofOf(other).exact }]);
    expect(r.ok).toBe(false);
    expect(r.output).toContain(`stale: a rehearsal of rl-qwen3 exists for another combination`);
    expect(r.output).toContain('npm run deploy -- rehearse-rl-qwen3');
  });
});

describe('every pipeline: the plan lists the proofs and the output says passed, stale or none, and the plan goes on', () => {
  const file = configFile(() => undefined);
  const d = loadDeployment({ env: ONE_HOST, file });
  const proof = proofOf(d);
  const stack = synth(ONE_HOST, file);

  test('the same data source, behind the placeholder precondition, without the postcondition; its proof is the required one', () => {
    expect(d.pipelines.find((p) => p.name === 'rl-qwen3')!.rehearsalCheck).toEqual({ proof, required: false });
    expect(proof).toEqual(proofOf(loadDeployment({ env: ONE_HOST, file: requiring() })));
    const [name, data] = Object.entries<any>(stack.data.google_storage_bucket_objects)[0]!;
    // The same construct id as with requireRehearsal: turning it on or off moves no address.
    expect(name).toBe(Object.keys(synth(ONE_HOST, requiring()).data.google_storage_bucket_objects)[0]);
    expect(data).toMatchObject({ bucket: d.platform.bucket, match_glob: proof.glob });
    expect(data.lifecycle.precondition).toHaveLength(1);
    expect(data.lifecycle.postcondition).toBeUndefined();
  });

  terraformTest('present: passed, with the key; images compared by tag, said so', () => {
    const r = evaluate(stack, [{ name: proof.exact }]);
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`passed (key ${proof.key}): a rehearsal of rl-qwen3 passed for exactly this combination (the same image tags,`);
    expect(r.output).toContain('a tag moved since is not detected');
  });
  terraformTest('absent: none, naming the command; the plan goes on', () => {
    const r = evaluate(stack, []);
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`none: no passing rehearsal of rl-qwen3 for this combination (key ${proof.key}); run \`npm run deploy -- rehearse-rl-qwen3\``);
  });
  terraformTest('stale (a rehearsal of another image tag): stale; the plan goes on', () => {
    const other = loadDeployment({ env: ONE_HOST, file: requiring('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.3') });
    const r = evaluate(stack, [{ name: proofOf(other).exact }]);
    expect(r.ok).toBe(true);
    expect(r.output).toContain('stale: a rehearsal of rl-qwen3 exists for another combination (another image tag,');
  });

  terraformTest("the deploy's line before the apply (jobs/rehearsal.ts rehearsalVerdictOf) is Terraform's own answer for the same listing", () => {
    const { rehearsalVerdictOf } = require('../../jobs/rehearsal') as typeof import('../../jobs/rehearsal');
    const other = proofOf(loadDeployment({ env: ONE_HOST, file: requiring('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.3') })).exact;
    for (const names of [[proof.exact], [other, proof.exact], [other], []]) {
      const r = evaluate(stack, names.map((name) => ({ name })));
      expect([names, r.output]).toEqual([names, expect.stringContaining(`rehearsal = ${JSON.stringify(rehearsalVerdictOf(proof, names))}`)]);
    }
  });

  test('no single-host pool: no data source; the output says why it cannot be rehearsed', () => {
    const none = synth({}, file);
    expect(none.data?.google_storage_bucket_objects).toBeUndefined();
    expect(none.output.rehearsal.value).toMatch(/^none: rl-qwen3 cannot be rehearsed on this infra: pipelines\.rl-qwen3: rehearse-rl-qwen3 trains on one host of v6e, and infra has no single-host pool of it/);
    expect(extractStack('rl-qwen3', none).pipeline!.rehearsalCheck).toBe(none.output.rehearsal.value);
  });
});

describe('the plan review says the pipeline requires a rehearsal, naming the proof and key', () => {
  test('a line under the pipeline; none without requireRehearsal', () => {
    const d = loadDeployment({ env: ONE_HOST, file: requiring() });
    const proof = proofOf(d);
    const p = extractStack('rl-qwen3', synth(ONE_HOST, requiring())).pipeline!;
    expect(p.rehearsalRequired).toBe(
      `the plan fails unless a passing rehearsal of this combination (key ${proof.key}) left ${proof.exact} in the bucket; the \`rehearsal\` output says passed, stale or none`,
    );
    const plain = extractStack('rl-qwen3', synth(ONE_HOST, configFile(() => undefined))).pipeline!;
    expect(plain.rehearsalRequired).toBeUndefined();
    expect(plain.rehearsalCheck).toBe(
      `the plan lists the bucket's rehearsal proofs: the \`rehearsal\` output says passed when a passing rehearsal of this combination (key ${proof.key}; images compared by tag) left ${proof.exact}, else stale or none`,
    );
  });
});
