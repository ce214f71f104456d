/**
 * Reads the Hugging Face Hub's public API for the lock: only these endpoints, all under HF_ENDPOINT (huggingface_hub
 * v1.28.0, b2da2d44, src/huggingface_hub/constants.py: `ENDPOINT = os.getenv("HF_ENDPOINT", "https://huggingface.co")
 * .rstrip("/")`):
 *   - `GET {endpoint}/api/models/{repo_id}/revision/{quote(revision, safe='')}` -> `{sha, ...}` (hf_api.py `model_info`);
 *   - `GET {endpoint}/api/datasets/{repo_id}/revision/{quote(revision)}` -> `{sha, cardData, ...}` (hf_api.py
 *     `dataset_info`; `cardData` is the card's YAML: `dataset_info` (one object, or a list with `config_name`) with
 *     `features` ({name, dtype} or {name, list|sequence|struct}) and `splits` ([{name}]), and `configs`
 *     ([{config_name, data_files: [{split, path}]}]), as the datasets library writes it);
 *   - `GET {endpoint}/api/datasets/{repo_id}/parquet` -> `{<config>: {<split>: [urls]}}`, the Hub's parquet conversion,
 *     asked only when the card declares no `dataset_info` (response shape: docs.rs hugging-face-client 0.6.0
 *     src/api/get_parquet.rs `GetParquetRes::Repo`);
 *   - `GET {endpoint}/{repo_id}/resolve/{sha}/config.json` and `tokenizer_config.json` (constants.py
 *     HUGGINGFACE_CO_URL_TEMPLATE `{endpoint}/{repo_id}/resolve/{revision}/{filename}`).
 * A gated or private repository answers 401/403 (`X-Error-Code: GatedRepo`, huggingface_hub utils/_http.py
 * `hf_raise_for_status`); HF_TOKEN, read as huggingface_hub reads it, is sent as a bearer token and never written.
 */
import { createHash } from 'crypto';
import type { ColumnType, LockedDataset, LockedModel } from '../jobs/lock';

export interface HubClientOptions {
  /** HF_ENDPOINT. @default https://huggingface.co */
  readonly endpoint?: string;
  /** HF_TOKEN (a gated model's access). @default - anonymous */
  readonly token?: string;
  /** @default 30000 */
  readonly timeoutMs?: number;
}

export type HubResult<T> = { readonly value: T } | { readonly problem: string };

class Failure extends Error {}

function endpointOf(o: HubClientOptions): string {
  return (o.endpoint ?? 'https://huggingface.co').replace(/\/+$/, '');
}

async function getJson(url: string, what: string, o: HubClientOptions): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: o.token ? { authorization: `Bearer ${o.token}` } : {}, redirect: 'follow', signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    throw new Failure(`${what}: ${new URL(url).host} did not answer (${e.name === 'TimeoutError' ? 'timed out' : e.cause?.code ?? e.cause?.message ?? e.message}); check the network or HF_ENDPOINT`);
  }
  if (res.ok) {
    try {
      return await res.json();
    } catch {
      throw new Failure(`${what}: ${url} answered ${res.status} with a body that is not JSON`);
    }
  }
  const code = res.headers.get('x-error-code');
  const page = `${endpointOf(o)}/${url.includes('/api/datasets/') || url.includes('/datasets/') ? 'datasets/' : ''}`;
  if (code === 'GatedRepo' || ((res.status === 401 || res.status === 403) && o.token)) {
    throw new Failure(`${what}: the Hub answered ${res.status} (${code ?? 'no access'}): accept the repository's terms on its page (${page}...) with your account and set HF_TOKEN to a read token of that account`);
  }
  if (res.status === 401 || res.status === 404) {
    const why = code === 'RevisionNotFound' ? 'no such revision' : code === 'RepoNotFound' || res.status === 401 ? 'no such repository, or a private one' : 'not found';
    throw new Failure(`${what}: the Hub answered ${res.status} (${why}); check the name and revision in the config${o.token ? '' : ', or set HF_TOKEN if the repository is private'}`);
  }
  throw new Failure(`${what}: the Hub answered ${res.status} ${res.statusText}`);
}

const enc = (s: string) => encodeURIComponent(s);
const repoPath = (repo: string) => repo.split('/').map(enc).join('/');
const COMMIT = /^[0-9a-f]{40}$/;

function shaOf(info: unknown, what: string): string {
  const sha = (info as { sha?: unknown } | null)?.sha;
  if (typeof sha !== 'string' || !COMMIT.test(sha)) throw new Failure(`${what}: the Hub's answer has no commit (sha)`);
  return sha;
}

/** The sizes the model table compares, from config.json (a nested `text_config`'s, as Gemma 3/4 hold them). */
export function configFacts(config: Record<string, unknown>): LockedModel['config'] {
  const text = (config.text_config && typeof config.text_config === 'object' ? config.text_config : {}) as Record<string, unknown>;
  const pick = (key: string): number | undefined => {
    const v = config[key] ?? text[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const ints = ['num_hidden_layers', 'hidden_size', 'num_attention_heads', 'num_key_value_heads', 'head_dim', 'vocab_size', 'intermediate_size', 'num_experts', 'num_experts_per_tok'] as const;
  const out: Record<string, unknown> = {
    architectures: Array.isArray(config.architectures) ? config.architectures.filter((a): a is string => typeof a === 'string') : [],
    ...(typeof config.model_type === 'string' ? { model_type: config.model_type } : {}),
  };
  for (const key of ints) {
    const v = pick(key);
    if (v !== undefined && Number.isInteger(v) && v >= 0) out[key] = v;
  }
  const theta = pick('rope_theta');
  if (theta !== undefined) out.rope_theta = theta;
  return out as LockedModel['config'];
}

/** tokenizer_config.json's facts: `bos_token` (a string or an AddedToken `{content}`), `add_bos_token`, the chat template. */
export function tokenizerFacts(config: Record<string, unknown>): LockedModel['tokenizer'] {
  const bos = config.bos_token;
  const bosToken = typeof bos === 'string' ? bos : bos && typeof bos === 'object' && typeof (bos as { content?: unknown }).content === 'string' ? (bos as { content: string }).content : null;
  const template = config.chat_template;
  const text = typeof template === 'string' ? template : Array.isArray(template) ? JSON.stringify(template) : undefined;
  return {
    bosToken,
    addBosToken: typeof config.add_bos_token === 'boolean' ? config.add_bos_token : null,
    chatTemplate: text !== undefined,
    chatTemplateSha256: text !== undefined ? createHash('sha256').update(text).digest('hex') : null,
  };
}

/** A model repository at a revision: its commit, config.json's and tokenizer_config.json's facts. */
export async function resolveModel(repo: string, revision: string, o: HubClientOptions = {}): Promise<HubResult<LockedModel>> {
  const what = `model ${repo}@${revision}`;
  const base = endpointOf(o);
  try {
    const sha = shaOf(await getJson(`${base}/api/models/${repoPath(repo)}/revision/${enc(revision)}`, what, o), what);
    const config = (await getJson(`${base}/${repoPath(repo)}/resolve/${sha}/config.json`, `${what} config.json`, o)) as Record<string, unknown>;
    let tokenizer: Record<string, unknown> = {};
    try {
      tokenizer = (await getJson(`${base}/${repoPath(repo)}/resolve/${sha}/tokenizer_config.json`, `${what} tokenizer_config.json`, o)) as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof Failure) || !/ 404 /.test(err.message)) throw err;
    }
    return { value: { commit: sha, config: configFacts(config ?? {}), tokenizer: tokenizerFacts(tokenizer ?? {}), source: `${base}/api/models/${repo}/revision/${revision}` } };
  } catch (err) {
    return { problem: err instanceof Failure ? err.message : `${what}: ${(err as Error).message}` };
  }
}

/** A feature of the card's `dataset_info.features` as the lock's column type. */
export function columnType(feature: Record<string, unknown>): ColumnType {
  const dtype = feature.dtype;
  if (typeof dtype === 'string') {
    if (dtype === 'string' || dtype === 'large_string') return 'text';
    if (/^(u?int\d+|float\d+|bool|double)$/.test(dtype)) return 'number';
    return 'other';
  }
  const inner = feature.list ?? feature.sequence ?? feature.large_list;
  const fields = Array.isArray(inner) ? (inner as Array<Record<string, unknown>>) : inner && typeof inner === 'object' && Array.isArray((inner as { struct?: unknown }).struct) ? ((inner as { struct: Array<Record<string, unknown>> }).struct) : undefined;
  if (fields) {
    const text = (name: string) => fields.some((f) => f.name === name && (f.dtype === 'string' || f.dtype === 'large_string'));
    if (text('role') && text('content')) return 'messages';
  }
  return 'other';
}

type CardInfo = { config_name?: unknown; features?: unknown; splits?: unknown };

/** The configs of a dataset card: `dataset_info` (features, splits) and `configs` (data_files' splits). */
export function cardConfigs(card: Record<string, unknown> | undefined): LockedDataset['configs'] {
  const out: Record<string, { splits: string[]; columns: Record<string, ColumnType> }> = {};
  const infos = card?.dataset_info === undefined ? [] : Array.isArray(card.dataset_info) ? (card.dataset_info as CardInfo[]) : [card.dataset_info as CardInfo];
  for (const info of infos) {
    if (!info || typeof info !== 'object') continue;
    const name = typeof info.config_name === 'string' ? info.config_name : 'default';
    const features = Array.isArray(info.features) ? (info.features as Array<Record<string, unknown>>) : [];
    const splits = Array.isArray(info.splits) ? (info.splits as Array<{ name?: unknown }>).flatMap((s) => (typeof s?.name === 'string' ? [s.name] : [])) : [];
    out[name] = { splits, columns: Object.fromEntries(features.flatMap((f) => (typeof f?.name === 'string' ? [[f.name, columnType(f)]] : []))) };
  }
  const configs = Array.isArray(card?.configs) ? (card!.configs as Array<{ config_name?: unknown; data_files?: unknown }>) : [];
  for (const c of configs) {
    if (typeof c?.config_name !== 'string') continue;
    const files = Array.isArray(c.data_files) ? (c.data_files as Array<{ split?: unknown }>) : [];
    const splits = files.flatMap((f) => (typeof f?.split === 'string' ? [f.split] : []));
    const entry = (out[c.config_name] ??= { splits: [], columns: {} });
    for (const s of splits) if (!entry.splits.includes(s)) entry.splits.push(s);
  }
  return out;
}

/** A dataset repository at a revision: its commit, configs, splits and column types. */
export async function resolveDataset(repo: string, revision: string, o: HubClientOptions = {}): Promise<HubResult<LockedDataset>> {
  const what = `dataset ${repo}@${revision}`;
  const base = endpointOf(o);
  try {
    const info = (await getJson(`${base}/api/datasets/${repoPath(repo)}/revision/${enc(revision)}`, what, o)) as { cardData?: Record<string, unknown> };
    const sha = shaOf(info, what);
    let configs = cardConfigs(info.cardData);
    let source = `${base}/api/datasets/${repo}/revision/${revision} (cardData)`;
    if (Object.values(configs).every((c) => c.splits.length === 0)) {
      const parquet = (await getJson(`${base}/api/datasets/${repoPath(repo)}/parquet`, `${what} parquet listing`, o)) as Record<string, Record<string, unknown>>;
      configs = Object.fromEntries(Object.entries(parquet ?? {}).map(([name, splits]) => [name, { splits: Object.keys(splits ?? {}), columns: configs[name]?.columns ?? {} }]));
      source = `${base}/api/datasets/${repo}/parquet (splits; the card declares none)`;
    }
    const usable = Object.fromEntries(Object.entries(configs).filter(([, c]) => c.splits.length > 0));
    if (Object.keys(usable).length === 0) return { problem: `${what}: neither the card (dataset_info, configs) nor the parquet listing names a split` };
    return { value: { commit: sha, configs: usable, source } };
  } catch (err) {
    return { problem: err instanceof Failure ? err.message : `${what}: ${(err as Error).message}` };
  }
}
