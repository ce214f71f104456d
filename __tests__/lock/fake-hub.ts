/**
 * A loopback Hugging Face Hub answering the endpoints lock/hub.ts reads, in the shapes huggingface_hub v1.28.0
 * (b2da2d44) reads them:
 *   - `GET /api/models/{repo}/revision/{rev}` -> `{id, sha, private, gated, siblings: [{rfilename}]}` (hf_api.py
 *     `model_info` path; `ModelInfo.__init__` pops `sha`, `siblings`);
 *   - `GET /api/datasets/{repo}/revision/{rev}` -> `{id, sha, cardData}` (hf_api.py `dataset_info`; `DatasetInfo`
 *     pops `cardData`), the card's YAML `dataset_info` {features, splits} and `configs` as public dataset cards hold it;
 *   - `GET /api/datasets/{repo}/parquet` -> `{config: {split: [urls]}}` (docs.rs hugging-face-client 0.6.0
 *     src/api/get_parquet.rs `GetParquetRes::Repo`);
 *   - `GET /{repo}/resolve/{sha}/{file}` (constants.py HUGGINGFACE_CO_URL_TEMPLATE);
 *   - errors as utils/_http.py `hf_raise_for_status` reads them: `X-Error-Code: GatedRepo | RepoNotFound |
 *     RevisionNotFound` with 401/403/404.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export interface HubRepo {
  /** Revision -> commit. */
  readonly revisions: Readonly<Record<string, string>>;
  /** Files at a commit (models). */
  readonly files?: Readonly<Record<string, unknown>>;
  readonly cardData?: Record<string, unknown>;
  readonly parquet?: Record<string, Record<string, string[]>>;
  /** Answers 401 GatedRepo without the token. */
  readonly gatedToken?: string;
}

export interface FakeHub {
  readonly base: string;
  readonly log: string[];
  readonly models: Record<string, HubRepo>;
  readonly datasets: Record<string, HubRepo>;
  close(): Promise<void>;
}

export async function startFakeHub(models: Record<string, HubRepo>, datasets: Record<string, HubRepo>): Promise<FakeHub> {
  const log: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    log.push(`${req.method} ${path}`);
    const json = (status: number, body: unknown, code?: string) =>
      res.writeHead(status, { 'content-type': 'application/json', ...(code ? { 'x-error-code': code, 'x-error-message': code } : {}) }).end(JSON.stringify(body));
    const gated = (repo: HubRepo) => repo.gatedToken !== undefined && req.headers.authorization !== `Bearer ${repo.gatedToken}`;
    let m = /^\/api\/(models|datasets)\/(.+)\/revision\/(.+)$/.exec(path);
    if (m) {
      const table = m[1] === 'models' ? models : datasets;
      const repo = table[m[2]!];
      if (!repo) return json(401, { error: 'Repository Not Found' }, 'RepoNotFound');
      if (gated(repo)) return json(401, { error: 'Access to this repository is restricted' }, 'GatedRepo');
      const sha = repo.revisions[m[3]!] ?? (Object.values(repo.revisions).includes(m[3]!) ? m[3] : undefined);
      if (!sha) return json(404, { error: `Invalid rev id: ${m[3]}` }, 'RevisionNotFound');
      return json(200, m[1] === 'models'
        ? { _id: 'x', id: m[2], sha, private: false, gated: repo.gatedToken ? 'manual' : false, siblings: Object.keys(repo.files ?? {}).map((rfilename) => ({ rfilename })) }
        : { _id: 'x', id: m[2], sha, private: false, gated: false, ...(repo.cardData ? { cardData: repo.cardData } : {}) });
    }
    m = /^\/api\/datasets\/(.+)\/parquet$/.exec(path);
    if (m) {
      const repo = datasets[m[1]!];
      return repo?.parquet ? json(200, repo.parquet) : json(404, { error: 'Not found' }, 'EntryNotFound');
    }
    m = /^\/(.+)\/resolve\/([0-9a-f]{40})\/(.+)$/.exec(path);
    const repo = m ? models[m[1]!] : undefined;
    if (m && repo) {
      if (gated(repo)) return json(401, { error: 'restricted' }, 'GatedRepo');
      const file = repo.files?.[m[3]!];
      return file === undefined ? json(404, { error: 'Entry not found' }, 'EntryNotFound') : json(200, file);
    }
    return json(404, { error: 'not found' }, 'RepoNotFound');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    models,
    datasets,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export const COMMIT_A = 'a'.repeat(40);
export const COMMIT_B = 'b'.repeat(40);

/** Qwen3-8B's config.json facts (the model table's row: 36 layers, hidden 4096, 8 KV heads) and a chat template. */
export const QWEN3_8B: HubRepo = {
  revisions: { main: COMMIT_A },
  files: {
    'config.json': { architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', num_hidden_layers: 36, hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, vocab_size: 151936, rope_theta: 1000000 },
    'tokenizer_config.json': { bos_token: null, add_bos_token: false, chat_template: '{% for m in messages %}{{ m.content }}{% endfor %}' },
  },
};

/** GSM8K's card: config main with question/answer text columns, train and test (openai/gsm8k README.md). */
export const GSM8K: HubRepo = {
  revisions: { main: COMMIT_A },
  cardData: {
    dataset_info: [
      { config_name: 'main', features: [{ name: 'question', dtype: 'string' }, { name: 'answer', dtype: 'string' }], splits: [{ name: 'train', num_examples: 7473 }, { name: 'test', num_examples: 1319 }] },
      { config_name: 'socratic', features: [{ name: 'question', dtype: 'string' }, { name: 'answer', dtype: 'string' }], splits: [{ name: 'train' }, { name: 'test' }] },
    ],
    configs: [{ config_name: 'main', data_files: [{ split: 'train', path: 'main/train-*' }, { split: 'test', path: 'main/test-*' }] }],
  },
};

/** An ultrachat-like card: default config, a `messages` list of {content, role}, train_sft/test_sft. */
export const ULTRACHAT: HubRepo = {
  revisions: { main: COMMIT_A },
  cardData: {
    dataset_info: {
      features: [
        { name: 'prompt', dtype: 'string' },
        { name: 'messages', list: [{ name: 'content', dtype: 'string' }, { name: 'role', dtype: 'string' }] },
        { name: 'score', dtype: 'float64' },
      ],
      splits: [{ name: 'train_sft' }, { name: 'test_sft' }],
    },
  },
};
