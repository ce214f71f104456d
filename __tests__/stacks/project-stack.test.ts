/**
 * stacks/project-stack.ts writes cdktf 0.21.0's `TerraformStack.toTerraform` JSON with each element's fragment resolved
 * once: the same object as cdktf's own method on every stack of three golden configurations and with overrides that
 * hold tokens, and a resource block walked by one resolution instead of two.
 */
import { App, Lazy, TerraformOutput, TerraformResource, TerraformStack, Tokenization } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { composeApp } from '../../stacks/app';
import { ProjectStack } from '../../stacks/project-stack';
import { GOLDEN_CONFIGS } from '../golden/configs';

const cdktfToTerraform = (stack: TerraformStack): unknown => TerraformStack.prototype.toTerraform.call(stack);

// Three golden configurations: every kind of stack (infra, pipelines, serve, the single-host slice, every optional
// feature) and the stacks' own overrides; __tests__/golden pins the bytes of all of them.
describe.each(['example', 'serve', 'features'])('the same JSON as cdktf: %s', (name) => {
  const env = GOLDEN_CONFIGS[name];
  if (env === undefined) throw new Error(`no golden configuration '${name}'`);
  const { app } = composeApp(loadDeployment({ env: { ...env } }));
  const stacks = app.node.children.filter((c): c is ProjectStack => c instanceof ProjectStack);
  test('every stack is a ProjectStack', () => {
    expect(stacks.length).toBe(app.node.children.filter(TerraformStack.isStack).length);
  });
  test.each(stacks.map((s) => s.node.id))('%s', (id) => {
    const stack = stacks.find((s) => s.node.id === id)!;
    // Serialized too: toStrictEqual tells an undefined key from a missing one, JSON the key order.
    const ours = stack.toTerraform();
    const theirs = cdktfToTerraform(stack);
    expect(ours).toStrictEqual(theirs);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  });
});

class TestStack extends ProjectStack {}

/** A stack with one resource whose attribute is a token counting its resolutions, and an output. */
function stackWithCountingToken(): { stack: TestStack; resolutions: () => number } {
  const stack = new TestStack(new App({ stackTraces: false }), 'test');
  let n = 0;
  const data = new TerraformResource(stack, 'data', { terraformResourceType: 'terraform_data' });
  data.addOverride('input', Lazy.stringValue({ produce: () => `value-${++n}` }));
  new TerraformOutput(stack, 'out', { value: data.getStringAttribute('id') });
  return { stack, resolutions: () => n };
}

/** The resolutions of one stack's JSON that walked its `resource` block, as cdktf's Tokenization.resolve saw them. */
function resourceWalks(toTerraform: (stack: TerraformStack) => unknown): number {
  const { stack } = stackWithCountingToken();
  const spy = jest.spyOn(Tokenization, 'resolve');
  try {
    toTerraform(stack);
    return spy.mock.calls.filter(([obj]) => obj !== null && typeof obj === 'object' && 'resource' in obj).length;
  } finally {
    spy.mockRestore();
  }
}

test('a resource block is walked by one resolution (cdktf walks it twice: its fragment, then the whole stack)', () => {
  expect(resourceWalks((s) => s.toTerraform())).toBe(1);
  expect(resourceWalks(cdktfToTerraform)).toBe(2);
  const { stack, resolutions } = stackWithCountingToken();
  expect(stack.toTerraform().resource.terraform_data.data.input).toBe('value-1');
  expect(resolutions()).toBe(1);
});

test('stack overrides with tokens, nested paths and deletions are resolved as cdktf resolves them', () => {
  const build = () => {
    const { stack } = stackWithCountingToken();
    const data = stack.node.findChild('data') as TerraformResource;
    stack.addOverride('removed', [{ from: 'terraform_data.old', lifecycle: { destroy: false } }]);
    stack.addOverride('locals.id', data.getStringAttribute('id'));
    stack.addOverride(`resource.terraform_data.${data.friendlyUniqueId}.triggers_replace`, Lazy.listValue({ produce: () => ['a', 'b'] }));
    stack.addOverride('terraform.required_version', undefined);
    return stack;
  };
  const ours = build().toTerraform();
  expect(ours).toStrictEqual(cdktfToTerraform(build()));
  expect(ours.locals.id).toBe('${terraform_data.data.id}');
  expect(ours.resource.terraform_data.data.triggers_replace).toEqual(['a', 'b']);
  expect(ours['//'].metadata.overrides).toEqual({ stack: ['removed', 'locals', 'resource', 'terraform'], terraform_data: ['input'] });
});
