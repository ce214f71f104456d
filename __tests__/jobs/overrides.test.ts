/**
 * `pipelines.<name>.overrides`: a config value (a string when it comes from an env var or YAML text, else a number or
 * boolean) takes the type of the recipe value it replaces, because the MaxText command line renders each type its own
 * way (jobs/maxtext.ts renderValue: True/False for booleans, python-style JSON for objects) and the checks after it
 * (checkpoint period, HBM fit, vLLM config) read numbers and objects. A value that does not fit is an error naming the
 * field, the value and what fits; it is never passed through as a string.
 */
import { resolveRun as resolveRunWith } from '../../jobs/pipeline';

/** The chips training runs on (a v6e-32 slice): part of the run identity (jobs/maxtext.ts trainKey). */
const TRAIN_CHIPS = 32;
const resolveRun = (recipe: Parameters<typeof resolveRunWith>[0], options: Parameters<typeof resolveRunWith>[1]) => resolveRunWith(recipe, options, TRAIN_CHIPS);
const resolveRecipe = (recipe: Parameters<typeof resolveRunWith>[0], options: Parameters<typeof resolveRunWith>[1]) => resolveRun(recipe, options).recipe;
import { RECIPES } from '../../jobs/recipes';

const qwen = RECIPES['rl-qwen3'];
const resolve = (overrides: Record<string, string | number | boolean>, configSource?: string) =>
  resolveRecipe(qwen, { runId: 'r1', overrides, ...(configSource ? { configSource } : {}) });
const trainArg = (overrides: Record<string, string | number | boolean>, key: string) => (resolve(overrides).train.args as Record<string, unknown>)[key];

describe('to a number (the recipe value is a number)', () => {
  test.each([
    ['16', 16],
    [' 32 ', 32],
    ['1e1', 10],
    ['-1', -1],
    [24, 24],
  ])('%p -> %p', (given, want) => {
    expect(trainArg({ train_micro_batch_size: given }, 'train_micro_batch_size')).toBe(want);
  });

  test.each(['eight', '', '   ', 'Infinity', 'NaN', true])("%p is refused: 'must be a number'", (given) => {
    expect(() => resolve({ train_micro_batch_size: given }, 'pipelines.rl-qwen3')).toThrow(
      new Error(`pipelines.rl-qwen3.overrides.train_micro_batch_size must be a number, got '${String(given)}'`),
    );
  });
});

describe('to a boolean (the recipe value is a boolean)', () => {
  test.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
    [true, true],
    [false, false],
    [1, true],
    [0, false],
  ])('%p -> %p', (given, want) => {
    expect(trainArg({ async_scheduling: given }, 'async_scheduling')).toBe(want);
  });

  test.each(['yes', 'truey', 'xtrue', 'xfalse', 'falsey', '0x', '', 2])("%p is refused: 'must be a boolean'", (given) => {
    expect(() => resolve({ async_scheduling: given }, 'pipelines.rl-qwen3')).toThrow(
      new Error(`pipelines.rl-qwen3.overrides.async_scheduling must be a boolean, got '${String(given)}'`),
    );
  });
});

describe('to a string or a JSON object', () => {
  test('a string replaces a string; a number or boolean for a string key is refused', () => {
    expect(trainArg({ remat_policy: 'minimal' }, 'remat_policy')).toBe('minimal');
    expect(() => resolve({ remat_policy: 3 })).toThrow(new Error("rl-qwen3.overrides.remat_policy must be a string, got '3'"));
    expect(() => resolve({ remat_policy: false })).toThrow(new Error("rl-qwen3.overrides.remat_policy must be a string, got 'false'"));
  });

  test('JSON text replaces an object value, parsed (MaxText gets the object, not a quoted string)', () => {
    expect(trainArg({ vllm_hf_overrides: '{"architectures": ["Qwen3MoeForCausalLM"]}' }, 'vllm_hf_overrides')).toEqual({
      architectures: ['Qwen3MoeForCausalLM'],
    });
  });

  test.each(['{not json', 'true', '7', 'null', '["a"]', 7, false])("%p for an object key is refused: 'must be a JSON object'", (given) => {
    expect(() => resolve({ vllm_hf_overrides: given }, 'pipelines.rl-qwen3')).toThrow(
      new Error(`pipelines.rl-qwen3.overrides.vllm_hf_overrides must be a JSON object, got '${String(given)}'`),
    );
  });
});

test('JSON text replaces a list value only with a list', () => {
  const withList = { ...qwen, train: { ...qwen.train, args: { ...qwen.train.args, stop_tokens: ['<eos>'] } } } as typeof qwen;
  const run = (value: string) => resolveRecipe(withList, { runId: 'r1', overrides: { stop_tokens: value } }).train.args as Record<string, unknown>;
  expect(run('["<eos>", "<end>"]')['stop_tokens']).toEqual(['<eos>', '<end>']);
  expect(() => run('{"a": 1}')).toThrow(new Error(`rl-qwen3.overrides.stop_tokens must be a JSON list, got '{"a": 1}'`));
});

describe('where an override applies', () => {
  test('to every step that has the key (conversion, training and export alike), and to no other', () => {
    const r = resolve({ scan_layers: 'false', train_micro_batch_size: '4' });
    expect(r.toMaxText.args['scan_layers']).toBe(false);
    expect(r.toHf.args['scan_layers']).toBe(false);
    expect((r.train.args as Record<string, unknown>)['scan_layers']).toBeUndefined();
    expect((r.train.args as Record<string, unknown>)['train_micro_batch_size']).toBe(4);
    expect((r.toMaxText.args as unknown as Record<string, unknown>)['train_micro_batch_size']).toBeUndefined();
    // a to_maxtext flag is overridable like an argument
    expect(resolve({ lazy_load_tensors: '0' }).toMaxText.flags['lazy_load_tensors']).toBe(false);
    // the recipe itself is not changed
    expect(qwen.toMaxText.args['scan_layers']).toBe(true);
  });

  test('a key of no MaxText config class is refused, each with "did you mean"', () => {
    expect(() => resolve({ batchsize: 8, lerning_rate: 1e-6 }, 'pipelines.rl-qwen3')).toThrow(
      new Error(
        "pipelines.rl-qwen3.overrides.batchsize: not a key rl-qwen3 passes nor a key of MaxText's RLConfig (maxtext-v0.2.4 configs/types.py, jobs/maxtext-keys.ts) (did you mean 'batch_size'?)\n" +
          "pipelines.rl-qwen3.overrides.lerning_rate: not a key rl-qwen3 passes nor a key of MaxText's RLConfig (maxtext-v0.2.4 configs/types.py, jobs/maxtext-keys.ts) (did you mean 'learning_rate'?)",
      ),
    );
  });

  test("any key of the trainer's MaxText config class is added to training (issue 32): a number, a boolean, a string", () => {
    const args = resolve({ 'rl.grpo_epsilon': '0.3', 'rl.off_policy_steps': 2, async_checkpointing: 'false', data_shuffle_seed: 7 }).train.args as Record<string, unknown>;
    expect(args).toMatchObject({ 'rl.grpo_epsilon': 0.3, 'rl.off_policy_steps': 2, async_checkpointing: false, data_shuffle_seed: 7 });
    const sft = resolveRecipe(RECIPES['sft-gemma4'], { runId: 'r1', overrides: { adam_b1: 0.95, gradient_clipping_threshold: '0.5' } });
    expect(sft.train.args).toMatchObject({ adam_b1: 0.95, gradient_clipping_threshold: 0.5 });
  });

  test("a key of the other trainer's class is refused (train_sft's MaxTextConfig has no rl.*)", () => {
    expect(() => resolveRecipe(RECIPES['sft-gemma4'], { runId: 'r1', overrides: { 'rl.num_generations': 4 }, configSource: 'pipelines.sft-gemma4' })).toThrow(
      "pipelines.sft-gemma4.overrides.rl.num_generations: not a key sft-gemma4 passes nor a key of MaxText's MaxTextConfig",
    );
  });

  test('a key a typed training setting owns is refused always (issue 32 item 1), naming the override, the setting and the value to give it', () => {
    expect(() => resolve({ learning_rate: 1e-6 }, 'pipelines.rl-qwen3')).toThrow(
      new Error(
        'pipelines.rl-qwen3.overrides.learning_rate: learning_rate is owned by the typed setting pipelines.rl-qwen3.training.learningRate ' +
          '(peak learning rate; MaxText learning_rate); remove the override and set it there: "training": {"learningRate": 0.000001}',
      ),
    );
    // RL's max_target_length is maxPromptLength + maxCompletionLength: the value to give is the completion length.
    expect(() => resolve({ max_target_length: '8192' }, 'pipelines.rl-qwen3')).toThrow(
      'pipelines.rl-qwen3.overrides.max_target_length: max_target_length is owned by the typed setting pipelines.rl-qwen3.training.maxCompletionLength ' +
        '(maximum completion length, tokens: sets max_target_length = maxPromptLength + this; MaxText max_target_length); remove the override and set it there: "training": {"maxCompletionLength": 7936}',
    );
    // Every owned key of every method, whether the recipe passes it or not; nothing reaches the arguments.
    const owned: Array<[string, string, string]> = [
      ['rl-qwen3', 'batch_size', 'promptsPerStep'], ['rl-qwen3', 'rl.num_generations', 'generationsPerPrompt'], ['rl-qwen3', 'max_prefill_predict_length', 'maxPromptLength'],
      ['rl-qwen3', 'rl.grpo_beta', 'beta'], ['rl-qwen3', 'rl.num_iterations', 'numIterations'], ['rl-llama3', 'learning_rate', 'learningRate'],
      ['sft-gemma4', 'per_device_batch_size', 'perDeviceBatch'], ['sft-gemma4', 'lr_schedule_type', 'schedule'], ['sft-gemma4', 'warmup_steps_fraction', 'warmupFraction'],
      ['sft-gemma4', 'max_target_length', 'maxSeqLen'], ['sft-gemma4', 'packing', 'packing'], ['sft-gemma4', 'learning_rate', 'learningRate'],
    ];
    for (const [preset, key, setting] of owned) {
      expect(() => resolveRecipe(RECIPES[preset], { runId: 'r1', overrides: { [key]: 2 }, configSource: `pipelines.${preset}` })).toThrow(
        `pipelines.${preset}.overrides.${key}: ${key} is owned by the typed setting pipelines.${preset}.training.${setting} (`,
      );
    }
    // A key no setting owns still passes (train_micro_batch_size is RL's micro batch, not promptsPerStep).
    expect(trainArg({ train_micro_batch_size: 4 }, 'train_micro_batch_size')).toBe(4);
  });

  test('an owned key set by the typed setting and overridden: the message names both', () => {
    const withSetting = { ...qwen, trainingKeys: { learning_rate: 'learningRate' } };
    expect(() => resolveRecipe(withSetting, { runId: 'r1', overrides: { learning_rate: '2e-6' }, configSource: 'c.json: pipelines.rl-qwen3' })).toThrow(
      new Error(
        'c.json: pipelines.rl-qwen3.overrides.learning_rate: learning_rate is owned by the typed setting c.json: pipelines.rl-qwen3.training.learningRate ' +
          '(peak learning rate; MaxText learning_rate) (c.json: pipelines.rl-qwen3.training.learningRate is also given); remove the override and set it there: "training": {"learningRate": 0.000002}',
      ),
    );
  });

  test('keys this program derives are refused', () => {
    for (const key of ['load_parameters_path', 'checkpoint_period', 'model_name']) {
      expect(() => resolve({ [key]: 'x' }, 'pipelines.rl-qwen3')).toThrow(
        `pipelines.rl-qwen3.overrides.${key}: set by this program for every run (the paths, the model key and the checkpoints it derives); remove it`,
      );
    }
  });

  test('run_name must name one directory; it replaces the prefix of the run identity', () => {
    expect(() => resolve({ run_name: 'a/b' }, 'pipelines.rl-qwen3')).toThrow(
      new Error("pipelines.rl-qwen3.overrides.run_name must be one directory name: no '/' and no '..', got 'a/b'"),
    );
    expect(() => resolve({ run_name: ' ' })).toThrow(new Error("rl-qwen3.overrides.run_name must be a non-empty name (it names the run's directory), got ' '"));
    expect(() => resolve({ run_name: 'a b' })).toThrow(
      new Error("rl-qwen3.overrides.run_name must be letters, digits, dots, dashes or underscores only, got 'a b'"),
    );
    // the identity (run_name, run id, key) is one gs:// path segment of at most 128 characters
    const long = 'a'.repeat(120);
    expect(() => resolve({ run_name: long }, 'pipelines.rl-qwen3')).toThrow(
      new RegExp(`^pipelines\\.rl-qwen3\\.overrides\\.run_name gives run name '${long}-[0-9a-f]{12}', which is not one path segment \\(letters, digits, '\\.', '_', '-'; at most 128\\)$`),
    );
    const { identity, recipe } = resolveRun(qwen, { runId: 'r1', overrides: { run_name: 'mine' } });
    expect(identity).toMatch(/^mine-[0-9a-f]{12}$/);
    expect(recipe.train.args['run_name']).toBe(identity);
  });
});

describe('the run identity and other options resolveRun applies', () => {
  test('a recipe without run_name is named by its kind; a run id other than r1 joins the name', () => {
    const { run_name: _dropped, ...args } = qwen.train.args as Record<string, unknown>;
    const unnamed = { ...qwen, train: { ...qwen.train, args } } as typeof qwen;
    expect(resolveRun(unnamed, { runId: 'r1' }).identity).toMatch(/^rl-[0-9a-f]{12}$/);
    expect(resolveRun(qwen, { runId: 'r7' }).identity).toMatch(/^rl-r7-[0-9a-f]{12}$/);
  });

  test('resumeRun names the training run_name (the identity still names the export); a bad one is refused', () => {
    const { identity, recipe } = resolveRun(qwen, { runId: 'r1', resumeRun: 'rl-0123456789ab' });
    expect(recipe.train.args['run_name']).toBe('rl-0123456789ab');
    expect(identity).not.toBe('rl-0123456789ab');
    expect(() => resolveRun(qwen, { runId: 'r1', resumeRun: 'a/b', configSource: 'pipelines.rl-qwen3' })).toThrow(
      new Error("pipelines.rl-qwen3.resumeRun must be the run name of an earlier run (the directory under trained/, e.g. 'rl-3f9a1c2b7d10'), got 'a/b'"),
    );
  });

  test('conversions run on the CPU pool unless the recipe or the options say otherwise; options win', () => {
    const { conversionOn: _c, ...bare } = qwen;
    expect(resolveRecipe(bare as typeof qwen, { runId: 'r1' }).conversionOn).toBe('cpu');
    expect(resolveRecipe({ ...qwen, conversionOn: 'tpu' }, { runId: 'r1' }).conversionOn).toBe('tpu');
    expect(resolveRecipe({ ...qwen, conversionOn: 'tpu' }, { runId: 'r1', conversionOn: 'cpu' }).conversionOn).toBe('cpu');
  });
});
