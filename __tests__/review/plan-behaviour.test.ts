/**
 * reviewPlan's reading of `terraform show -json` (hashicorp/terraform v1.11.4 internal/command/jsonplan/plan.go and
 * resource.go), asserted on small hand-made plans of that shape: which entries are changes, how each action's
 * before/after is kept, what is counted, what is masked as sensitive, and what is refused. The findings built on top
 * are tested in plan.test.ts and rules.test.ts.
 */
import { baseAddress, KNOWN_AFTER_APPLY, planAttributeChanges, reviewPlan, withUnknowns } from '../../review/plan';
import { Redactor, REDACTED } from '../../util/redact';

type Json = Record<string, any>;

/** One resource_changes entry of a terraform_data resource (a built-in type with no describer). */
function entry(name: string, actions: string[], before: Json | null, after: Json | null, extra: Json = {}, change: Json = {}): Json {
  return {
    address: `terraform_data.${name}`,
    mode: 'managed',
    type: 'terraform_data',
    name,
    provider_name: 'terraform.io/builtin/terraform',
    ...extra,
    change: { actions, before, after, after_unknown: {}, before_sensitive: {}, after_sensitive: {}, ...change },
  };
}
const planOf = (changes: Json[], top: Json = {}): Json => ({ format_version: '1.2', terraform_version: '1.11.4', resource_changes: changes, ...top });
const review = (changes: Json[], top: Json = {}, options = {}) => reviewPlan('infra', 'p.json', planOf(changes, top), options);

describe('which entries are changes', () => {
  test('no-op and read are counted but are not changes; data sources are neither', () => {
    // Terraform lists every resource of the configuration with ["no-op"] when it does not change, and data sources
    // with mode "data" and ["read"]: reporting them would make every review list the whole stack.
    const plan = review([
      entry('same', ['no-op'], { input: 1 }, { input: 1 }),
      entry('refresh', ['read'], { input: 1 }, { input: 1 }),
      { ...entry('cfg', ['read'], null, { input: 1 }), address: 'data.terraform_data.cfg', mode: 'data' },
      entry('new', ['create'], null, { input: 2 }),
    ]);
    expect(plan.changes.map((c) => c.address)).toEqual(['terraform_data.new']);
    expect(plan.counts).toEqual({ create: 1, update: 0, replace: 0, delete: 0, read: 1, 'no-op': 1, forget: 0, deposed: 0, import: 0, move: 0 });
  });

  test('a plan without resource_changes (Terraform omits it when nothing changes) has no changes and is not errored', () => {
    // A real plan without changes still has planned_values (terraform v1.11.4 jsonplan); only resource_changes is omitted.
    const plan = reviewPlan('rl-qwen3', 'none.json', { format_version: '1.2', planned_values: {} });
    expect(plan).toMatchObject({ stack: 'rl-qwen3', file: 'none.json', errored: false, changes: [], foreign: [], workingDir: 'cdktf.out/stacks/rl-qwen3' });
    expect(plan.terraformVersion).toBeUndefined();
    expect(plan.likelyStack).toBeUndefined();
    expect(reviewPlan('infra', 'e.json', { format_version: '1.2', planned_values: {}, errored: true }).errored).toBe(true);
    expect(reviewPlan('infra', 'w.json', { format_version: '1.2', planned_values: {} }, { workingDir: 'elsewhere' }).workingDir).toBe('elsewhere');
  });
});

describe('before and after per action', () => {
  test('create: no before (Terraform writes null), after with unknowns marked', () => {
    const [c] = review([entry('new', ['create'], null, { input: 2 }, {}, { after_unknown: { id: true } })]).changes;
    expect(c).toMatchObject({ action: 'create', before: undefined, after: { input: 2, id: KNOWN_AFTER_APPLY }, attributes: [], replacePaths: [] });
    expect(c!.replaceOrder).toBeUndefined();
    expect(c!.summary).toEqual(['terraform_data.new added']);
  });

  test('delete: before kept, no after', () => {
    const [c] = review([entry('old', ['delete'], { input: 1 }, null, { action_reason: 'delete_because_no_resource_config' })]).changes;
    expect(c).toMatchObject({ action: 'delete', before: { input: 1 }, after: undefined, reason: 'delete_because_no_resource_config', attributes: [] });
    expect(c!.summary).toEqual(['terraform_data.old removed']);
  });

  test('update: the attribute diff, a value known only after apply shown so', () => {
    const [c] = review([
      entry('u', ['update'], { input: { a: 1, b: 'x' }, output: { a: 1 } }, { input: { a: 2, b: 'x' } }, {}, { after_unknown: { output: true } }),
    ]).changes;
    expect(c!.attributes).toEqual([
      { path: 'input.a', before: '1', after: '2' },
      { path: 'output', before: '{"a":1}', after: JSON.stringify(KNOWN_AFTER_APPLY) },
    ]);
  });

  test('replace: both orders, the paths that force it, and the attribute diff of the replaced resource', () => {
    const replaced = (actions: string[]) =>
      review([
        entry('pool', actions, { input: { topology: '4x8', size: 8 } }, { input: { topology: '4x4', size: 8 } }, { action_reason: 'replace_because_cannot_update' }, {
          replace_paths: [['input', 'topology'], ['node', 0, 'x']],
        }),
      ]);
    const first = replaced(['delete', 'create']);
    expect(first.counts).toMatchObject({ replace: 1, create: 0, delete: 0 });
    const [c] = first.changes;
    expect(c).toMatchObject({ action: 'replace', replaceOrder: 'delete-first', reason: 'replace_because_cannot_update' });
    // what forced the replacement, as Terraform's path lists printed like attribute paths
    expect(c!.replacePaths).toEqual(['input.topology', 'node[0].x']);
    // a reviewer must see what changed in the resource being replaced, not only that it is
    expect(c!.attributes).toEqual([{ path: 'input.topology', before: '"4x8"', after: '"4x4"' }]);
    expect(c!.before).toEqual({ input: { topology: '4x8', size: 8 } });
    expect(c!.after).toEqual({ input: { topology: '4x4', size: 8 } });
    expect(replaced(['create', 'delete']).changes[0]!.replaceOrder).toBe('create-first');
  });

  test('forget removes the resource from state only: no after; forget+create also counts as a create and keeps after', () => {
    // Terraform 1.11 `removed { lifecycle { destroy = false } }` plans ["forget"]; with an import of the same object
    // under a new address, or a replacement, ["create","forget"]: the new object is created.
    const forget = review([entry('gone', ['forget'], { input: 1 }, null)]);
    expect(forget.counts).toMatchObject({ forget: 1, create: 0, delete: 0 });
    expect(forget.changes[0]).toMatchObject({ action: 'forget', before: { input: 1 }, after: undefined });

    const both = review([entry('again', ['create', 'forget'], { input: 1 }, { input: 2 }, {}, { after_unknown: { id: true } })]);
    expect(both.counts).toMatchObject({ forget: 1, create: 1, delete: 0, replace: 0 });
    expect(both.changes[0]).toMatchObject({ action: 'forget', before: { input: 1 }, after: { input: 2, id: KNOWN_AFTER_APPLY } });
    expect(both.changes[0]!.attributes).toEqual([]);
  });

  test('a deposed object is counted as deposed, not as the action on the current object', () => {
    const plan = review([
      entry('pool', ['delete', 'create'], { input: 1 }, { input: 2 }),
      entry('pool', ['delete'], { input: 0 }, null, { deposed: 'ab12cd34' }),
    ]);
    expect(plan.counts).toMatchObject({ replace: 1, delete: 0, deposed: 1 });
    expect(plan.changes[1]).toMatchObject({ deposed: 'ab12cd34', action: 'delete' });
    expect(plan.changes[1]!.summary).toEqual([
      'deposed object ab12cd34 of terraform_data.pool (left by a create-before-destroy replacement that did not finish) is deleted',
    ]);
  });
});

describe('sensitive values: masked before anything reads them, their text registered for redaction everywhere', () => {
  const SECRET = 'hunter2-hunter2';
  const OLD = 'old-secret-value';

  test('resource values Terraform marks sensitive, before and after, even of a resource that does not change', () => {
    const redactor = new Redactor();
    const plan = review(
      [
        entry('u', ['update'], { input: { token: OLD, user: 'u1' } }, { input: { token: SECRET, user: 'u2' } }, {}, {
          before_sensitive: { input: { token: true } },
          after_sensitive: { input: { token: true } },
        }),
        entry('same', ['no-op'], { pw: 'unchanged-secret' }, { pw: 'unchanged-secret' }, {}, { before_sensitive: { pw: true }, after_sensitive: { pw: true } }),
      ],
      {},
      { redactor },
    );
    const [c] = plan.changes;
    expect(c!.before).toEqual({ input: { token: REDACTED, user: 'u1' } });
    expect(c!.after).toEqual({ input: { token: REDACTED, user: 'u2' } });
    // both values masked: no diff line shows either secret
    expect(JSON.stringify(c!.attributes)).not.toMatch(/hunter2|old-secret|unchanged-secret/);
    // and wherever else the same text shows up, it is redacted
    expect(redactor.text(`a ${SECRET} b ${OLD} c unchanged-secret`)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
    expect(redactor.text('u1 u2')).toBe('u1 u2');
  });

  test('sensitive variables (by the configuration), sensitive outputs, and state values outside resource_changes', () => {
    const redactor = new Redactor();
    review(
      [],
      {
        variables: { token: { value: 'variable-secret' }, region: { value: 'us-east5-plain' } },
        configuration: { root_module: { variables: { token: { sensitive: true }, region: {} } } },
        output_changes: {
          out: { actions: ['update'], before: 'output-before-secret', after: 'output-after-secret', before_sensitive: true, after_sensitive: true },
          shown: { actions: ['update'], before: 'shown-before', after: 'shown-after', before_sensitive: false, after_sensitive: false },
        },
        planned_values: {
          outputs: { o: { sensitive: true, value: 'planned-output-secret' }, p: { sensitive: false, value: 'planned-plain' } },
          root_module: {
            resources: [{ values: { k: 'planned-resource-secret', v: 'planned-visible' }, sensitive_values: { k: true } }],
            child_modules: [{ resources: [{ values: { k: 'child-module-secret' }, sensitive_values: { k: true } }] }],
          },
        },
        prior_state: { values: { root_module: { resources: [{ values: { k: 'prior-state-secret' }, sensitive_values: { k: true } }] } } },
      },
      { redactor },
    );
    const secrets = ['variable-secret', 'output-before-secret', 'output-after-secret', 'planned-output-secret', 'planned-resource-secret', 'child-module-secret', 'prior-state-secret'];
    for (const s of secrets) expect(redactor.text(s)).toBe(REDACTED);
    for (const plain of ['us-east5-plain', 'shown-before', 'shown-after', 'planned-plain', 'planned-visible']) expect(redactor.text(plain)).toBe(plain);
  });
});

describe('what is refused (never read as "no changes")', () => {
  test.each([
    [[], 'a list'],
    [null, 'null'],
    [7, 'a number'],
    ['plan', 'a string'],
    [{ resource_changes: [] }, 'an object without format_version'],
  ])('%p is not a plan', (input, got) => {
    expect(() => reviewPlan('infra', 'x.json', input)).toThrow(
      new Error(`x.json: not a Terraform JSON plan (got ${got}, no format_version); produce it with \`terraform show -json <planfile>\``),
    );
  });

  test('resource_changes that is not a list', () => {
    expect(() => reviewPlan('infra', 'x.json', { format_version: '1', resource_changes: null })).toThrow(new Error('x.json: resource_changes must be a list, got null'));
    expect(() => reviewPlan('infra', 'x.json', { format_version: '1', resource_changes: 'x' })).toThrow(new Error('x.json: resource_changes must be a list, got string'));
  });

  test('a top level of the wrong shape names the field', () => {
    expect(() => reviewPlan('infra', 'x.json', { format_version: '1.2', planned_values: {}, errored: 'yes' })).toThrow(
      /^x\.json: not a plan this review can read: errored: Expected boolean, received string$/,
    );
  });

  test('an entry of the wrong shape names its index, its address and the fields, at most four', () => {
    const bad = { ...entry('a', ['create'], null, {}), mode: 'other' };
    expect(() => review([entry('ok', ['create'], null, {}), bad])).toThrow(
      /^p\.json: resource_changes\[1\] \(terraform_data\.a\) is not a change Terraform writes: mode: Invalid enum value.*; the review cannot tell what this plan does \(regenerate it with `terraform show -json <planfile>`\)$/,
    );
    const many = { address: 7, mode: 'x', type: '', change: { actions: ['explode'] } };
    const message = (() => {
      try {
        review([many]);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/^p\.json: resource_changes\[0\] is not a change Terraform writes: address: Expected string, received number; mode: .*; type: .*; name: Required; 1 more; /);
    expect(() => review([{ ...entry('b', [], null, {}) }])).toThrow(/resource_changes\[0\] \(terraform_data\.b\) is not a change Terraform writes: change\.actions: Array must contain at least 1 element/);
  });
});

describe('more refusals and what is tolerated', () => {
  const messageOf = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      return (e as Error).message;
    }
    return '(no error)';
  };

  test('an entry that is not an object; exactly four issues are all listed, with no "more"', () => {
    expect(messageOf(() => review([5 as unknown as Json]))).toMatch(/^p\.json: resource_changes\[0\] is not a change Terraform writes: \(the entry\): Expected object, received number;/);
    const four = { address: 5, mode: 'x', type: '', name: 1, change: { actions: ['create'] } };
    const text = messageOf(() => review([four]));
    expect(text).toMatch(/^p\.json: resource_changes\[0\] is not a change Terraform writes: address: [^;]+; mode: [^;]+; type: [^;]+; name: [^;]+; the review cannot tell/);
    expect(text).not.toContain('more');
  });

  test('sensitivity markers of the wrong type are refused (a misread marker would print a secret)', () => {
    expect(messageOf(() => review([], { output_changes: { o: { before: 'a', after: 'b', after_sensitive: 'yes' } } }))).toMatch(
      /^p\.json: not a plan this review can read: output_changes\.o\.after_sensitive: /,
    );
  });

  test('optional parts may be missing: variables without a configuration, modules without resources or children', () => {
    const redactor = new Redactor();
    expect(() =>
      review(
        [],
        {
          variables: { token: { value: 'no-config-variable' } },
          planned_values: { outputs: {}, root_module: { child_modules: [{ address: 'module.m' }] } },
          prior_state: { values: {} },
        },
        { redactor },
      ),
    ).not.toThrow();
    expect(() => review([], { variables: { token: { value: 'v-value-1' } }, configuration: { root_module: {} } })).not.toThrow();
    expect(() => review([], { variables: { token: { value: 'v-value-1' } }, configuration: {} })).not.toThrow();
    expect(() => review([], { planned_values: { root_module: { resources: [null, 'x'] } } })).not.toThrow();
    // a variable is sensitive only when its configuration says so
    expect(redactor.text('no-config-variable')).toBe('no-config-variable');
  });
});

describe('which stack a plan belongs to', () => {
  const stacks = new Map([
    ['infra', new Set(['terraform_data.pool', 'terraform_data.net'])],
    ['rl-qwen3', new Set(['terraform_data.train', 'terraform_data.to-hf', 'terraform_data.to-mt'])],
    ['sft', new Set(['terraform_data.train'])],
  ]);

  test('addresses it does not synthesize are foreign, by base address; module addresses and deletes are not', () => {
    const plan = review(
      [
        entry('pool', ['no-op'], {}, {}, { address: 'terraform_data.pool[0]' }),
        entry('train', ['create'], null, {}),
        entry('to-hf', ['create'], null, {}),
        entry('old', ['delete'], {}, null),
        entry('m', ['create'], null, {}, { address: 'module.x.terraform_data.m' }),
      ],
      {},
      { stackAddresses: stacks },
    );
    expect(plan.foreign).toEqual(['terraform_data.train', 'terraform_data.to-hf']);
    // rl-qwen3 declares both, sft only one: the best match is named
    expect(plan.likelyStack).toBe('rl-qwen3');
  });

  test('the best matching stack is named wherever it is listed; a tie names none', () => {
    const reordered = new Map([...stacks].reverse());
    const plan = review([entry('train', ['create'], null, {}), entry('to-hf', ['create'], null, {}), entry('to-mt', ['create'], null, {})], {}, { stackAddresses: reordered });
    expect(plan.likelyStack).toBe('rl-qwen3');
    // infra matches one address, sft one: as good as each other, so no stack is named
    const tie = review([entry('pool', ['create'], null, {}), entry('train', ['create'], null, {})], {}, { stackAddresses: stacks });
    expect(tie.foreign).toEqual(['terraform_data.train']);
    expect(tie.likelyStack).toBeUndefined();
  });

  test('no other stack matches better than this one: no likely stack', () => {
    const plan = review([entry('pool', ['create'], null, {}), entry('net', ['create'], null, {}), entry('stray', ['create'], null, {})], {}, { stackAddresses: stacks });
    expect(plan.foreign).toEqual(['terraform_data.stray']);
    expect(plan.likelyStack).toBeUndefined();
  });

  test('base address strips only the last instance key', () => {
    expect(baseAddress('a.b[0]')).toBe('a.b');
    expect(baseAddress('a.b["x"]')).toBe('a.b');
    expect(baseAddress('module.m[0].a.b')).toBe('module.m[0].a.b');
  });
});

describe('unknown values', () => {
  test('withUnknowns: true marks, false and undefined leave the value, lists and objects are walked', () => {
    expect(withUnknowns('x', true)).toBe(KNOWN_AFTER_APPLY);
    expect(withUnknowns([1, 2, 3], [false, true, undefined])).toEqual([1, KNOWN_AFTER_APPLY, 3]);
    expect(withUnknowns(undefined, [true])).toEqual([KNOWN_AFTER_APPLY]);
    expect(withUnknowns({ a: 1, b: 2 }, { a: false, b: true })).toEqual({ a: 1, b: KNOWN_AFTER_APPLY });
    expect(withUnknowns('not an object', { c: true })).toEqual({ c: KNOWN_AFTER_APPLY });
    expect(withUnknowns({ a: 1 }, false)).toEqual({ a: 1 });
    // a list Terraform knows only partly, where the plan has no list yet: the known places stay empty
    expect(withUnknowns(null, [false, true])).toEqual([undefined, KNOWN_AFTER_APPLY]);
  });

  test('planAttributeChanges: a value known after apply is one change, not a removal of what was under it', () => {
    const after = withUnknowns({ keep: 1 }, { status: true, list: true });
    expect(planAttributeChanges({ keep: 1, status: { a: 1, b: [2] }, list: ['x'] }, after)).toEqual([
      { path: 'list', before: '["x"]', after: JSON.stringify(KNOWN_AFTER_APPLY) },
      { path: 'status', before: '{"a":1,"b":[2]}', after: JSON.stringify(KNOWN_AFTER_APPLY) },
    ]);
    // an attribute new in this plan and unknown: no before
    expect(planAttributeChanges({ k: 0 }, withUnknowns({ k: 0 }, { id: true }))).toEqual([{ path: 'id', before: undefined, after: JSON.stringify(KNOWN_AFTER_APPLY) }]);
    // a null before is no value
    expect(planAttributeChanges({ k: 0, id: null }, withUnknowns({ k: 0 }, { id: true }))).toEqual([{ path: 'id', before: undefined, after: JSON.stringify(KNOWN_AFTER_APPLY) }]);
    // a known scalar before stays as the diff wrote it
    expect(planAttributeChanges({ id: 'a' }, withUnknowns({}, { id: true }))).toEqual([{ path: 'id', before: '"a"', after: JSON.stringify(KNOWN_AFTER_APPLY) }]);
    // an unknown object inside a list shows the object it replaces
    expect(planAttributeChanges({ list: [{ cfg: { a: 1 } }] }, withUnknowns({ list: [{}] }, { list: [{ cfg: true }] }))).toEqual([
      { path: 'list[0].cfg', before: '{"a":1}', after: JSON.stringify(KNOWN_AFTER_APPLY) },
    ]);
    // ... and nothing when what was there is null
    expect(planAttributeChanges({ k: 0, cfg: null }, withUnknowns({ k: 0, cfg: {} }, { cfg: { x: true } }))).toEqual([
      { path: 'cfg.x', before: undefined, after: JSON.stringify(KNOWN_AFTER_APPLY) },
    ]);
    // an object replaced by a known value: its old attributes are removed, one line each
    expect(planAttributeChanges({ a: { b: 1 } }, { a: 'x' })).toEqual([
      { path: 'a', before: undefined, after: '"x"' },
      { path: 'a.b', before: '1', after: undefined },
    ]);
    // a removal next to an unknown sibling is still a removal
    expect(planAttributeChanges({ idx: 1, id: 'a' }, withUnknowns({}, { id: true }))).toEqual([
      { path: 'id', before: '"a"', after: JSON.stringify(KNOWN_AFTER_APPLY) },
      { path: 'idx', before: '1', after: undefined },
    ]);
  });
});
