/**
 * constructs/google-provider.ts stands in for provider-google's generated GoogleProvider (585 KB, ~190 unset settings
 * in every stack's provider block): the same provider block and required_providers entry, in JSON and in HCL. The
 * generated class is loaded here, in the test only, as the reference.
 */
import { GoogleProvider as GeneratedGoogleProvider } from '@cdktf/provider-google/lib/provider';
import { App, TerraformStack, Testing } from 'cdktf';
import { GoogleProvider } from '../../constructs/google-provider';

const PROPS = { project: 'my-tpu-project', region: 'us-east5' };

function stackWith(make: (stack: TerraformStack) => void, hcl = false): TerraformStack {
  const stack = new TerraformStack(Testing.app(hcl ? { context: { hcl: true } } : {}) as App, 'infra');
  make(stack);
  return stack;
}
const generated = (stack: TerraformStack) => void new GeneratedGoogleProvider(stack, 'google', PROPS);
const lean = (stack: TerraformStack) => void new GoogleProvider(stack, 'google', PROPS);

test("the JSON is the generated class's: the provider block and the required_providers entry", () => {
  const json = Testing.synth(stackWith(lean));
  expect(json).toEqual(Testing.synth(stackWith(generated)));
  const tf = JSON.parse(json);
  expect(tf.provider.google).toEqual([PROPS]);
  expect(tf.terraform.required_providers.google).toEqual({ source: 'google', version: '6.50.0' });
});

test("the HCL (cdktf synth --hcl) is the generated class's too", () => {
  const hcl = Testing.synthHcl(stackWith(lean, true));
  expect(hcl).toEqual(Testing.synthHcl(stackWith(generated, true)));
  expect(hcl).toContain('provider "google"');
  expect(hcl).toContain('region = "us-east5"');
});
