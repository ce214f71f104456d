/**
 * Loads the config: the JSON file (CONFIG_FILE, default config/example.json) with environment variables
 * on top, validated by `configSchema`. The only module that reads process.env or files.
 *
 * Every error names where the bad value came from: `TOPOLOGY (env)` or `config/example.json: tpu.topology`.
 *
 * Step 1a of the data flow (config/deployment.ts `loadDeployment` is config/'s one entry and says the rest): the
 * `LoadedConfig` this returns stays inside config/; only the `Deployment` built from it leaves.
 */
import { withinEditDistance } from '../util/edit-distance';
import * as fs from 'fs';
import * as path from 'path';
import { printParseErrorCode, visit } from 'jsonc-parser';
import { ZodIssue } from 'zod';
import { GKE_LIMITS } from '../jobs/capacity';
import { RECIPES } from '../jobs/recipes';
import { serveNames } from '../jobs/serve';
import { acceleratorTypeExamples, slicesForAcceleratorType, TpuSlice } from '../jobs/tpu';
import { hfTokenSecretIdOf, PlaceholderRef, regionOfZone } from '../jobs/platform';
import { secretCommand } from '../jobs/secrets';
import { bucketDomainNotice, Config, configSchema, isDocumentationRange, SINGLE_HOST_SLICE } from './schema';
import { redact } from '../util/redact';
import { LOCK_FILE, MAX_LOCK_BYTES, parseLock } from '../jobs/lock';
import { jsonProblems } from '../util/json-scan';
import type { LockFacts } from '../jobs/lock';

/** How an environment variable maps onto the config. */
interface EnvBinding {
  readonly env: string;
  /** Dotted path in the config; `pipelines.*` applies to every pipeline entry. */
  readonly path: string;
  readonly kind: 'string' | 'int' | 'bool' | 'list';
}

/** Environment variables the program reads (the tutorials' names where they exist). HF_TOKEN is never read. */
export const ENV_BINDINGS: readonly EnvBinding[] = [
  { env: 'PROJECT', path: 'project', kind: 'string' },
  { env: 'REGION', path: 'region', kind: 'string' },
  { env: 'ZONE', path: 'zone', kind: 'string' },
  { env: 'CLUSTER_NAME', path: 'clusterName', kind: 'string' },
  { env: 'GCS_BUCKET', path: 'bucket', kind: 'string' },
  { env: 'STATE_BUCKET', path: 'stateBucket', kind: 'string' },
  { env: 'AUTHORIZED_CIDR', path: 'controlPlane.authorizedCidrs', kind: 'list' },
  { env: 'ALLOW_PUBLIC_CONTROL_PLANE', path: 'controlPlane.allowPublicAccess', kind: 'bool' },
  { env: 'DNS_ENDPOINT', path: 'controlPlane.dnsEndpoint', kind: 'bool' },
  { env: 'DELETION_PROTECTION', path: 'deletionProtection', kind: 'bool' },
  { env: 'BUCKET_ACCESS', path: 'bucketSettings.access', kind: 'string' },
  { env: 'COMPUTE_TYPE', path: 'tpu.machineType', kind: 'string' },
  { env: 'TOPOLOGY', path: 'tpu.topology', kind: 'string' },
  { env: 'CLUSTER_NODEPOOL_COUNT', path: 'tpu.slices', kind: 'int' },
  { env: 'TPU_CAPACITY', path: 'tpu.capacity', kind: 'string' },
  { env: 'RESERVATION', path: 'tpu.reservation', kind: 'string' },
  { env: 'SINGLE_HOST_CAPACITY', path: 'singleHost.capacity', kind: 'string' },
  { env: 'SINGLE_HOST_RESERVATION', path: 'singleHost.reservation', kind: 'string' },
  { env: 'CLOUD_IMAGE_NAME', path: 'pipelines.*.image', kind: 'string' },
  { env: 'RUN_ID', path: 'pipelines.*.runId', kind: 'string' },
  { env: 'NOTIFY_EMAIL', path: 'notify.emails', kind: 'list' },
];

/** PIPELINES=rl-qwen3,sft-gemma4 enables exactly those pipelines; PIPELINES=none synthesizes only infra. */
export const PIPELINES_ENV = 'PIPELINES';

/**
 * SERVE=rl-qwen3,sft-gemma4 turns on `pipelines.<name>.serve.enabled` for each named pipeline. `npm run deploy --
 * serve-rl-qwen3` (and synth, diff, destroy) sets it from the stack names it is given (scripts/cdktf.mjs), so a serve
 * stack deploys without `serve.enabled` in the file.
 */
export const SERVE_ENV = 'SERVE';
/**
 * REHEARSE=rl-qwen3 adds the stack `rehearse-rl-qwen3` (jobs/rehearsal.ts): `npm run deploy -- rehearse-rl-qwen3` (and
 * synth, diff, destroy) sets it from the stack names it is given (scripts/cdktf.mjs), as SERVE does for serve stacks.
 */
export const REHEARSE_ENV = 'REHEARSE';
/**
 * TEARDOWN=serve-rl-qwen3,infra names the stacks a destroy removes (`npm run destroy -- <stacks>` sets it,
 * scripts/cdktf.mjs): each is synthesized for its teardown (stacks/teardown.ts), so a destroy never reads what may be
 * gone (the export a serve stack reads, a reservation, a pipeline no longer in the config).
 */
export const TEARDOWN_ENV = 'TEARDOWN';
/** The source of a rehearsal asked for by REHEARSE. */
export const REHEARSE_SOURCE = `${REHEARSE_ENV} (env)`;
/** The source of a serve stack turned on by SERVE. */
export const SERVE_SOURCE = `${SERVE_ENV} (env)`;

/**
 * TPU_TYPE=v6e-32 (tutorials 001, 003) is a Cloud TPU accelerator type: read through the TPU table as the machine
 * type and topology it names (fewest VMs first: `v6e-8` is the one 8-chip VM). It must agree with COMPUTE_TYPE and
 * TOPOLOGY when those are set too.
 */
export const TPU_TYPE_ENV = 'TPU_TYPE';

/**
 * Variables the tutorials export that this program never reads, and why: each set one gets one notice line, so a
 * user who exported it does not believe it took effect. The value is never read (HF_TOKEN above all).
 */
/** Where the HF_TOKEN notice names the command, filled in with the config's project and secret (jobs/secrets.ts secretCommand). */
const HF_TOKEN_COMMAND = '<secret command>';

export const UNREAD_TUTORIAL_VARIABLES: Readonly<Record<string, string>> = {
  MODEL_NAME: 'each pipeline recipe names its model; choose pipelines with PIPELINES (e.g. PIPELINES=rl-qwen3)',
  HF_TOKEN: `the token never enters Terraform; store it once with: ${HF_TOKEN_COMMAND} (its value was not read)`,
  CLUSTER_TOOLKIT_VERSION: 'no Cluster Toolkit is used: the infra stack builds the cluster',
  TPU_NAME: 'GKE names the TPU nodes; the single-host pipeline sets TPU_NAME to its pod name',
};

/**
 * TPU_NAME is tutorial 002's Cloud TPU VM (`gcloud compute instances create $TPU_NAME --machine-type=ct6e-standard-8t`
 * on RESERVATION). Set without TPU_TYPE, COMPUTE_TYPE or TOPOLOGY, it asks for that VM: the TPU slices become one
 * single-host v6e-8 (SINGLE_HOST_SLICE) on the main capacity, so that tutorial's four variables alone give its VM.
 */
export const TPU_VM_ENV = 'TPU_NAME';

/** Config paths that may still hold the example config's placeholders, and the variable that replaces each. */
export const PLACEHOLDER_FIELDS: ReadonlyArray<{ readonly path: string; readonly env: string }> = [
  { path: 'project', env: 'PROJECT' },
  { path: 'bucket', env: 'GCS_BUCKET' },
  { path: 'tpu.reservation', env: 'RESERVATION' },
  { path: 'singleHost.reservation', env: 'SINGLE_HOST_RESERVATION' },
  { path: 'controlPlane.authorizedCidrs', env: 'AUTHORIZED_CIDR' },
];

/**
 * The values that say which deployment this is (its project, cluster, region, checkpoint bucket and state bucket; its
 * zone and reservations, which its TPU pools are bound to: dev's reservation in prod's build would replace prod's pools;
 * the addresses its alerts go to).
 * docs/configuration.md "Where a value comes from": a config file other than the example owns them; an environment
 * variable that disagrees with the file stops the program, naming both, unless IDENTITY_FROM says which wins.
 */
export const IDENTITY_FIELDS: readonly string[] = ['project', 'clusterName', 'region', 'bucket', 'stateBucket', 'zone', 'tpu.reservation', 'singleHost.reservation', 'notify.emails'];

/** Whether two config values are the same value (a list, `notify.emails`, compared by its items). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** IDENTITY_FROM=env lets the environment's identity values win over the file's, IDENTITY_FROM=file the file's. */
export const IDENTITY_FROM_ENV = 'IDENTITY_FROM';

/** Every variable the program reads (ENV_BINDINGS and the special ones), each once, for the "did you mean" note. */
export function knownVariables(): readonly string[] {
  // TPU_NAME is both read (TPU_VM_ENV) and noted as unread (UNREAD_TUTORIAL_VARIABLES): listed once.
  return [
    ...new Set([
      ...ENV_BINDINGS.map((b) => b.env),
      PIPELINES_ENV,
      SERVE_ENV,
      REHEARSE_ENV,
      TEARDOWN_ENV,
      TPU_TYPE_ENV,
      TPU_VM_ENV,
      IDENTITY_FROM_ENV,
      'CONFIG_FILE',
      'LOCK_FILE',
      ...Object.keys(UNREAD_TUTORIAL_VARIABLES),
    ]),
  ];
}

/** A value the example config ships that must not reach a cloud: its dotted path, the variable that replaces it, the value. */
export type Placeholder = PlaceholderRef;

/** Largest config file read (a config is a few KB): a bigger one is refused before it is parsed. */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;
/** Longest environment value read. */
export const MAX_ENV_VALUE_LENGTH = 4096;

/** The config file used when CONFIG_FILE is not set, relative to the repository root. */
export const DEFAULT_CONFIG_FILE = 'config/example.json';

/** Thrown when the config is invalid; `issues` holds one line per problem, each naming its source. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    // Each issue on one line, secret shapes redacted (a value is quoted as `got '...'`), what a terminal would hide escaped.
    super(`invalid config:\n${[...new Set(issues)].map((i) => `  - ${escapeText(redact(i), true)}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  readonly config: Config;
  /** Config file read, relative to the repository root when inside it. */
  readonly file: string;
  /** Dotted config path -> where the value came from (`TOPOLOGY (env)`, `config/example.json: tpu.topology`). */
  readonly sources: Readonly<Record<string, string>>;
  /** Absolute repository root (holds package.json and charts/). */
  readonly repoRoot: string;
  /** One line each for what the user should know but is not an error (unread variables, warnings); main prints them. */
  readonly notices: readonly string[];
  /** Example-config placeholders still in the config: synth works offline, a plan fails at once (constructs/preflight.ts). */
  readonly placeholders: readonly Placeholder[];
  /** True when PIPELINES chose the pipelines: exactly those, each must fit. */
  readonly pipelinesSelected: boolean;
  /** The pipelines REHEARSE names, each synthesized as `rehearse-<name>` (jobs/rehearsal.ts). @default - none */
  readonly rehearse?: readonly string[];
  /** The stacks TEARDOWN names: synthesized for their destroy (stacks/teardown.ts). @default - none */
  readonly teardown?: readonly string[];
  /** Every leaf of the resolved config (an array is one value) -> where it came from (`sourceOf`). */
  readonly provenance: Readonly<Record<string, string>>;
  /** The config file and the variables this deployment was built from (`originOf`). */
  readonly origin: Origin;
  /** The lock (readLock); undefined when LoadOptions.lock is `ignore`. */
  readonly lock?: LockFacts;
}

/** Which config file and which environment variables a deployment was built from (jobs/deployment.ts EnvironmentOrigin). */
export interface Origin {
  readonly configFile: string;
  /** The variables that set a value, in ENV_BINDINGS order, each once. */
  readonly variables: readonly string[];
  /** `config/dev.json (CONFIG_FILE) and env PROJECT, CLUSTER_NAME`, or `... and no environment variable`. */
  readonly builtFrom: string;
}

export interface LoadOptions {
  /** Environment to read. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Config file path (absolute or relative to the repository root). @default env CONFIG_FILE, else config/example.json */
  readonly file?: string;
  /**
   * `ignore`: build without the lock (no pins, no lock checks, requireLock not enforced): what `npm run lock` builds to
   * learn what to lock. @default 'read'
   */
  readonly lock?: 'read' | 'ignore';
  /** The lock file (absolute or relative to the repository root). @default env LOCK_FILE, else post-training.lock.json */
  readonly lockFile?: string;
}

/**
 * Escapes what a terminal would hide or garble in a message: control characters, and everything outside printable
 * ASCII (zero-width spaces, non-breaking spaces, look-alike letters, a byte-order mark), as JSON escapes (`\u200b`,
 * `\t`), so `got 'us-east5\u200b'` shows why a value that looks right was refused. Newlines are kept unless
 * `oneLine` (a value, or one issue line).
 */
export function escapeText(text: string, oneLine = false): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if ((code >= 0x20 && code <= 0x7e) || (ch === '\n' && !oneLine)) out += ch;
    else if (JSON_ESCAPES[ch]) out += JSON_ESCAPES[ch];
    else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return out;
}
const JSON_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/**
 * Reads the config file as strict JSON (RFC 8259, UTF-8): refuses a directory, a file over MAX_CONFIG_FILE_BYTES, a
 * byte-order mark, UTF-16, bytes that are not UTF-8, a syntax error (jsonc-parser, with its line and column) and a
 * duplicate key (JSON.parse would keep the last value silently; util/json-scan.ts sees every key), syntax errors first.
 */
function readConfigFile(absolute: string, label: string): Record<string, unknown> {
  let bytes: Buffer;
  try {
    const stat = fs.statSync(absolute);
    if (stat.isDirectory()) throw new ConfigError([`${label}: is a directory; name a JSON config file such as ${DEFAULT_CONFIG_FILE}`]);
    if (!stat.isFile()) throw new ConfigError([`${label}: is not a regular file; name a JSON config file such as ${DEFAULT_CONFIG_FILE}`]);
    if (stat.size > MAX_CONFIG_FILE_BYTES) {
      throw new ConfigError([`${label}: config file is ${stat.size} bytes; at most ${MAX_CONFIG_FILE_BYTES} are read (a config is a few KB)`]);
    }
    bytes = fs.readFileSync(absolute);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new ConfigError([`${label}: cannot read config: ${reason}`]);
  }
  const encoding = (why: string) => new ConfigError([`${label}: ${why}; save the config as UTF-8 without a byte-order mark`]);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw encoding('starts with a UTF-8 byte-order mark (\\ufeff)');
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw encoding(`is UTF-16 (byte-order mark 0x${bytes.subarray(0, 2).toString('hex')})`);
  }
  if (bytes.includes(0)) throw encoding(`holds a NUL byte at offset ${bytes.indexOf(0)} (UTF-16 without a byte-order mark, or not text)`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw encoding('is not valid UTF-8');
  }
  const problems: string[] = [];
  visit(
    text,
    {
      onError: (code, _offset, _length, line, column) => {
        problems.push(`${label}: not valid JSON: ${printParseErrorCode(code)} at line ${line + 1}, column ${column + 1}`);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  if (problems.length > 0) throw new ConfigError(problems.slice(0, 10));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${label}: not valid JSON: ${(err as Error).message}`]);
  }
  // Duplicate keys at any depth (util/json-scan.ts, the scanner the review uses on plans), with line and column.
  const duplicates = jsonProblems(text, { maxDepth: Infinity, max: 10 });
  if (duplicates.length > 0) {
    throw new ConfigError(duplicates.map((d) => `${label}: duplicate key '${d.path}' (line ${d.line}, column ${d.column}): JSON keeps only the last one; remove one`));
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError([`${label}: the config file must hold a JSON object`]);
  return raw as Record<string, unknown>;
}

/** Finds the repository root: the nearest ancestor of this module holding package.json and charts/. */
export function findRepoRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'charts'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the repository root (package.json + charts/) above ${start}`);
    dir = parent;
  }
}

/** Loads, merges and validates the config. Throws ConfigError naming every bad value and its source. */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const repoRoot = findRepoRoot();
  const fileArg = options.file ?? nonEmpty(env.CONFIG_FILE) ?? DEFAULT_CONFIG_FILE;
  const absolute = path.resolve(repoRoot, fileArg);
  const file = path.relative(repoRoot, absolute).startsWith('..') ? absolute : path.relative(repoRoot, absolute);
  // The file came from CONFIG_FILE (not from `options.file`): its errors and the origin line say so.
  const fromConfigFileEnv = options.file === undefined && nonEmpty(env.CONFIG_FILE) !== undefined;

  const raw = readConfigFile(absolute, `${file}${fromConfigFileEnv ? ' (CONFIG_FILE)' : ''}`);
  const layers = layerEnvironment({ env, raw, file, repoRoot, absolute });
  const { sources, notices, given } = layers;
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => describeIssue(issue, file, sources, raw)));
  }
  const loadedBase = { file, sources };
  notices.push(...configNotices(result.data, env, loadedBase, layers.tpuVm));
  const placeholders = findPlaceholders(result.data, repoRoot);
  notices.push(...placeholderNotices(placeholders, loadedBase));
  return {
    config: result.data,
    file,
    sources,
    repoRoot,
    notices,
    placeholders,
    pipelinesSelected: layers.selection !== undefined,
    ...rehearseOf(given(REHEARSE_ENV)),
    ...teardownOf(given(TEARDOWN_ENV)),
    provenance: provenanceOf(result.data, loadedBase),
    origin: originOf(file, fromConfigFileEnv, sources),
    ...(options.lock === 'ignore' ? {} : { lock: readLock(repoRoot, options.lockFile ?? nonEmpty(env.LOCK_FILE)) }),
  };
}

/** What `layerEnvironment` reads: the environment, the file's raw object (changed in place) and where it lives. */
interface LayerInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly raw: Record<string, unknown>;
  /** The config file as LoadedConfig.file names it. */
  readonly file: string;
  readonly repoRoot: string;
  /** The config file's absolute path. */
  readonly absolute: string;
}

/** One load in progress: the raw object the environment is laid over, where each value came from, what to tell. */
interface Layers {
  readonly raw: Record<string, unknown>;
  /** Dotted config path -> `VAR (env)` for each value the environment set. */
  readonly sources: Record<string, string>;
  readonly problems: string[];
  readonly notices: string[];
  /** A variable's value; undefined when unset or empty, and (a problem) when over MAX_ENV_VALUE_LENGTH. */
  readonly given: (name: string) => string | undefined;
}

/**
 * Lays the environment over the file's raw object, in this order (each rule reads what the ones before it set):
 * capacity pairs, the bindings, the single-host switch, REGION from ZONE, TPU_TYPE, TPU_NAME, PIPELINES, SERVE, the
 * identity fields. Throws ConfigError with every problem found; returns the layers, TPU_NAME's value when it chose the
 * TPU pool, and PIPELINES's value.
 */
function layerEnvironment(input: LayerInput): Layers & { readonly tpuVm?: string; readonly selection?: string } {
  const { env, raw } = input;
  const problems: string[] = [];
  const layers: Layers = { raw, sources: {}, problems, notices: [], given: givenOf(env, problems) };
  const { sources, given } = layers;
  // The file's own identity values, before the environment is laid over them (resolveIdentity compares): before the
  // capacity pairs too, which drop the file's reservation when the environment names the pool's capacity.
  const fileIdentity = new Map(IDENTITY_FIELDS.map((f) => [f, getPath(raw, f)] as const));
  applyCapacityPairs(layers);
  applyBindings(layers);
  // Asking for the single-host pool through its variables turns it on, whatever the file's `enabled` says.
  const singleHostEnv = ['SINGLE_HOST_RESERVATION', 'SINGLE_HOST_CAPACITY'].find((name) => given(name) !== undefined);
  if (singleHostEnv) {
    setPath(raw, 'singleHost.enabled', true);
    sources['singleHost.enabled'] = `${singleHostEnv} (env)`;
  }
  // REGION unset: the region of ZONE (tutorial 002 exports ZONE only).
  const zone = given('ZONE')?.trim();
  const derivedRegion = zone !== undefined && given('REGION') === undefined ? regionOfZone(zone) : undefined;
  if (derivedRegion !== undefined) {
    setPath(raw, 'region', derivedRegion);
    sources.region = 'ZONE (env)';
  }
  applyTpuType(given(TPU_TYPE_ENV), raw, sources, problems);
  const tpuVm = applyTpuVm(layers);
  const selection = applyPipelineSelection(layers);
  applyServe(given(SERVE_ENV), raw, sources, problems);
  const identity = { file: input.file, fileIdentity, example: exampleIdentity(input.repoRoot, input.absolute), preference: given(IDENTITY_FROM_ENV) };
  resolveIdentity(identity, raw, sources, problems, layers.notices);
  layers.notices.push(...misspelledVariables(env));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...layers, tpuVm, selection };
}

/** A variable's value, or undefined when unset or empty; a value over MAX_ENV_VALUE_LENGTH is a problem and undefined. */
function givenOf(env: Readonly<Record<string, string | undefined>>, problems: string[]): (name: string) => string | undefined {
  return (name) => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    if (value.length > MAX_ENV_VALUE_LENGTH) {
      problems.push(`${name} (env): is ${value.length} characters long; at most ${MAX_ENV_VALUE_LENGTH} are read`);
      return undefined;
    }
    return value;
  };
}

/**
 * Env over file for the capacity of a pool as a unit: TPU_CAPACITY=spot replaces the file's reservation, and
 * RESERVATION replaces the file's spot. Within one layer, a reservation with spot/flex-start is an error (schema).
 */
function applyCapacityPairs({ raw, sources, given }: Layers): void {
  for (const [block, capacityEnv, reservationEnv] of [
    ['tpu', 'TPU_CAPACITY', 'RESERVATION'],
    ['singleHost', 'SINGLE_HOST_CAPACITY', 'SINGLE_HOST_RESERVATION'],
  ] as const) {
    const node = raw[block];
    const replacing = [capacityEnv, reservationEnv].find((name) => given(name) !== undefined);
    if (replacing && node && typeof node === 'object' && !Array.isArray(node)) {
      delete (node as Record<string, unknown>).capacity;
      delete (node as Record<string, unknown>).reservation;
      // The pair now comes from the environment: a missing half is that variable's doing, not the file's.
      sources[`${block}.capacity`] = sources[`${block}.reservation`] = `${replacing} (env)`;
    }
  }
}

/** ENV_BINDINGS, each set variable parsed and written to its path(s); RUN_ID and CLOUD_IMAGE_NAME reach every recipe. */
function applyBindings({ raw, sources, problems, given }: Layers): void {
  // RUN_ID and CLOUD_IMAGE_NAME apply to every pipeline, also those the file does not list.
  if (ENV_BINDINGS.some((b) => b.path.startsWith('pipelines.*.') && given(b.env) !== undefined)) {
    const pipelines = (raw.pipelines ??= {}) as Record<string, unknown>;
    if (pipelines !== null && typeof pipelines === 'object' && !Array.isArray(pipelines)) {
      for (const name of Object.keys(RECIPES)) pipelines[name] ??= {};
    }
  }
  for (const binding of ENV_BINDINGS) {
    const value = given(binding.env);
    if (value === undefined) continue;
    const parsed = parseEnv(binding, value);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      problems.push(`${binding.env} (env): ${parsed.error}`);
      continue;
    }
    for (const target of expand(binding.path, raw)) {
      setPath(raw, target, parsed);
      sources[target] = `${binding.env} (env)`;
    }
  }
}

/** TPU_NAME without TPU_TYPE, COMPUTE_TYPE or TOPOLOGY: the TPU pool is tutorial 002's one v6e-8 VM. Returns TPU_NAME then. */
function applyTpuVm({ raw, sources, notices, given }: Layers): string | undefined {
  const tpuVm = [TPU_TYPE_ENV, 'COMPUTE_TYPE', 'TOPOLOGY'].every((name) => given(name) === undefined) ? given(TPU_VM_ENV) : undefined;
  if (tpuVm === undefined) return undefined;
  for (const [p, v] of [
    ['tpu.machineType', SINGLE_HOST_SLICE.machineType],
    ['tpu.topology', SINGLE_HOST_SLICE.topology],
    ...(given('CLUSTER_NODEPOOL_COUNT') === undefined ? [['tpu.slices', 1] as const] : []),
  ] as const) {
    setPath(raw, p, v);
    sources[p] = `${TPU_VM_ENV} (env)`;
  }
  notices.push(
    `${TPU_VM_ENV} is set (tutorial 002's TPU VM) without TPU_TYPE, COMPUTE_TYPE or TOPOLOGY: the TPU pool is that VM, one ` +
      `${SINGLE_HOST_SLICE.machineType} ${SINGLE_HOST_SLICE.topology} (v6e-8) on the main capacity (RESERVATION); GKE names the node, ` +
      `so the value itself is not used. Set TPU_TYPE (e.g. TPU_TYPE=v6e-32) for another shape`,
  );
  return tpuVm;
}

/** PIPELINES: exactly the listed pipelines are on (`none`: none). Returns PIPELINES's value when set. */
function applyPipelineSelection({ raw, sources, given }: Layers): string | undefined {
  const selection = given(PIPELINES_ENV);
  if (selection === undefined) return undefined;
  const wanted = selection.trim() === 'none' ? [] : selection.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const pipelines = (raw.pipelines ??= {}) as Record<string, Record<string, unknown>>;
  // Exactly the listed pipelines, whatever the file lists: every other recipe is off (enabledPipelines reads
  // pipelinesSelected), a listed one not in the file gets an entry.
  for (const name of new Set([...Object.keys(pipelines), ...wanted])) {
    if (!pipelines[name]) sources[`pipelines.${name}`] = `${PIPELINES_ENV} (env)`;
    pipelines[name] = { ...(pipelines[name] ?? {}), enabled: wanted.includes(name) };
    sources[`pipelines.${name}.enabled`] = `${PIPELINES_ENV} (env)`;
  }
  return selection;
}

/** Notices about the valid config: tutorial variables set but not read, the bucket's name, the node pool count. */
function configNotices(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  loaded: Pick<LoadedConfig, 'file' | 'sources'>,
  tpuVm: string | undefined,
): string[] {
  const notices: string[] = [];
  // The HF_TOKEN note gives the command for this config's project and per-cluster secret.
  const tokenCommand = secretCommand(config.project, hfTokenSecretIdOf(config.clusterName));
  for (const [name, why] of Object.entries(UNREAD_TUTORIAL_VARIABLES)) {
    if (name === TPU_VM_ENV && tpuVm !== undefined) continue;
    if (env[name] !== undefined && env[name] !== '') notices.push(`${name} is set but not read by this program: ${why.replace(HF_TOKEN_COMMAND, tokenCommand)}`);
  }
  const bucketNotice = bucketDomainNotice(config.bucket, sourceOf(loaded, 'bucket'));
  if (bucketNotice) notices.push(bucketNotice);
  // system + cpu-np + one pool per slice (+ the single-host pool).
  const pools = 2 + config.tpu.slices + (config.singleHost?.enabled ? 1 : 0);
  if (pools > GKE_LIMITS.nodePoolsBeforeAutoscalerSlowdown) {
    notices.push(
      `${sourceOf(loaded, 'tpu.slices')}: ${pools} node pools: above ${GKE_LIMITS.nodePoolsBeforeAutoscalerSlowdown} GKE's cluster autoscaler ` +
        'slows down (GKE "Configure node pool auto-creation"); the CPU pool may take longer to scale',
    );
  }
  return notices;
}

/** The example's own values in one line, then a line for each documentation range the user set (no "placeholder of the example"). */
function placeholderNotices(placeholders: readonly Placeholder[], loaded: Pick<LoadedConfig, 'file' | 'sources'>): string[] {
  const notices: string[] = [];
  const ranges = placeholders.filter((p) => p.description === documentationRangeText(p.path, p.env, p.value));
  const fromExample = placeholders.filter((p) => !ranges.includes(p));
  if (fromExample.length > 0) {
    notices.push(
      `placeholders of the example config still set (synth works; a plan stops on them, before anything is created): ` +
        fromExample.map((p) => p.description).join('; '),
    );
  }
  for (const p of ranges) notices.push(`${sourceOf(loaded, p.path)}: ${p.description}; a plan stops on it, before anything is created`);
  return notices;
}

/** The config file and the variables a deployment was built from: every synth, review and status names them. */
function originOf(file: string, fromConfigFileEnv: boolean, sources: Readonly<Record<string, string>>): Origin {
  const set = new Set(Object.values(sources).filter((s) => s.endsWith(' (env)')).map((s) => s.slice(0, -' (env)'.length)));
  const order = knownVariables();
  const variables = [...set].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const label = `${file}${fromConfigFileEnv ? ' (CONFIG_FILE)' : file === DEFAULT_CONFIG_FILE ? ' (the default: CONFIG_FILE unset)' : ''}`;
  return { configFile: file, variables, builtFrom: `${label} and ${variables.length > 0 ? `env ${variables.join(', ')}` : 'no environment variable'}` };
}

/** The example config's identity placeholders (values the environment fills), or 'is-example' when the file read is the example. */
function exampleIdentity(repoRoot: string, absolute: string): ReadonlyMap<string, unknown> | 'is-example' {
  const example = path.join(repoRoot, DEFAULT_CONFIG_FILE);
  if (path.resolve(absolute) === example) return 'is-example';
  try {
    const values = JSON.parse(fs.readFileSync(example, 'utf8')) as Record<string, unknown>;
    // Only the example's placeholders (project, bucket): its region and cluster name are real defaults a file owns.
    const placeholders = IDENTITY_FIELDS.filter((f) => PLACEHOLDER_FIELDS.some((p) => p.path === f));
    return new Map(placeholders.map((f) => [f, getPath(values, f)] as const));
  } catch {
    return new Map();
  }
}

interface IdentityInput {
  readonly file: string;
  /** The file's identity values before the environment was laid over them. */
  readonly fileIdentity: ReadonlyMap<string, unknown>;
  /** The example config's (values copied from it are placeholders, not a choice), or 'is-example'. */
  readonly example: ReadonlyMap<string, unknown> | 'is-example';
  /** IDENTITY_FROM's value. @default - unset: a disagreement stops the program */
  readonly preference?: string;
}

/**
 * docs/configuration.md "Where a value comes from": a config file other than the example owns the deployment's
 * identity (IDENTITY_FIELDS). A variable that sets one of them to another value than the file stops the program with
 * both sources named, unless IDENTITY_FROM=env (the variable wins, with a note) or IDENTITY_FROM=file (the file's value
 * is kept, with a note). A value the file copied from the example is a placeholder the environment may fill.
 */
function resolveIdentity(input: IdentityInput, raw: Record<string, unknown>, sources: Record<string, string>, problems: string[], notices: string[]): void {
  const preference = input.preference?.trim();
  if (preference !== undefined && preference !== 'env' && preference !== 'file') {
    problems.push(`${IDENTITY_FROM_ENV} (env): must be env or file (which wins when the config file and the environment disagree on ${IDENTITY_FIELDS.join(', ')}), got '${preference}'`);
    return;
  }
  if (input.example === 'is-example') return;
  const example = input.example;
  const conflicts = IDENTITY_FIELDS.filter((f) => {
    const fileValue = input.fileIdentity.get(f);
    // A value the environment removed (TPU_CAPACITY=spot drops the reservation) names no other deployment.
    const envValue = getPath(raw, f);
    return sources[f]?.endsWith(' (env)') && fileValue !== undefined && envValue !== undefined && !sameValue(fileValue, example.get(f)) && !sameValue(fileValue, envValue);
  });
  if (conflicts.length === 0) return;
  const both = (f: string) => `${sources[f]} is ${shown(getPath(raw, f))}, ${input.file}: ${f} is ${shown(input.fileIdentity.get(f))}`;
  if (preference === 'env') {
    notices.push(`${IDENTITY_FROM_ENV}=env: the environment wins over ${input.file}: ${conflicts.map(both).join('; ')}`);
    return;
  }
  if (preference === 'file') {
    notices.push(`${IDENTITY_FROM_ENV}=file: ${input.file} wins over the environment, which is ignored for: ${conflicts.map(both).join('; ')}`);
    for (const f of conflicts) {
      setPath(raw, f, input.fileIdentity.get(f));
      delete sources[f];
    }
    return;
  }
  for (const f of conflicts) {
    const variable = sources[f]!.slice(0, -' (env)'.length);
    problems.push(
      `${both(f)}: the config file and the environment name different deployments; unset ${variable} to use the file's, or say which wins: ` +
        `${IDENTITY_FROM_ENV}=file (the file's) or ${IDENTITY_FROM_ENV}=env (the environment's)`,
    );
  }
}


/**
 * One note per set variable that this program does not read but whose name is close to one it does (one edit for a
 * name under 8 characters, two from 8 on): `TPU_CAPACTIY is set but not read by this program: did you mean TPU_CAPACITY?`.
 */
export function misspelledVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  const known = knownVariables();
  const notes: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.includes(name) || !/^[A-Z][A-Z0-9_]{3,}$/.test(name) || env[name] === undefined || env[name] === '') continue;
    const limit = name.length >= 8 ? 2 : 1;
    const near = known.filter((k) => withinEditDistance(name, k, limit));
    if (near.length > 0) notes.push(`${name} is set but not read by this program: did you mean ${near.join(' or ')}? (its value was not read)`);
  }
  return notes;
}

/** REHEARSE: the names it lists, each once (config/pipelines.ts checks and builds them). */
function rehearseOf(value: string | undefined): { rehearse?: string[] } {
  const names = [...new Set((value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return names.length > 0 ? { rehearse: names } : {};
}

/** TEARDOWN: the stack names it lists, each once (checked by `teardownProblems`). */
function teardownOf(value: string | undefined): { teardown?: string[] } {
  const names = [...new Set((value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return names.length > 0 ? { teardown: names } : {};
}

/**
 * What is wrong with a stack name a destroy was given: not a stack name at all, or a rehearsal of a serve stack (there
 * is none). A name this config no longer builds is fine: its teardown stack destroys what its state key holds.
 */
export function teardownProblems(names: readonly string[]): string[] {
  const source = `${TEARDOWN_ENV} (env)`;
  return names.flatMap((name) => {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name)) return [`${source}: '${escapeText(name)}' is not a stack name (infra, <pipeline>, serve-<pipeline>, rehearse-<pipeline>)`];
    if (name.startsWith('rehearse-serve-')) return [`${source}: ${name} names the rehearsal of a serve stack: a serve stack has no training to rehearse (rehearse-${name.slice('rehearse-serve-'.length)})`];
    return [];
  });
}

/** SERVE: `serve.enabled` on for each named pipeline, a preset or an entry of the file; any other name is a problem. */
function applyServe(value: string | undefined, raw: Record<string, unknown>, sources: Record<string, string>, problems: string[]): void {
  if (value === undefined) return;
  const node = (raw.pipelines ??= {}) as Record<string, unknown>;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const pipelines = node as Record<string, Record<string, unknown>>;
  const known = [...new Set([...Object.keys(pipelines), ...Object.keys(RECIPES)])];
  for (const name of new Set(value.split(',').map((s) => s.trim()).filter((s) => s !== ''))) {
    // A pipeline named serve-<x> is its own stack: `npm run deploy -- serve-x` asks for that pipeline, not a server.
    if (!known.includes(name) && known.includes(serveNames(name).stack)) continue;
    if (!known.includes(name)) {
      problems.push(`${SERVE_SOURCE}: no pipeline named '${name}' to serve (stack ${serveNames(name).stack}); pipelines: ${known.join(', ')}`);
      continue;
    }
    const entry = (pipelines[name] ??= {});
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue;
    const serve = entry.serve;
    // A file value that is not an object is left for the schema to refuse under its own key, not replaced.
    if (serve !== undefined && (serve === null || typeof serve !== 'object' || Array.isArray(serve))) continue;
    entry.serve = { ...serve, enabled: true };
    sources[`pipelines.${name}.serve.enabled`] = SERVE_SOURCE;
  }
}

/** Every leaf of the resolved config (an array is one value) -> where it came from. */
function provenanceOf(config: Config, loaded: Pick<LoadedConfig, 'file' | 'sources'>): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (node: unknown, prefix: string) => {
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
      for (const [key, value] of Object.entries(node)) walk(value, prefix === '' ? key : `${prefix}.${key}`);
    } else if (prefix !== '') {
      out[prefix] = sourceOf(loaded, prefix);
    }
  };
  walk(config, '');
  return out;
}

/** TPU_TYPE -> tpu.machineType + tpu.topology through the TPU table; conflicts with COMPUTE_TYPE/TOPOLOGY are errors. */
function applyTpuType(value: string | undefined, raw: Record<string, unknown>, sources: Record<string, string>, problems: string[]): void {
  if (value === undefined) return;
  const acceleratorType = value.trim();
  const candidates = slicesForAcceleratorType(acceleratorType);
  if (candidates.length === 0) {
    problems.push(`${TPU_TYPE_ENV} (env): must be a Cloud TPU accelerator type of the TPU table such as ${acceleratorTypeExamples()}, got '${acceleratorType}'`);
    return;
  }
  const fromEnv = (p: string) => sources[p]?.endsWith('(env)') ?? false;
  const machineType = fromEnv('tpu.machineType') ? String(getPath(raw, 'tpu.machineType')) : undefined;
  const topology = fromEnv('tpu.topology') ? String(getPath(raw, 'tpu.topology')) : undefined;
  const fits = candidates.filter((s) => (machineType === undefined || s.machineType === machineType) && (topology === undefined || s.topology === topology));
  const shape = (s: TpuSlice) => `${s.machineType} ${s.topology}`;
  if (fits.length === 0) {
    const set = [machineType !== undefined ? `COMPUTE_TYPE (env) is '${machineType}'` : '', topology !== undefined ? `TOPOLOGY (env) is '${topology}'` : '']
      .filter((x) => x !== '')
      .join(' and ');
    problems.push(
      `${TPU_TYPE_ENV} (env): '${acceleratorType}' is ${candidates.map(shape).join(' or ')}, but ${set}; make them agree or unset one`,
    );
    return;
  }
  const chosen = fits[0];
  for (const [p, v] of [
    ['tpu.machineType', chosen.machineType],
    ['tpu.topology', chosen.topology],
  ] as const) {
    if (!fromEnv(p)) {
      setPath(raw, p, v);
      sources[p] = `${TPU_TYPE_ENV} (env)`;
    }
  }
}

/**
 * The example config's values at PLACEHOLDER_FIELDS, read on each load (a few KB, as exampleIdentity reads it): the
 * example file is the one home of the placeholders, and no load depends on which load came first in the process.
 */
function exampleValues(repoRoot: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  let example: Record<string, unknown> = {};
  try {
    example = JSON.parse(fs.readFileSync(path.join(repoRoot, DEFAULT_CONFIG_FILE), 'utf8')) as Record<string, unknown>;
  } catch {
    // No example file: only the documentation ranges count as placeholders.
  }
  const kind = (p: string) => (p.endsWith('reservation') ? 'reservation' : p);
  for (const field of PLACEHOLDER_FIELDS) {
    const v = getPath(example, field.path);
    const set = values.get(kind(field.path)) ?? new Set<string>();
    for (const item of Array.isArray(v) ? v : v === undefined ? [] : [v]) set.add(String(item));
    values.set(kind(field.path), set);
  }
  return values;
}

/** A documentation range set by the user (not the example's value): what it is and how to get a real address. */
function documentationRangeText(configPath: string, env: string, value: string): string {
  return `${configPath} '${value}' is a documentation range (RFC 5737), no real address (set ${env} to yours: curl -4 -s ifconfig.me)`;
}

/** Every placeholder still in the config: a value the example file ships, or an RFC 5737 documentation range. */
export function findPlaceholders(config: Config, repoRoot: string): Placeholder[] {
  const values = exampleValues(repoRoot);
  const out: Placeholder[] = [];
  const plain = config as unknown as Record<string, unknown>;
  for (const field of PLACEHOLDER_FIELDS) {
    // A single-host block that builds no pool deploys nothing: its placeholder reservation is harmless.
    if (field.path.startsWith('singleHost.') && !config.singleHost?.enabled) continue;
    const v = getPath(plain, field.path);
    const known = values.get(field.path.endsWith('reservation') ? 'reservation' : field.path) ?? new Set<string>();
    for (const item of Array.isArray(v) ? v : v === undefined ? [] : [v]) {
      const value = String(item);
      if (known.has(value)) {
        // The one-line description: the plan-time guard's message and the synth-time note.
        out.push({ path: field.path, env: field.env, value, description: `${field.path} '${value}' (set ${field.env})` });
      } else if (field.path === 'controlPlane.authorizedCidrs' && isDocumentationRange(value)) {
        // Not the example's value: one the user set, from a range that is no real client's address.
        out.push({ path: field.path, env: field.env, value, description: documentationRangeText(field.path, field.env, value) });
      }
    }
  }
  return out;
}

/** The source label for a dotted config path: env var, or `file: path`. */
export function sourceOf(loaded: Pick<LoadedConfig, 'file' | 'sources'>, dottedPath: string): string {
  let probe = dottedPath;
  for (;;) {
    if (loaded.sources[probe]) return loaded.sources[probe];
    const cut = probe.lastIndexOf('.');
    if (cut < 0) return `${loaded.file}: ${dottedPath}`;
    probe = probe.slice(0, cut);
  }
}

/**
 * Fields whose value a check on another field depends on: when the two came from different places (REGION from the
 * environment, zone from the file), the message names both, so the user fixes the one they set.
 */
const RELATED_FIELDS: Readonly<Record<string, string>> = {
  zone: 'region',
  stateBucket: 'bucket',
  'singleHost.reservation': 'tpu.reservation',
};

/** A value as a message shows it: strings quoted, the rest as JSON, long ones cut. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function describeIssue(issue: ZodIssue, file: string, sources: Record<string, string>, raw: Record<string, unknown>): string {
  const dotted = issue.path.join('.');
  const where = dotted === '' ? file : sourceOf({ file, sources }, dotted);
  if (issue.code === 'invalid_enum_value') {
    return `${where}: must be one of ${issue.options.join(', ')}, got '${String(issue.received)}'`;
  }
  let message = issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
  // zod's own messages ("Number must be less than or equal to 10080") do not show the value: add it.
  const value = dotted === '' ? undefined : getPath(raw, dotted);
  const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (value !== undefined && scalar && !/\bgot\b/.test(message)) message += `, got ${shown(value)}`;
  const related = RELATED_FIELDS[dotted];
  if (related !== undefined) {
    const relatedSource = sourceOf({ file, sources }, related);
    // The file's keys are one place (`file: zone`, `file: region`); each variable is a place of its own.
    const place = (source: string) => (source.startsWith(`${file}: `) ? file : source);
    if (place(relatedSource) !== place(where)) message += ` (${related.split('.').pop()} ${shown(getPath(raw, related))} from ${relatedSource})`;
  }
  return `${where}: ${message}`;
}

function parseEnv(binding: EnvBinding, value: string): unknown {
  switch (binding.kind) {
    case 'string':
      return value.trim();
    case 'list':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    case 'int': {
      if (!/^-?\d+$/.test(value.trim())) return { error: `must be a whole number, got '${value}'` };
      return Number(value.trim());
    }
    case 'bool': {
      const v = value.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(v)) return true;
      if (['false', '0', 'no'].includes(v)) return false;
      return { error: `must be true or false, got '${value}'` };
    }
  }
}

/** Expands `pipelines.*.image` to one path per pipeline entry in the file. */
function expand(dotted: string, raw: Record<string, unknown>): string[] {
  const star = dotted.indexOf('.*.');
  if (star < 0) return [dotted];
  const head = dotted.slice(0, star);
  const tail = dotted.slice(star + 3);
  const container = getPath(raw, head);
  if (container === null || typeof container !== 'object') return [];
  return Object.keys(container as object).map((key) => `${head}.${key}.${tail}`);
}

function getPath(obj: Record<string, unknown>, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), obj);
}

function setPath(obj: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = obj;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads the lock of external facts (jobs/lock.ts), `post-training.lock.json` at the repository root: config/ is the
 * only layer that reads files. No lock file is no lock (each unlocked fact a note, refused with `requireLock`); a lock
 * that does not parse or validate is refused, naming each entry and JSON path, whatever `requireLock` says: a
 * hand-edited or truncated lock must never pin an image silently to something else. Returns `{file}` alone when
 * there is none; throws ConfigError on a bad lock.
 */
export function readLock(repoRoot: string, file: string = LOCK_FILE): LockFacts {
  const absolute = path.resolve(repoRoot, file);
  let text: string;
  try {
    const stat = fs.statSync(absolute);
    if (!stat.isFile()) throw new ConfigError([`${file}: is not a regular file; it must be the lock \`npm run lock\` writes`]);
    if (stat.size > MAX_LOCK_BYTES) throw new ConfigError([`${file}: is ${stat.size} bytes; at most ${MAX_LOCK_BYTES} are read`]);
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file };
    throw new ConfigError([`${file}: cannot read the lock: ${(err as Error).message}`]);
  }
  const parsed = parseLock(text, file);
  if (!parsed.lock) throw new ConfigError(parsed.problems);
  return { lock: parsed.lock, file };
}
