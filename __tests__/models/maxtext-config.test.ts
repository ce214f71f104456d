/**
 * Every MaxText call of every synthesized configuration (the tutorials' and the three examples') is accepted by
 * MaxText's config code at maxtext-v0.2.4 (model: ./maxtext-config.ts), and so is a GSPO pipeline's.
 */
import { configFile } from '../util';
import { maxTextCalls } from './maxtext-script';
import { MAXTEXT_CONFIG_KEYS } from '../../jobs/maxtext-keys';
import { configProblems, FIELDS } from './maxtext-config';
import { allConfigurations, Obj, podSets, Synthesized, synthesize } from './synthesized';

function calls(synth: Synthesized): Array<[string, ReturnType<typeof maxTextCalls>[number]]> {
  return synth.jobSets.flatMap((js) =>
    podSets(js.manifest).flatMap((ps) =>
      (ps.pod.containers as Obj[])
        .filter((c) => c.command?.[0] === '/bin/bash')
        .flatMap((c) => maxTextCalls(c.command[2]).map((call) => [`${js.manifest.metadata.name}/${ps.name}: ${call.module}`, call] as [string, typeof call])),
    ),
  );
}

const gspo = () =>
  synthesize({
    CONFIG_FILE: configFile((c) => {
      c.tpu = { machineType: 'ct6e-standard-8t', topology: '2x4', slices: 1, reservation: 'my-v6e-8-reservation' };
      delete c.singleHost;
      c.pipelines = {
        'gspo-qwen3': { method: 'gspo', model: 'qwen3-8b', hfModel: 'Qwen/Qwen3-8B', dataset: { hf: 'openai/gsm8k', config: 'main', split: 'train', evalSplit: 'test' }, slice: 'v6e-8' },
      };
    }),
    PIPELINES: 'gspo-qwen3',
  });

describe.each([...allConfigurations(), ['gspo', gspo()] as [string, Synthesized]])('MaxText accepts every call (%s)', (_name, synth) => {
  test.each(calls(synth))('%s', (_label, call) => {
    expect(configProblems(call)).toEqual([]);
  });
});

test('the model refuses what MaxText refuses', () => {
  const call = (module: string, args: Record<string, string>, flags: Record<string, string> = {}) => configProblems({ module, args, flags });
  expect(call('maxtext.trainers.post_train.rl.train_rl', { 'rl.degenerate_group_masking': 'True' })).toEqual([
    "'rl.degenerate_group_masking' not in RLConfig (pyconfig._prepare_for_pydantic)",
  ]);
  expect(call('maxtext.trainers.post_train.rl.train_rl', { 'rl.loss_algo': 'gspo' })).toEqual(['rl.loss_algo=gspo violates types.py']);
  expect(call('maxtext.trainers.post_train.sft.train_sft', { dataset_type: 'hf' })).toEqual(["hf_path can't be empty when dataset_type=hf"]);
  expect(call('maxtext.trainers.post_train.sft.train_sft', { 'lora.enable_lora': 'True', 'lora.lora_rank': '0' })).toEqual(['lora_rank must be > 0 with enable_lora']);
  expect(call('maxtext.trainers.post_train.sft.train_sft', { reward_functions_path: '/x.py' })).toEqual(["'reward_functions_path' not in MaxTextConfig (pyconfig._prepare_for_pydantic)"]);
  expect(call('maxtext.checkpoint_conversion.to_maxtext', {}, { hf_revision: 'x' })).toEqual(['--hf_revision is not a flag of maxtext.checkpoint_conversion.to_maxtext']);
  const dpo = 'maxtext.trainers.post_train.dpo.train_dpo';
  expect(call(dpo, { packing: 'True' })).toEqual(['DPO does not support packing (types.py)']);
  expect(call(dpo, { 'dpo.algo': 'ipo' })).toEqual(['dpo.algo=ipo violates types.py']);
  expect(call(dpo, { max_target_length: '256', 'dpo.max_prompt_length': '256' })).toEqual(['dpo.max_prompt_length (256) must be less than max_target_length']);
  expect(call(dpo, { train_data_columns: "'[\"chosen\"]'" })).toEqual(['DPODataFormatting expects 2 or 3 columns, got 1']);
  expect(call(dpo, { 'rl.loss_algo': 'grpo' })).toEqual(["'rl.loss_algo' not in MaxTextConfig (pyconfig._prepare_for_pydantic)"]);
});

test('the generated key list (jobs/maxtext-keys.ts) holds every key read by hand from types.py', () => {
  for (const cls of ['MaxTextConfig', 'RLConfig'] as const) {
    for (const key of Object.keys(FIELDS[cls])) expect([key, MAXTEXT_CONFIG_KEYS[cls][key] !== undefined]).toEqual([key, true]);
  }
  expect(MAXTEXT_CONFIG_KEYS.RLConfig['rl.loss_algo']).toBe('RL');
  expect(MAXTEXT_CONFIG_KEYS.MaxTextConfig['dpo.dpo_beta']).toBe('DPO');
  expect(MAXTEXT_CONFIG_KEYS.MaxTextConfig['rl.loss_algo']).toBeUndefined();
});
