/**
 * Loads the config: the JSON file (CONFIG_FILE, default config/example.json) with environment variables
 * on top, validated by `configSchema`. The only module that reads process.env or files.
 *
 * Every error names where the bad value came from: `TOPOLOGY (env)` or `config/example.json: tpu.topology`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ZodIssue } from 'zod';
import { Config, configSchema } from './schema';

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
  { env: 'COMPUTE_TYPE', path: 'tpu.machineType', kind: 'string' },
  { env: 'TOPOLOGY', path: 'tpu.topology', kind: 'string' },
  { env: 'CLUSTER_NODEPOOL_COUNT', path: 'tpu.slices', kind: 'int' },
  { env: 'TPU_CAPACITY', path: 'tpu.capacity', kind: 'string' },
  { env: 'RESERVATION', path: 'tpu.reservation', kind: 'string' },
  { env: 'SINGLE_HOST_RESERVATION', path: 'singleHost.reservation', kind: 'string' },
  { env: 'CLOUD_IMAGE_NAME', path: 'pipelines.*.image', kind: 'string' },
  { env: 'RUN_ID', path: 'pipelines.*.runId', kind: 'string' },
];

/** PIPELINES=rl-qwen3,sft-gemma4 enables exactly those pipelines; PIPELINES=none synthesizes only infra. */
export const PIPELINES_ENV = 'PIPELINES';

/** The config file used when CONFIG_FILE is not set, relative to the repository root. */
export const DEFAULT_CONFIG_FILE = 'config/example.json';

/** Thrown when the config is invalid; `issues` holds one line per problem, each naming its source. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid config:\n${[...new Set(issues)].map((i) => `  - ${i}`).join('\n')}`);
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
}

export interface LoadOptions {
  /** Environment to read. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Config file path (absolute or relative to the repository root). @default env CONFIG_FILE, else config/example.json */
  readonly file?: string;
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

  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(fs.readFileSync(absolute, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new ConfigError([`${file}${env.CONFIG_FILE ? ' (CONFIG_FILE)' : ''}: cannot read config: ${reason}`]);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError([`${file}: the config file must hold a JSON object`]);
  }

  const sources: Record<string, string> = {};
  const problems: string[] = [];
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.env];
    if (value === undefined || value === '') continue;
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
  const selection = nonEmpty(env[PIPELINES_ENV]);
  if (selection !== undefined) {
    const wanted = selection === 'none' ? [] : selection.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const pipelines = (raw.pipelines ??= {}) as Record<string, Record<string, unknown>>;
    for (const name of new Set([...Object.keys(pipelines), ...wanted])) {
      if (!pipelines[name]) sources[`pipelines.${name}`] = `${PIPELINES_ENV} (env)`;
      pipelines[name] = { ...(pipelines[name] ?? {}), enabled: wanted.includes(name) };
      sources[`pipelines.${name}.enabled`] = `${PIPELINES_ENV} (env)`;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const result = configSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => describeIssue(issue, file, sources)));
  }
  return { config: result.data, file, sources, repoRoot };
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

function describeIssue(issue: ZodIssue, file: string, sources: Record<string, string>): string {
  const dotted = issue.path.join('.');
  const where = dotted === '' ? file : sourceOf({ file, sources }, dotted);
  const message = issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
  if (issue.code === 'invalid_enum_value') {
    return `${where}: must be one of ${issue.options.join(', ')}, got '${String(issue.received)}'`;
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
