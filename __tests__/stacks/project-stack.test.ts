/**
 * stacks/project-stack.ts skips cdktf 0.21.0's preparing resolve run (`prepareStack`) and nothing else: a stack's
 * tokens are resolved by `toTerraform` alone, the JSON is cdktf's own (the golden synthesis pins its bytes), and a
 * stack without a backend still gets cdktf's local one.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Lazy, TerraformResource, TerraformStack } from 'cdktf';
import { ProjectStack } from '../../stacks/project-stack';

class TestStack extends ProjectStack {}

/** Synthesizes one stack of `Kind` with a token counting its resolutions; returns the count and the JSON. */
function synthOnce(Kind: new (scope: App, id: string) => TerraformStack): { resolutions: number; json: Record<string, any> } {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-project-stack-'));
  const app = new App({ stackTraces: false, outdir });
  const stack = new Kind(app, 'test');
  let n = 0;
  const data = new TerraformResource(stack, 'data', { terraformResourceType: 'terraform_data' });
  data.addOverride('input', Lazy.stringValue({ produce: () => `value-${++n}` }));
  app.synth();
  const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'test', 'cdk.tf.json'), 'utf8'));
  fs.rmSync(outdir, { recursive: true, force: true });
  return { resolutions: n, json };
}

test('the preparing run is skipped: one resolution fewer than cdktf, the same JSON', () => {
  const ours = synthOnce(TestStack);
  const theirs = synthOnce(TerraformStack as unknown as new (scope: App, id: string) => TerraformStack);
  expect(ours.resolutions).toBe(theirs.resolutions - 1);
  expect(JSON.stringify(ours.json).replace(/value-\d/g, 'value')).toBe(JSON.stringify(theirs.json).replace(/value-\d/g, 'value'));
  // cdktf's local backend, as prepareStack sets it.
  expect(ours.json.terraform.backend).toEqual({ local: { path: expect.stringContaining('terraform.test.tfstate') } });
});
