/**
 * State is never lost: the local state file lands in the repository root for any output folder, and a state
 * bucket is checked at plan time to keep object versions.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { findRepoRoot } from '../../config/load';
import { enableVersioningCommand } from '../../constructs/state-bucket-versioning';
import { platformFromConfig } from '../../config/platform';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { buildApp } from '../../stacks/app';
import { PipelineStack } from '../../stacks/pipeline-stack';
import { localStatePath, stackWorkingDirectory } from '../../stacks/backend';
import { exampleConfig, exampleDeployment, WITH_SINGLE_HOST } from '../util';

const repoRoot = findRepoRoot();
const STACKS = ['infra', 'rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'];

/** The backend block of every stack synthesized into `outdir`. */
function backends(outdir: string, env: Record<string, string> = {}): Record<string, any> {
  const app = buildApp(exampleDeployment({ ...WITH_SINGLE_HOST, ...env }), { outdir });
  return Object.fromEntries(STACKS.map((s) => [s, JSON.parse(Testing.synth(app.node.findChild(s) as TerraformStack))]));
}

/** Where Terraform, run in the stack's working directory as cdktf does, puts the local state file. */
function stateFileOf(outdir: string, stack: string, tf: any): string {
  return path.resolve(stackWorkingDirectory(outdir, stack), tf.terraform.backend.local.path);
}

describe('local state lands in the repository root for any output folder', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-outdir-'));
  const outdirs: Array<[string, string]> = [
    ['cdktf.out (the default)', path.join(repoRoot, 'cdktf.out')],
    ['a nested folder in the repository', path.join(repoRoot, 'cdktf.out', 'nested', 'deeper')],
    ['a folder outside the repository', path.join(tmp, 'synth')],
  ];
  for (const [what, outdir] of outdirs) {
    test(what, () => {
      fs.mkdirSync(outdir, { recursive: true });
      for (const [stack, tf] of Object.entries(backends(outdir))) {
        const p: string = tf.terraform.backend.local.path;
        expect(path.isAbsolute(p)).toBe(false);
        expect(p).not.toContain('\\');
        expect(stateFileOf(outdir, stack, tf)).toBe(path.join(repoRoot, `terraform.my-tpu-project.tpu-post-train.${stack}.tfstate`));
      }
    });
  }

  test('the paths themselves: 3 levels up from cdktf.out/stacks/<stack>, 5 from cdktf.out/nested/deeper', () => {
    const dev = { project: 'p', clusterName: 'dev' };
    expect(localStatePath('infra', path.join(repoRoot, 'cdktf.out'), repoRoot, dev)).toBe('../../../terraform.p.dev.infra.tfstate');
    expect(localStatePath('rl-qwen3', path.join(repoRoot, 'cdktf.out/nested/deeper'), repoRoot, dev)).toBe('../../../../../terraform.p.dev.rl-qwen3.tfstate');
    // A relative outdir resolves against the working directory, as cdktf's App does.
    expect(localStatePath('infra', 'out', process.cwd(), dev)).toBe('../../../terraform.p.dev.infra.tfstate');
    // Without a scope: the file name of the versions before the key carried project and cluster (what a migration moves from).
    expect(localStatePath('infra', path.join(repoRoot, 'cdktf.out'), repoRoot)).toBe('../../../terraform.infra.tfstate');
  });

  test('without a state directory, a stack keeps its state next to the output folder', () => {
    const app = Testing.app();
    const platform = platformFromConfig(exampleConfig(WITH_SINGLE_HOST));
    const p = new PipelineStack(app, 'rl-llama3', { platform, pipeline: buildPipeline(RECIPES['rl-llama3'], platform, { runId: 'r1' }) });
    const tf = JSON.parse(Testing.synth(p));
    expect(path.resolve(stackWorkingDirectory(app.outdir, 'rl-llama3'), tf.terraform.backend.local.path)).toBe(
      path.join(path.dirname(path.resolve(app.outdir)), 'terraform.my-tpu-project.tpu-post-train.rl-llama3.tfstate'),
    );
  });
});

describe('a state bucket must keep object versions', () => {
  const all = backends(path.join(repoRoot, 'cdktf.out'), { STATE_BUCKET: 'my-tf-state' });

  test.each(STACKS)('%s: GCS backend and a data source whose postcondition requires versioning', (stack) => {
    const tf = all[stack];
    expect(tf.terraform.backend).toEqual({ gcs: { bucket: 'my-tf-state', prefix: `tpu-post-training/my-tpu-project/tpu-post-train/${stack}` } });
    const buckets = Object.values<any>(tf.data.google_storage_bucket);
    expect(buckets).toHaveLength(1);
    expect(buckets[0].name).toBe('my-tf-state');
    const [check] = buckets[0].lifecycle.postcondition;
    expect(check.condition).toBe('${try(self.versioning[0].enabled, false)}');
    expect(check.error_message).toContain('gs://my-tf-state (STATE_BUCKET) does not keep object versions');
    expect(check.error_message).toContain('gcloud storage buckets update gs://my-tf-state --versioning');
  });

  test('the message carries the command that turns versioning on', () => {
    expect(enableVersioningCommand('b')).toBe('gcloud storage buckets update gs://b --versioning');
  });

  test('no check (and no google_storage_bucket data source) with local state', () => {
    for (const tf of Object.values(backends(path.join(repoRoot, 'cdktf.out')))) {
      expect(tf.data?.google_storage_bucket).toBeUndefined();
    }
  });
});
