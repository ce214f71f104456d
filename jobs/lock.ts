/**
 * The lock of external facts, `post-training.lock.json` at the repository root: what the program cannot know offline,
 * resolved once where the registries and the Hugging Face Hub answer (`npm run lock`, lock/cli.ts) and read by every
 * synth, offline (config/load.ts readLock reads the file; this module parses, validates, writes and looks up). Like a package
 * lock: sorted keys at every level and one entry per line of a diff, so a change reads as what moved.
 *
 * Shape (version 1; the CPU rehearsal reads `datasets` and `models` directly, in Python and TS, so these names stay):
 *   images:   `<image ref as the program writes it>` -> { digest: sha256:<64 hex>, source }
 *   models:   `<hf repo id>@<revision as configured>` -> { commit: <40 hex>, config: {architectures, sizes}, tokenizer }
 *   datasets: `<hf repo id>@<revision as configured>` -> { commit, configs: { <name>: { splits, columns } } }
 *   unresolved: [{ kind, key, why }]: what the lock could not resolve, said honestly.
 * Messages name a place as util/json-path.ts prints it (`images.registry.k8s.io/kubectl:v1.36.2.digest`: keys as they are).
 * A revision not configured is keyed `@main`, huggingface_hub's DEFAULT_REVISION (constants.py at v1.28.0, b2da2d44), the
 * revision the Hub's API answers for when none is named. Pure; no cdktf, no network, no file access.
 */
import { z, ZodIssue } from 'zod';
import { parseImageReference } from './image-ref';
import { jsonPath } from '../util/json-path';
import { jsonProblems } from '../util/json-scan';

/** The lock file's name, at the repository root. */
export const LOCK_FILE = 'post-training.lock.json';
/** The command that writes it. */
export const LOCK_COMMAND = 'npm run lock';
/** The revision a model or dataset without a configured one is locked at (huggingface_hub constants.DEFAULT_REVISION). */
export const DEFAULT_REVISION = 'main';
/** The most a lock file may hold (a lock is a few KB per pipeline). */
export const MAX_LOCK_BYTES = 1024 * 1024;

const SHA256 = /^sha256:[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;
const HEX64 = /^[0-9a-f]{64}$/;
/** A Hub repository id: `owner/name` (huggingface_hub v1.28.0 utils/_validators.py REPO_ID_REGEX: an optional namespace, at most 96 characters). */
const REPO_ID = /^(?:[\w.-]{1,96}\/)?[\w.-]{1,96}$/;

/** A column's type in the lock: text, a chat (a list of {role, content} structs), a number, or anything else. */
export const COLUMN_TYPES = ['text', 'messages', 'number', 'other'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

const digest = z.string().regex(SHA256, 'must be sha256:<64 lowercase hex digits>');
const commit = z.string().regex(COMMIT, 'must be a commit: 40 lowercase hex digits');

const imageEntry = z.object({ digest, source: z.string().min(1).max(2048) }).strict();

const modelEntry = z
  .object({
    commit,
    /** config.json's facts the program uses (architectures, sizes; a nested `text_config`'s sizes hoisted). */
    config: z
      .object({
        architectures: z.array(z.string().max(128)).max(16),
        model_type: z.string().max(128).optional(),
        num_hidden_layers: z.number().int().nonnegative().optional(),
        hidden_size: z.number().int().nonnegative().optional(),
        num_attention_heads: z.number().int().nonnegative().optional(),
        num_key_value_heads: z.number().int().nonnegative().optional(),
        head_dim: z.number().int().nonnegative().optional(),
        vocab_size: z.number().int().nonnegative().optional(),
        rope_theta: z.number().nonnegative().optional(),
        intermediate_size: z.number().int().nonnegative().optional(),
        num_experts: z.number().int().nonnegative().optional(),
        num_experts_per_tok: z.number().int().nonnegative().optional(),
      })
      .strict(),
    /** tokenizer_config.json's facts: the BOS token, whether it is added, whether a chat template exists and its hash. */
    tokenizer: z
      .object({
        bosToken: z.string().max(256).nullable(),
        addBosToken: z.boolean().nullable(),
        chatTemplate: z.boolean(),
        chatTemplateSha256: z.string().regex(HEX64, 'must be 64 lowercase hex digits').nullable().optional(),
      })
      .strict(),
    source: z.string().max(2048).optional(),
  })
  .strict();

const datasetEntry = z
  .object({
    commit,
    configs: z.record(
      z.string().min(1).max(128),
      z
        .object({
          splits: z.array(z.string().min(1).max(128)).min(1).max(64),
          columns: z.record(z.string().min(1).max(256), z.enum(COLUMN_TYPES)),
        })
        .strict(),
    ),
    source: z.string().max(2048).optional(),
  })
  .strict();

const unresolvedEntry = z.object({ kind: z.enum(['image', 'model', 'dataset']), key: z.string().min(1).max(1024), why: z.string().min(1).max(2048) }).strict();

const lockSchema = z
  .object({
    version: z.literal(1),
    images: z.record(z.string(), imageEntry),
    models: z.record(z.string(), modelEntry),
    datasets: z.record(z.string(), datasetEntry),
    unresolved: z.array(unresolvedEntry),
  })
  .strict();

export type Lock = z.infer<typeof lockSchema>;
export type LockedImage = Lock['images'][string];
export type LockedModel = Lock['models'][string];
export type LockedDataset = Lock['datasets'][string];
export type Unresolved = Lock['unresolved'][number];

/** An empty lock (nothing resolved yet). */
export function emptyLock(): Lock {
  return { version: 1, images: {}, models: {}, datasets: {}, unresolved: [] };
}

/** `<repo>@<revision>`: the key of a model or dataset (DEFAULT_REVISION when none is configured). */
export function hubKey(repo: string, revision?: string): string {
  return `${repo}@${revision ?? DEFAULT_REVISION}`;
}

/** The repository and revision of a hub key (the last `@` splits: a repository id holds none). */
export function splitHubKey(key: string): { repo: string; revision: string } | undefined {
  const at = key.lastIndexOf('@');
  if (at <= 0 || at === key.length - 1) return undefined;
  const repo = key.slice(0, at);
  return REPO_ID.test(repo) ? { repo, revision: key.slice(at + 1) } : undefined;
}

/** A place in the lock, printed as the program prints JSON paths (util/json-path.ts): `images.<ref>.digest`. */
export function lockPath(parts: ReadonlyArray<string | number>): string {
  return jsonPath(parts);
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

function valueAt(raw: unknown, parts: ReadonlyArray<string | number>): unknown {
  let node = raw;
  for (const p of parts) node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[p] : undefined;
  return node;
}

/** One zod issue as `label: path: message, got 'value'` (a digest of the wrong length says its length). */
function describe(issue: ZodIssue, raw: unknown, label: string): string {
  const where = lockPath(issue.path);
  const value = valueAt(raw, issue.path);
  let why = issue.message;
  if (issue.code === 'unrecognized_keys') why = `unknown key(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_type' && value === undefined) why = `missing (${issue.expected} required)`;
  let got = value === undefined || issue.code === 'unrecognized_keys' ? '' : `, got '${shown(value)}'`;
  if (typeof value === 'string' && issue.path[issue.path.length - 1] === 'digest' && value.startsWith('sha256:')) {
    got += ` (${value.length - 'sha256:'.length} hex digits, 64 needed)`;
  }
  return `${label}: ${where || '(top level)'}: ${why}${got}`;
}

/** The keys' own problems: an image key must be a tag reference as the program writes it; hub keys `<repo>@<revision>`. */
function keyProblems(lock: Lock, label: string): string[] {
  const out: string[] = [];
  for (const key of Object.keys(lock.images)) {
    const ref = parseImageReference(key);
    if (!ref || ref.tag === undefined || ref.digest !== undefined) {
      out.push(`${label}: ${lockPath(['images', key])}: the key must be an image reference with a tag and no digest, as the program writes it (e.g. registry.k8s.io/kubectl:v1.36.2)`);
    }
  }
  for (const kind of ['models', 'datasets'] as const) {
    for (const key of Object.keys(lock[kind])) {
      if (!splitHubKey(key)) out.push(`${label}: ${lockPath([kind, key])}: the key must be <owner>/<name>@<revision> (a Hub repository id and the revision as configured, ${DEFAULT_REVISION} when none is)`);
    }
  }
  return out;
}

/**
 * Parses and validates a lock file's text; `label` names it in every problem (`post-training.lock.json`). Refuses text
 * that is not JSON (a truncated file), a duplicate key at any depth (JSON.parse would keep the last silently: the
 * program's one scanner, util/json-scan.ts, sees every key), and every value the schema refuses, each naming the entry
 * and the JSON path. Never throws.
 */
export function parseLock(text: string, label: string = LOCK_FILE): { lock: Lock; problems: [] } | { lock?: undefined; problems: string[] } {
  const fix = `fix it by hand only if you know the value; else run \`${LOCK_COMMAND}\` where the registries and the Hub answer`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = text.trim() === '' ? 'is empty' : `is not valid JSON (${(err as Error).message}; truncated or hand-edited?)`;
    return { problems: [`${label}: ${why}; ${fix}`] };
  }
  const duplicates = jsonProblems(text, { maxDepth: 32, max: 10 });
  if (duplicates.length > 0) {
    return {
      problems: duplicates.map((d) => `${label}: ${d.message} at ${d.path || '(top level)'} (line ${d.line}, column ${d.column}): JSON keeps only the last one; remove one, or run \`${LOCK_COMMAND}\``),
    };
  }
  const result = lockSchema.safeParse(raw);
  if (!result.success) return { problems: result.error.issues.slice(0, 20).map((i) => describe(i, raw, label)) };
  const keys = keyProblems(result.data, label);
  return keys.length > 0 ? { problems: keys } : { lock: result.data, problems: [] };
}

/** A value with every object's keys sorted (arrays keep their order). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** The lock as its file holds it: keys sorted at every level, `unresolved` sorted by kind and key, two-space indent, a final newline. */
export function serializeLock(lock: Lock): string {
  const unresolved = [...lock.unresolved].sort((a, b) => (a.kind + '\0' + a.key < b.kind + '\0' + b.key ? -1 : a.kind + '\0' + a.key > b.kind + '\0' + b.key ? 1 : 0));
  return `${JSON.stringify(sorted({ ...lock, unresolved }), null, 2)}\n`;
}

/** What synth takes from the lock (config/load.ts readLock): the lock itself, or none, and where it was read. */
export interface LockFacts {
  /** @default - no lock file: every external fact is unlocked (a note each; refused with requireLock) */
  readonly lock?: Lock;
  /** Where it was read (`post-training.lock.json`). */
  readonly file: string;
}

/** An image as pods pull it: `tag@sha256:...` when the lock has the tag, else the reference as given. */
export function pinnedImage(ref: string, lock: Lock | undefined): string {
  const entry = lock?.images[ref];
  return entry ? `${ref}@${entry.digest}` : ref;
}

/** The image reference as the program writes it (the `tag` part of `tag@sha256:...`), the key of the lock. */
export function unpinnedImage(ref: string): string {
  const at = ref.indexOf('@sha256:');
  return at >= 0 && parseImageReference(ref.slice(0, at))?.tag !== undefined ? ref.slice(0, at) : ref;
}
