/**
 * jobs/spec.ts resolved directly (no config file, no synthesis): the exact problems and notices an entry gets, so a
 * second message, a missing one or a changed word fails here, and the recipe values each field sets. The same rules
 * through the config loader: __tests__/config/pipeline-spec.test.ts.
 */
import { parsePython } from '../../config/python';
import { METHODS } from '../../jobs/methods';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { CONFIGMAP_MAX_BYTES, RECIPE_FILES_DIR } from '../../jobs/recipe-files';
import { definesProcessData, didYouMean, isPlainEntry, PipelineSpec, resolveSpec, SpecFile, templateProblem, trainingValues, usesMaxTextOnVllm } from '../../jobs/spec';

const AT = 'cfg.json: pipelines.mine';
const SFT = { method: 'sft', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'train_sft' }, slice: 'v6e-8' };
const GRPO = { method: 'grpo', model: 'qwen3-8b', hfModel: 'Qwen/Qwen3-8B', dataset: { hf: 'openai/gsm8k', config: 'main' }, slice: 'v6e-8' };
const SHA = '0123456789abcdef0123456789abcdef01234567';
const spec = (fields: Partial<PipelineSpec>, name = 'mine'): PipelineSpec => ({
  name,
  source: name === 'mine' ? AT : `cfg.json: pipelines.${name}`,
  defaultSlice: { machineType: 'ct6e-standard-4t', topology: '4x8' },
  ...fields,
});
const resolve = (fields: Partial<PipelineSpec>, name?: string) => resolveSpec(spec(fields, name), RECIPES);
const recipeOf = (fields: Partial<PipelineSpec>, name?: string): Recipe => {
  const r = resolve(fields, name);
  expect(r.problems).toEqual([]);
  return r.recipe!;
};
const problemsOf = (fields: Partial<PipelineSpec>, name?: string): readonly string[] => {
  const r = resolve(fields, name);
  expect(r.recipe).toBeUndefined();
  return r.problems;
};
const args = (r: Recipe) => r.train.args as Record<string, unknown>;
/** A file as config/ reads it: a .py also parsed by Python's parser (its cache key: the content). */
const file = (name: string, content: string, extra: Partial<SpecFile> = {}): SpecFile => ({
  path: `files/${name}`,
  name,
  content,
  sha256: 'f'.repeat(64),
  ...(name.endsWith('.py') ? { python: parsePython(Buffer.from(content), content) as any } : {}),
  ...extra,
});
const REWARD_PY = 'def final_number(prompts, completions, **kwargs):\n    return [0.0 for _ in completions]\n';
const TEMPLATE = '{"TEMPLATE": "{question}", "SYSTEM_PROMPT": "s"}';
const PROCESSOR = 'def process_data(dataset_name, model_tokenizer, template_config, tmvp_config, x):\n    return x\n';

test('templateProblem and definesProcessData: what MaxText reads of the dataset files', () => {
  const none = 'has no string TEMPLATE or SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)';
  for (const text of ['null', '"TEMPLATE"', '7', '[]', '{}', '{"TEMPLATE": 1, "SYSTEM_PROMPT": null}']) expect(templateProblem(text)).toBe(none);
  expect(templateProblem('{"TEMPLATE": "t"}')).toBe('has no string SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)');
  expect(templateProblem('{"SYSTEM_PROMPT": "s"}')).toBe('has no string TEMPLATE (rl/utils_rl.py process_data formats both)');
  expect(templateProblem(TEMPLATE)).toBeUndefined();
  expect(definesProcessData('import x\ndef  process_data (a, b, c, d, x):\n    return x\n')).toBe(true);
  expect(definesProcessData('def process_data_v2(a):\n    return a\n')).toBe(false);
  expect(definesProcessData('defprocess_data(a):\n    return a\n')).toBe(false);
  expect(definesProcessData('# def process_data(a):\n')).toBe(false);
});

describe('didYouMean', () => {
  test('the closest candidate, compared without case', () => {
    expect(didYouMean('grpoo', METHODS)).toBe(" (did you mean 'grpo'?)");
    expect(didYouMean('GRPO', ['sft', 'grpo'])).toBe(" (did you mean 'grpo'?)");
    expect(didYouMean('grpo', ['SFT', 'GRPO'])).toBe(" (did you mean 'GRPO'?)");
    // gspo is 2 edits from grpoo, grpo 1: the nearest wins whatever the order.
    expect(didYouMean('grpoo', ['gspo', 'grpo'])).toBe(" (did you mean 'grpo'?)");
  });
  test('within a third of the word, at least 2 edits; nothing beyond, nothing from no candidates', () => {
    expect(didYouMean('ab', ['xy'])).toBe(" (did you mean 'xy'?)");
    expect(didYouMean('ab', ['xyz'])).toBe('');
    expect(didYouMean('abcdefghi', ['abcdefxyz'])).toBe(" (did you mean 'abcdefxyz'?)");
    expect(didYouMean('abcdefghi', ['abcdewxyz'])).toBe('');
    expect(didYouMean('abcdefghij', ['abcdefwxyz'])).toBe(" (did you mean 'abcdefwxyz'?)");
    expect(didYouMean('abcdefghij', ['abcdevwxyz'])).toBe('');
    expect(didYouMean('x', [])).toBe('');
  });
});

test('usesMaxTextOnVllm: the Pathways presets run MaxText inside vLLM, the single-host one the standalone vLLM model', () => {
  expect(usesMaxTextOnVllm(RECIPES['rl-qwen3'])).toBe(true);
  expect(usesMaxTextOnVllm(RECIPES['rl-gemma4'])).toBe(true);
  expect(usesMaxTextOnVllm(RECIPES['rl-llama3'])).toBe(false);
});

describe('a preset entry', () => {
  test('with deploy options only, is the preset itself', () => {
    expect(isPlainEntry(spec({}))).toBe(true);
    expect(resolve({}, 'rl-llama3')).toEqual({ recipe: RECIPES['rl-llama3'], problems: [], notices: [] });
    expect(resolve({}, 'rl-llama3').recipe).toBe(RECIPES['rl-llama3']);
  });
  test('each pipeline field makes it a configured entry', () => {
    for (const field of ['extends', 'method', 'model', 'hfModel', 'hfRevision', 'hfArchitecture', 'tokenizer', 'dataset', 'reward', 'lora', 'slice', 'steps', 'training']) {
      expect(isPlainEntry(spec({ [field]: field === 'steps' ? 1 : {} } as Partial<PipelineSpec>))).toBe(false);
    }
  });
  test('a preset of the same name is the base without extends: its description says it was configured, its values stay', () => {
    const r = resolve({ steps: 20 }, 'rl-llama3');
    expect(r.problems).toEqual([]);
    expect(r.notices).toEqual([
      "cfg.json: pipelines.rl-llama3: no hfRevision: the conversion takes whatever meta-llama/Llama-3.1-8B-Instruct's head is when it runs; pin a commit with hfRevision",
    ]);
    expect(r.recipe!.description).toBe(`${RECIPES['rl-llama3'].description}, as configured`);
    expect(args(r.recipe!).num_batches).toBe(20);
    expect(r.recipe!.slice).toEqual(RECIPES['rl-llama3'].slice);
    // The preset's own repository: no hf_model_path flag, no tokenizer_path added.
    expect(r.recipe!.toMaxText.flags.hf_model_path).toBeUndefined();
    expect(args(r.recipe!).tokenizer_path).toBeUndefined();
    expect(r.recipe!.toHf).toEqual(RECIPES['rl-llama3'].toHf);
    expect(r.recipe!.lineage).toBeUndefined();
    expect(r.recipe!.files).toBeUndefined();
  });
});

describe('the base: extends, method', () => {
  test('an unknown preset: that problem alone', () => {
    expect(problemsOf({ extends: 'rl-qwen' })).toEqual([
      `${AT}.extends: no preset named 'rl-qwen'; presets: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3 (did you mean 'rl-qwen3'?)`,
    ]);
  });
  test('a new pipeline without its four fields names each, and nothing else', () => {
    expect(problemsOf({ slice: 'v6e-8' })).toEqual(
      ['method', 'model', 'hfModel', 'dataset'].map((f) => `${AT}.${f}: is required for a new pipeline (or extends one of rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3)`),
    );
  });
  test('an unknown method: that problem alone, with or without extends', () => {
    const want = `${AT}.method: must be one of sft, grpo, gspo, dpo, got 'grpoo' (did you mean 'grpo'?)`;
    expect(problemsOf({ ...GRPO, method: 'grpoo' })).toEqual([want]);
    expect(problemsOf({ extends: 'rl-qwen3', method: 'grpoo' })).toEqual([want]);
  });
  test('a bad method stops the entry there: what the other fields mean depends on it', () => {
    expect(problemsOf({ extends: 'sft-gemma4', method: 'grpoo', lora: { rank: 0 }, steps: 0 })).toEqual([
      `${AT}.method: must be one of sft, grpo, gspo, dpo, got 'grpoo' (did you mean 'grpo'?)`,
    ]);
  });
  test('a method of another kind than the preset\'s: that problem alone', () => {
    expect(problemsOf({ extends: 'rl-qwen3', method: 'dpo' })).toEqual([
      `${AT}.method: 'dpo' cannot change rl-qwen3's method (grpo); extend a preset of the same kind, or leave out extends`,
    ]);
  });
  test('a method of the same kind: gspo on a GRPO preset sets its loss; the preset\'s own method changes nothing', () => {
    expect(args(recipeOf({ extends: 'rl-qwen3', method: 'gspo' }))['rl.loss_algo']).toBe('gspo-token');
    expect(args(recipeOf({ extends: 'rl-qwen3', method: 'grpo' }))['rl.loss_algo']).toBeUndefined();
  });
  test('a new pipeline starts from its method\'s base: description, the main slice, the repository named', () => {
    const r = resolve({ ...SFT, slice: undefined });
    expect(r.problems).toEqual([]);
    const recipe = r.recipe!;
    expect(recipe.name).toBe('mine');
    expect(recipe.description).toBe('SFT of llama3.1-8b (meta-llama/Llama-3.1-8B-Instruct) on HuggingFaceH4/ultrachat_200k');
    expect(recipe.slice).toEqual({ machineType: 'ct6e-standard-4t', topology: '4x8' });
    expect(recipe.toMaxText.flags.hf_model_path).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(args(recipe).tokenizer_path).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(recipe.model).toEqual({ name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct' });
    expect(recipe.lineage).toEqual({ dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'train_sft' } });
    expect(r.notices).toEqual([
      `${AT}: no hfRevision: the conversion takes whatever meta-llama/Llama-3.1-8B-Instruct's head is when it runs; pin a commit with hfRevision`,
    ]);
  });
});

describe('model, repository, revision, tokenizer', () => {
  test('hfRevision: 40 lowercase hex digits, nothing else; a pinned one is in the model and silences the notice', () => {
    for (const bad of [SHA.toUpperCase(), `${SHA}0`, SHA.slice(1), `x${SHA}`, `${SHA.slice(1)}x`]) {
      expect(problemsOf({ ...SFT, hfRevision: bad })).toEqual([
        `${AT}.hfRevision: must be a 40-hex commit of meta-llama/Llama-3.1-8B-Instruct (a branch or tag moves), got '${bad}'`,
      ]);
    }
    const r = resolve({ ...SFT, hfRevision: SHA });
    expect(r.notices).toEqual([]);
    expect(r.recipe!.model).toEqual({ name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct', hfRevision: SHA });
  });
  test('another model on a preset: its first repository, export name and tokenizer follow', () => {
    const r = recipeOf({ extends: 'rl-llama3', model: 'qwen3-8b' });
    expect(r.model).toEqual({ name: 'qwen3-8b', hfRepo: 'Qwen/Qwen3-8B' });
    expect(r.toMaxText.flags.hf_model_path).toBe('Qwen/Qwen3-8B');
    expect(args(r).tokenizer_path).toBe('Qwen/Qwen3-8B');
    expect(r.toHf.modelName).toBeUndefined();
    // llama3.1-8b-Instruct exports as llama3.1-8b (models.ts exportNameOf).
    expect(recipeOf({ extends: 'rl-qwen3', model: 'qwen3-30b-a3b-base', hfModel: 'Qwen/Qwen3-30B-A3B' }).toHf.modelName).toBeUndefined();
    expect(recipeOf({ extends: 'rl-llama3', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', hfRevision: SHA }).toHf).toEqual(RECIPES['rl-llama3'].toHf);
  });
  test('a model whose export has another name (llama3.1-8b-Instruct exports as llama3.1-8b); a preset\'s own tokenizer_path stays', () => {
    expect(recipeOf({ extends: 'sft-gemma4', model: 'llama3.1-8b-Instruct' }).toHf.modelName).toBe('llama3.1-8b');
    expect(recipeOf({ ...SFT, model: 'llama3.1-8b-Instruct' }).toHf.modelName).toBe('llama3.1-8b');
    expect(recipeOf({ ...SFT }).toHf.modelName).toBeUndefined();
    expect(args(recipeOf({ extends: 'rl-qwen3', hfRevision: SHA })).tokenizer_path).toBe('Qwen/Qwen3-30B-A3B-Instruct-2507');
    // No revision given: the model names none (not even an undefined one).
    expect(Object.keys(recipeOf({ ...SFT }).model)).toEqual(['name', 'hfRepo']);
  });
  test('another repository of the same model: hf_model_path and the tokenizer, the model key and export unchanged', () => {
    const r = recipeOf({ extends: 'rl-llama3', hfModel: 'acme/Llama-3.1-8B-Instruct-support' });
    expect(r.model.name).toBe('llama3.1-8b-Instruct');
    expect(r.toMaxText.flags.hf_model_path).toBe('acme/Llama-3.1-8B-Instruct-support');
    expect(args(r).tokenizer_path).toBe('acme/Llama-3.1-8B-Instruct-support');
    expect(r.toHf).toEqual(RECIPES['rl-llama3'].toHf);
  });
  test('a tokenizer of its own reaches tokenizer_path; a bad one names tokenizer', () => {
    expect(args(recipeOf({ ...SFT, tokenizer: 'meta-llama/Llama-3.1-8B' })).tokenizer_path).toBe('meta-llama/Llama-3.1-8B');
    expect(args(recipeOf({ tokenizer: 'meta-llama/Llama-3.1-8B' }, 'rl-llama3')).tokenizer_path).toBe('meta-llama/Llama-3.1-8B');
    expect(problemsOf({ ...SFT, tokenizer: 'not a repo' })).toEqual([expect.stringMatching(new RegExp(`^${AT}\\.tokenizer: 'not a repo' `))]);
    expect(problemsOf({ ...SFT, tokenizer: 'Qwen/Qwen3-8B' })).toEqual([expect.stringMatching(new RegExp(`^${AT}\\.tokenizer: 'Qwen/Qwen3-8B' is qwen3-8b's repository`))]);
  });
  test('a bad hfModel names hfModel; the id syntax is checked first', () => {
    expect(problemsOf({ ...SFT, hfModel: 'https://huggingface.co/x/y' })).toEqual([`${AT}.hfModel: 'https://huggingface.co/x/y' is a URL, not a repository id: write 'x/y'`]);
    // A tokenizer is checked on its vocabulary, not on the RoPE theta or layers a conversion needs.
    expect(problemsOf({ extends: 'rl-qwen3', tokenizer: 'Qwen/Qwen3-30B-A3B' })).toEqual([
      `${AT}.tokenizer: 'Qwen/Qwen3-30B-A3B' is qwen3-30b-a3b-base's repository (Qwen3, Qwen3MoeForCausalLM), not qwen3-30b-a3b's: ` +
        'qwen3-30b-a3b converts from Qwen/Qwen3-30B-A3B-Thinking-2507, Qwen/Qwen3-30B-A3B-Instruct-2507 (Qwen3MoeForCausalLM)',
    ]);
    expect(problemsOf({ ...SFT, tokenizer: 'https://huggingface.co/x/y' })).toEqual([`${AT}.tokenizer: 'https://huggingface.co/x/y' is a URL, not a repository id: write 'x/y'`]);
  });
  test('an unknown model: that problem alone, with the keys and did-you-mean', () => {
    expect(problemsOf({ ...SFT, model: 'llama3.1-8B' })).toEqual([
      `${AT}.model: no model table row for 'llama3.1-8B' (jobs/models.ts); models: qwen3-30b-a3b, qwen3-30b-a3b-base, qwen3-235b-a22b, qwen3-8b, qwen3-14b, qwen3-32b, ` +
        "gemma4-26b, gemma4-31b, gemma3-12b, gemma3-27b, llama3.1-8b-Instruct, llama3.1-8b, llama3.1-70b (did you mean 'llama3.1-8b'?)",
    ]);
  });
  test('another MoE model on rl-qwen3: the sampler\'s maxtext_config follows the model, the rest of it stays', () => {
    const r = recipeOf({ extends: 'rl-qwen3', model: 'qwen3-30b-a3b-base', hfModel: 'Qwen/Qwen3-30B-A3B' });
    const base = RECIPES['rl-qwen3'].train.args['vllm_additional_config'] as any;
    expect(args(r).vllm_additional_config).toEqual({ ...base, maxtext_config: { ...base.maxtext_config, model_name: 'qwen3-30b-a3b-base' } });
    // The same model keeps the preset's config object.
    expect(args(recipeOf({ extends: 'rl-qwen3', hfRevision: SHA })).vllm_additional_config).toEqual(base);
  });
});

describe('dataset', () => {
  test('a dataset revision is recorded, with a notice that MaxText cannot pin it', () => {
    const r = resolve({ ...GRPO, dataset: { ...GRPO.dataset, split: 'train', revision: 'abc' }, hfRevision: SHA });
    expect(r.problems).toEqual([]);
    expect(r.notices).toEqual([
      `${AT}.dataset.revision: recorded in the run record only: MaxText 0.2.4 has no key to pin a dataset revision, so training reads what the Hub serves then`,
    ]);
    expect(r.recipe!.lineage).toEqual({ dataset: { hf: 'openai/gsm8k', config: 'main', split: 'train', revision: 'abc' } });
    expect(args(r.recipe!).dataset_name).toBe('openai/gsm8k');
  });
  test('the row\'s data problems are the entry\'s', () => {
    expect(problemsOf({ ...SFT, dataset: { hf: 'x/y', columns: [] } })).toEqual([`${AT}.dataset.columns: must name at least one column (the chat messages, e.g. ["messages"]), got []`]);
  });
});

describe('the reward file', () => {
  test('shipped as a recipe file, named on the command line, in the lineage', () => {
    const r = recipeOf({ ...GRPO, reward: { file: file('final_number.py', REWARD_PY) } });
    expect(args(r).reward_functions_path).toBe(`${RECIPE_FILES_DIR}/final_number.py`);
    expect(args(r).reward_functions).toBe('final_number');
    expect(r.files).toEqual([{ name: 'final_number.py', content: REWARD_PY, sha256: 'f'.repeat(64), path: 'files/final_number.py' }]);
    expect(r.lineage).toEqual({ dataset: { hf: 'openai/gsm8k', config: 'main' }, reward: { path: 'files/final_number.py', sha256: 'f'.repeat(64) } });
  });
  test('refused on a method without rewards, naming the methods that have them', () => {
    expect(problemsOf({ ...SFT, reward: { file: file('final_number.py', REWARD_PY) } })).toEqual([
      `${AT}.reward: a reward file is for RL (grpo, gspo); mine trains with sft, got 'files/final_number.py'`,
    ]);
  });
  test.each([
    ['a reading problem', file('r.py', REWARD_PY, { problem: 'not found in the repository' }), "'files/r.py' not found in the repository"],
    ['no content', file('r.py', REWARD_PY, { content: undefined }), "'files/r.py' could not be read"],
    ['no sha256', file('r.py', REWARD_PY, { sha256: undefined }), "'files/r.py' could not be read"],
    ['a name no ConfigMap key can be', file('r w.py', REWARD_PY), "file name 'r w.py' must be letters, digits, '-', '_' or '.' (it becomes a ConfigMap key)"],
    ['no Python parse', file('r.py', REWARD_PY, { python: undefined }), "'files/r.py' was not read by Python's parser"],
  ])('%s: that problem alone, naming reward', (_what, f, want) => {
    expect(problemsOf({ ...GRPO, reward: { file: f } })).toEqual([`${AT}.reward: ${want}`]);
  });
  test('a file larger than a ConfigMap', () => {
    const big = `${REWARD_PY}#${'x'.repeat(CONFIGMAP_MAX_BYTES)}\n`;
    const bytes = Buffer.byteLength(big) + 'r.py'.length;
    expect(problemsOf({ ...GRPO, reward: { file: file('r.py', big, { python: { ok: true, python: 'python3', names: {} } }) } })).toEqual([
      `${AT}.reward: 'files/r.py' is ${bytes} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} (1 MiB): move data the reward loads into the bucket`,
    ]);
  });
  test('a file of exactly a ConfigMap\'s size is shipped', () => {
    const content = `${REWARD_PY}#${'x'.repeat(CONFIGMAP_MAX_BYTES - REWARD_PY.length - 'r.py'.length - 2)}\n`;
    const python = parsePython(Buffer.from(REWARD_PY), REWARD_PY) as any;
    expect(recipeOf({ ...GRPO, reward: { file: file('r.py', content, { python }) } }).files![0].content).toBe(content);
  });
  test('every reward function of the file, in order, comma-separated', () => {
    const two = `${REWARD_PY}\ndef length_penalty(prompts, completions, **kwargs):\n    return [0.0 for _ in completions]\n`;
    expect(args(recipeOf({ ...GRPO, reward: { file: file('r.py', two) } })).reward_functions).toBe('final_number,length_penalty');
  });
  test('a function that is not there names reward.functions', () => {
    expect(problemsOf({ ...GRPO, reward: { file: file('r.py', REWARD_PY), functions: ['nope'] } })).toEqual([
      `${AT}.reward.functions: 'nope' is not defined at the top level of 'files/r.py'; it defines final_number`,
    ]);
  });
});

describe('dataset template and processor files', () => {
  test('both shipped beside the reward, in that order, each passed by path', () => {
    const r = recipeOf({
      ...GRPO,
      reward: { file: file('final_number.py', REWARD_PY) },
      datasetFiles: { template: file('t.json', TEMPLATE), processor: file('p.py', PROCESSOR) },
    });
    expect(r.files!.map((f) => f.name)).toEqual(['final_number.py', 't.json', 'p.py']);
    expect(args(r).data_template_path).toBe(`${RECIPE_FILES_DIR}/t.json`);
    expect(args(r).dataset_processor_path).toBe(`${RECIPE_FILES_DIR}/p.py`);
  });
  test('a template alone: no processor path', () => {
    const r = recipeOf({ ...GRPO, datasetFiles: { template: file('t.json', TEMPLATE) } });
    expect(r.files!.map((f) => f.name)).toEqual(['t.json']);
    expect(args(r).dataset_processor_path).toBeUndefined();
    expect(r.lineage).toEqual({ dataset: { hf: 'openai/gsm8k', config: 'main' } });
  });
  test('each file\'s problem names its key; both are reported', () => {
    expect(
      problemsOf({ ...GRPO, datasetFiles: { template: file('t.json', '{"TEMPLATE": "x"}'), processor: file('p.py', REWARD_PY, { problem: 'is outside the repository' }) } }),
    ).toEqual([
      `${AT}.dataset.template: 'files/t.json' has no string SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)`,
      `${AT}.dataset.processor: 'files/p.py' is outside the repository`,
    ]);
    expect(problemsOf({ ...GRPO, datasetFiles: { processor: file('p.py', REWARD_PY) } })).toEqual([
      `${AT}.dataset.processor: 'files/p.py' defines no top-level 'def process_data(dataset_name, model_tokenizer, template_config, tmvp_config, x)'`,
    ]);
    expect(problemsOf({ ...GRPO, datasetFiles: { template: file('t.json', TEMPLATE, { content: undefined }) } })).toEqual([
      `${AT}.dataset.template: 'files/t.json' could not be read`,
    ]);
    expect(problemsOf({ ...GRPO, datasetFiles: { processor: file('p.py', PROCESSOR, { sha256: undefined }) } })).toEqual([
      `${AT}.dataset.processor: 'files/p.py' could not be read`,
    ]);
    expect(problemsOf({ ...GRPO, datasetFiles: { template: file('t j.json', TEMPLATE) } })).toEqual([
      `${AT}.dataset.template: file name 't j.json' must be letters, digits, '-', '_' or '.' (it becomes a ConfigMap key)`,
    ]);
  });
  test('two files of one name, and files that together exceed a ConfigMap', () => {
    expect(problemsOf({ ...GRPO, reward: { file: file('x.py', REWARD_PY) }, datasetFiles: { processor: file('x.py', PROCESSOR) } })).toEqual([
      `${AT}: the reward, template and processor files share the name 'x.py' (one ConfigMap key each): rename one`,
    ]);
    const half = `${PROCESSOR}#${'x'.repeat(CONFIGMAP_MAX_BYTES / 2)}\n`;
    const problems = problemsOf({ ...GRPO, reward: { file: file('a.py', `${REWARD_PY}#${'x'.repeat(CONFIGMAP_MAX_BYTES / 2)}\n`) }, datasetFiles: { processor: file('b.py', half) } });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${AT}: the reward, template and processor files hold \\d+ bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} \\(1 MiB\\)$`))]);
  });
  test('files that together hold exactly a ConfigMap\'s size are shipped', () => {
    const a = `${REWARD_PY}#${'x'.repeat(1000)}\n`;
    const bContent = `${PROCESSOR}#${'y'.repeat(CONFIGMAP_MAX_BYTES - Buffer.byteLength(a) - 'a.py'.length - 'b.py'.length - PROCESSOR.length - 2)}\n`;
    const r = recipeOf({ ...GRPO, reward: { file: file('a.py', a) }, datasetFiles: { processor: file('b.py', bContent) } });
    expect(r.files!.reduce((n, f) => n + f.name.length + Buffer.byteLength(f.content), 0)).toBe(CONFIGMAP_MAX_BYTES);
  });
  test('on a method that reads no such files none is shipped (its dataset check refuses the dataset keys that name them)', () => {
    const r = recipeOf({ ...SFT, datasetFiles: { template: file('t.json', TEMPLATE), processor: file('p.py', PROCESSOR) } });
    expect(r.files).toBeUndefined();
    expect(args(r).data_template_path).toBeUndefined();
    expect(args(r).dataset_processor_path).toBeUndefined();
  });
});

describe('typed training settings', () => {
  test.each([
    ['promptsPerStep', 0, 'a whole number >= 1', 'batch_size', GRPO],
    ['promptsPerStep', 1.5, 'a whole number >= 1', 'batch_size', GRPO],
    ['perDeviceBatch', 0, 'a number > 0', 'per_device_batch_size', SFT],
    ['learningRate', -1e-9, 'a number >= 0', 'learning_rate', SFT],
    ['warmupFraction', -0.01, 'a number from 0 to 1', 'warmup_steps_fraction', SFT],
    ['warmupFraction', 1.01, 'a number from 0 to 1', 'warmup_steps_fraction', SFT],
    ['perDeviceBatch', '1', 'a number > 0', 'per_device_batch_size', SFT],
    ['learningRate', '0.1', 'a number >= 0', 'learning_rate', SFT],
    ['warmupFraction', '0.5', 'a number from 0 to 1', 'warmup_steps_fraction', SFT],
    ['promptsPerStep', true, 'a whole number >= 1', 'batch_size', GRPO],
    ['packing', 1, 'true or false', 'packing', SFT],
    ['schedule', 'linear', 'one of cosine, wsd', 'lr_schedule_type', SFT],
    ['schedule', 1, 'one of cosine, wsd', 'lr_schedule_type', SFT],
  ])('%s = %p is refused: must be %s', (name, value, want, key, base) => {
    expect(problemsOf({ ...base, training: { [name]: value } })).toEqual([`${AT}.training.${name}: must be ${want} (MaxText ${key}), got ${JSON.stringify(value)}`]);
  });
  test.each([
    ['promptsPerStep', 1, 'batch_size', GRPO],
    ['perDeviceBatch', 0.5, 'per_device_batch_size', SFT],
    ['learningRate', 0, 'learning_rate', SFT],
    ['warmupFraction', 0, 'warmup_steps_fraction', SFT],
    ['warmupFraction', 1, 'warmup_steps_fraction', SFT],
    ['packing', false, 'packing', SFT],
    ['schedule', 'wsd', 'lr_schedule_type', SFT],
  ])('%s = %p is accepted and sets %s', (name, value, key, base) => {
    const r = recipeOf({ ...base, training: { [name]: value } });
    expect(args(r)[key]).toBe(value);
    expect(r.trainingKeys).toEqual({ [key]: name });
    expect(trainingValues(r)[name]).toBe(value);
  });
  test('a setting that sets a derived key: maxCompletionLength adds the prompt length', () => {
    const r = recipeOf({ ...GRPO, training: { maxPromptLength: 100, maxCompletionLength: 50 } });
    expect(args(r).max_target_length).toBe(150);
    expect(r.trainingKeys).toEqual({ max_prefill_predict_length: 'maxPromptLength', max_target_length: 'maxCompletionLength' });
    expect(trainingValues(r)).toMatchObject({ maxPromptLength: 100, maxCompletionLength: 50 });
  });
  test('unknown names are each refused, escaped, with did-you-mean, beside a bad value', () => {
    expect(problemsOf({ ...SFT, training: { 'lerning"Rate': 1, beta: 1, packing: 'no' } })).toEqual([
      `${AT}.training.lerning\\"Rate: not a setting of sft; sft has learningRate, schedule, warmupFraction, maxSeqLen, perDeviceBatch, packing (did you mean 'learningRate'?)`,
      `${AT}.training.beta: not a setting of sft; sft has learningRate, schedule, warmupFraction, maxSeqLen, perDeviceBatch, packing`,
      `${AT}.training.packing: must be true or false (MaxText packing), got "no"`,
    ]);
  });
  test('trainingValues: a value of another type than the setting\'s falls back to the default', () => {
    const r = recipeOf({ ...SFT });
    const odd = { ...r, train: { ...r.train, args: { ...r.train.args, learning_rate: [1] } } } as unknown as Recipe;
    expect(trainingValues(odd).learningRate).toBe(2e-5);
    const given = { ...r, train: { ...r.train, args: { ...r.train.args, learning_rate: 0.5, lr_schedule_type: 'wsd', packing: false } } } as unknown as Recipe;
    expect(trainingValues(given)).toMatchObject({ learningRate: 0.5, schedule: 'wsd', packing: false });
  });
});

describe('LoRA', () => {
  test('rank, alpha (the rank by default), modules, and the export', () => {
    const r = recipeOf({ ...SFT, lora: { rank: 8 } });
    expect(args(r)).toMatchObject({ 'lora.enable_lora': true, 'lora.lora_rank': 8, 'lora.lora_alpha': 8 });
    // No modules given: no key at all (an undefined value would still reach the command line as a key).
    expect(Object.keys(args(r))).not.toContain('lora.lora_module_path');
    expect(r.toHf.lora).toEqual({ rank: 8, alpha: 8 });
    const m = recipeOf({ ...SFT, lora: { rank: 8, alpha: 16, modules: 'layers/.*/attn' } });
    expect(args(m)).toMatchObject({ 'lora.lora_alpha': 16, 'lora.lora_module_path': 'layers/.*/attn' });
    expect(m.toHf.lora).toEqual({ rank: 8, alpha: 16 });
  });
  test('refused on RL naming the trainer; a rank that is no count and an alpha not above 0, both reported', () => {
    expect(problemsOf({ ...GRPO, lora: { rank: 8 } })).toEqual([
      `${AT}.lora: LoRA is for SFT only: MaxText 0.2.4 train_rl never applies LoRA (only train_sft calls lora_utils.apply_lora_to_model); remove lora or use method sft`,
    ]);
    expect(problemsOf({ ...SFT, lora: { rank: 1.5, alpha: 0 } })).toEqual([
      `${AT}.lora.rank: must be a whole number >= 1 (types.py LoRA lora_rank: "Set >0 when LoRA is enabled"), got 1.5`,
      `${AT}.lora.alpha: must be > 0 (the adapter scales by alpha / rank), got 0`,
    ]);
    expect(recipeOf({ ...SFT, lora: { rank: 1 } }).toHf.lora).toEqual({ rank: 1, alpha: 1 });
  });
});

describe('slice and steps', () => {
  test('a slice of the TPU table: its first shape; a slice not there: named with examples', () => {
    expect(recipeOf({ ...SFT, slice: 'v6e-8' }).slice).toEqual({ machineType: 'ct6e-standard-8t', topology: '2x4' });
    expect(recipeOf({ extends: 'sft-gemma4', slice: 'v6e-16' }).slice).toEqual({ machineType: 'ct6e-standard-4t', topology: '4x4' });
    expect(problemsOf({ ...SFT, slice: 'v6e-9' })).toEqual([
      `${AT}.slice: must be a Cloud TPU accelerator type of the TPU table such as v5litepod-8, v5p-8, v6e-8 or tpu7x-8, got 'v6e-9'`,
    ]);
  });
  test('steps set the method\'s key; a count below 1 or not whole is refused; one with no checkpoint period too', () => {
    expect(args(recipeOf({ ...SFT, steps: 400 })).steps).toBe(400);
    expect(args(recipeOf({ ...GRPO, steps: 1 })).num_batches).toBe(1);
    expect(problemsOf({ ...SFT, steps: 0 })).toEqual([`${AT}.steps: must be a whole number >= 1, got 0`]);
    expect(problemsOf({ ...SFT, steps: 2.5 })).toEqual([`${AT}.steps: must be a whole number >= 1, got 2.5`]);
    expect(problemsOf({ ...SFT, steps: 211 })).toEqual([expect.stringMatching(new RegExp(`^${AT}\\.steps: 211 training steps have no divisor between 11 and 52`))]);
  });
});

describe('RL shape', () => {
  test('a new RL pipeline runs on one VM: chips_per_vm is the slice\'s', () => {
    expect(args(recipeOf(GRPO)).chips_per_vm).toBe(8);
    expect(args(recipeOf({ ...GRPO, slice: 'v6e-4' })).chips_per_vm).toBe(4);
  });
  test('a multi-host slice is refused, saying when it is infra\'s main slice', () => {
    const want = (extra: string) =>
      `${AT}.slice: RL without extends runs on one TPU VM (McJAX, tutorial 002's shape), got ct6e-standard-4t 4x8 (8 VMs${extra}); ` +
      'RL on a multi-host slice runs on Pathways: extend rl-qwen3 or rl-gemma4, or set slice to a single-VM type such as v6e-8';
    expect(problemsOf({ ...GRPO, slice: 'v6e-32' })).toEqual([want('')]);
    expect(problemsOf({ ...GRPO, slice: undefined })).toEqual([want(", infra's main slice")]);
  });
  test('a preset keeps its slice and chips_per_vm; a model with no standalone vLLM mapping is refused', () => {
    expect(args(recipeOf({ extends: 'rl-qwen3', hfRevision: SHA })).chips_per_vm).toBe(RECIPES['rl-qwen3'].train.args['chips_per_vm']);
    expect(problemsOf({ ...GRPO, model: 'gemma4-31b', hfModel: 'google/gemma-4-31b-it' })).toEqual([
      expect.stringMatching(new RegExp(`^${AT}\\.model: RL with 'gemma4-31b' needs a sampler weight-sync path`)),
    ]);
  });
});

test('RL through the MaxText-on-vLLM sampler refuses a model MaxText converts one way only (no HF_MODEL_CONFIGS entry)', () => {
  // Every row of today's model table converts both ways; a row that does not stands in for the next one added.
  jest.isolateModules(() => {
    jest.doMock('../../jobs/models', () => {
      const actual = jest.requireActual('../../jobs/models');
      return { ...actual, modelRow: (key: string) => (key === 'qwen3-30b-a3b-base' ? { ...actual.modelRow(key), convertsBothWays: false } : actual.modelRow(key)) };
    });
    const isolated = require('../../jobs/spec') as typeof import('../../jobs/spec');
    const presets = (require('../../jobs/recipes') as typeof import('../../jobs/recipes')).RECIPES;
    const r = isolated.resolveSpec(spec({ extends: 'rl-qwen3', model: 'qwen3-30b-a3b-base', hfModel: 'Qwen/Qwen3-30B-A3B' }), presets);
    expect(r.problems).toEqual([
      `${AT}.model: 'qwen3-30b-a3b-base' has no HF_MODEL_CONFIGS entry at maxtext-v0.2.4, which the MaxText-on-vLLM sampler reads (TunixMaxTextAdapter); RL cannot run it`,
    ]);
    expect(isolated.resolveSpec(spec({ extends: 'rl-qwen3', hfRevision: SHA }), presets).problems).toEqual([]);
  });
});
