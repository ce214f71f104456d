/**
 * lock/hub.ts against a loopback Hub (fake-hub.ts, the shapes huggingface_hub v1.28.0 reads): a model's commit,
 * config.json's and tokenizer_config.json's facts; a dataset's commit, configs, splits and column types (from the
 * card, else the parquet listing); a gated repository, a missing one, a missing revision, each named with what to do.
 */
import { cardConfigs, columnType, configFacts, resolveDataset, resolveModel, tokenizerFacts } from '../../lock/hub';
import { COMMIT_A, FakeHub, GSM8K, QWEN3_8B, startFakeHub, ULTRACHAT } from './fake-hub';

let hub: FakeHub;
beforeEach(async () => {
  hub = await startFakeHub(
    { 'Qwen/Qwen3-8B': QWEN3_8B, 'meta-llama/Llama-3.1-8B-Instruct': { ...QWEN3_8B, gatedToken: 'hf_good' } },
    { 'openai/gsm8k': GSM8K, 'HuggingFaceH4/ultrachat_200k': ULTRACHAT, 'acme/no-card': { revisions: { main: COMMIT_A }, parquet: { default: { train: ['u'], validation: ['v'] } } } },
  );
});
afterEach(() => hub.close());

test('a model: its commit, the sizes the table compares and the tokenizer facts (chat template hashed)', async () => {
  const r = await resolveModel('Qwen/Qwen3-8B', 'main', { endpoint: hub.base });
  expect(r).toEqual({
    value: {
      commit: COMMIT_A,
      config: { architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', num_hidden_layers: 36, hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, vocab_size: 151936, rope_theta: 1000000 },
      tokenizer: { bosToken: null, addBosToken: false, chatTemplate: true, chatTemplateSha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      source: `${hub.base}/api/models/Qwen/Qwen3-8B/revision/main`,
    },
  });
  expect(hub.log).toEqual(['GET /api/models/Qwen/Qwen3-8B/revision/main', `GET /Qwen/Qwen3-8B/resolve/${COMMIT_A}/config.json`, `GET /Qwen/Qwen3-8B/resolve/${COMMIT_A}/tokenizer_config.json`]);
});

test('a gated model: named with what to do; with the token it resolves', async () => {
  const r = await resolveModel('meta-llama/Llama-3.1-8B-Instruct', 'main', { endpoint: hub.base });
  expect(r).toEqual({ problem: expect.stringMatching(/^model meta-llama\/Llama-3\.1-8B-Instruct@main: the Hub answered 401 \(GatedRepo\): accept the repository's terms .* set HF_TOKEN to a read token/) });
  expect(await resolveModel('meta-llama/Llama-3.1-8B-Instruct', 'main', { endpoint: hub.base, token: 'hf_good' })).toMatchObject({ value: { commit: COMMIT_A } });
});

test('a missing repository and a missing revision are named', async () => {
  expect(await resolveModel('acme/nothing', 'main', { endpoint: hub.base })).toEqual({
    problem: 'model acme/nothing@main: the Hub answered 401 (no such repository, or a private one); check the name and revision in the config, or set HF_TOKEN if the repository is private',
  });
  expect(await resolveModel('Qwen/Qwen3-8B', 'v9', { endpoint: hub.base })).toEqual({
    problem: 'model Qwen/Qwen3-8B@v9: the Hub answered 404 (no such revision); check the name and revision in the config, or set HF_TOKEN if the repository is private',
  });
});

test('a dataset: its commit, configs, splits and column types from the card', async () => {
  expect(await resolveDataset('openai/gsm8k', 'main', { endpoint: hub.base })).toEqual({
    value: {
      commit: COMMIT_A,
      configs: { main: { splits: ['train', 'test'], columns: { question: 'text', answer: 'text' } }, socratic: { splits: ['train', 'test'], columns: { question: 'text', answer: 'text' } } },
      source: `${hub.base}/api/datasets/openai/gsm8k/revision/main (cardData)`,
    },
  });
  expect(await resolveDataset('HuggingFaceH4/ultrachat_200k', 'main', { endpoint: hub.base })).toMatchObject({
    value: { configs: { default: { splits: ['train_sft', 'test_sft'], columns: { prompt: 'text', messages: 'messages', score: 'number' } } } },
  });
});

test('a dataset whose card declares no splits: the parquet listing gives them (columns unknown)', async () => {
  expect(await resolveDataset('acme/no-card', 'main', { endpoint: hub.base })).toEqual({
    value: { commit: COMMIT_A, configs: { default: { splits: ['train', 'validation'], columns: {} } }, source: `${hub.base}/api/datasets/acme/no-card/parquet (splits; the card declares none)` },
  });
});

test('the Hub unreachable: named, with HF_ENDPOINT', async () => {
  await hub.close();
  expect(await resolveDataset('openai/gsm8k', 'main', { endpoint: hub.base })).toEqual({
    problem: `dataset openai/gsm8k@main: ${new URL(hub.base).host} did not answer (ECONNREFUSED); check the network or HF_ENDPOINT`,
  });
  hub = await startFakeHub({}, {});
});

test('column types: text, numbers, {role, content} lists (list, sequence), anything else', () => {
  expect(columnType({ name: 'a', dtype: 'large_string' })).toBe('text');
  expect(columnType({ name: 'a', dtype: 'int64' })).toBe('number');
  expect(columnType({ name: 'a', dtype: 'bool' })).toBe('number');
  expect(columnType({ name: 'a', dtype: 'image' })).toBe('other');
  expect(columnType({ name: 'm', list: [{ name: 'role', dtype: 'string' }, { name: 'content', dtype: 'string' }] })).toBe('messages');
  expect(columnType({ name: 'm', sequence: { struct: [{ name: 'role', dtype: 'string' }, { name: 'content', dtype: 'string' }] } })).toBe('messages');
  expect(columnType({ name: 'm', list: [{ name: 'text', dtype: 'string' }] })).toBe('other');
  expect(cardConfigs(undefined)).toEqual({});
});

test('config facts hoist a nested text_config (Gemma); tokenizer facts read an AddedToken bos_token', () => {
  expect(configFacts({ architectures: ['Gemma3ForConditionalGeneration'], text_config: { num_hidden_layers: 48, hidden_size: 3840 } })).toEqual({
    architectures: ['Gemma3ForConditionalGeneration'], num_hidden_layers: 48, hidden_size: 3840,
  });
  expect(tokenizerFacts({ bos_token: { content: '<bos>', lstrip: false }, add_bos_token: true })).toEqual({ bosToken: '<bos>', addBosToken: true, chatTemplate: false, chatTemplateSha256: null });
});
