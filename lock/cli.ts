/**
 * `npm run lock [-- --check] [--config <file>]...`: resolves every external fact the configs under config/ name (every
 * image any stack uses, every model and dataset a pipeline reads) and writes post-training.lock.json (jobs/lock.ts),
 * sorted and stable. Run where the registries and the Hugging Face Hub answer (a laptop, CI); synth only reads the
 * file. `--check` writes nothing and fails when a tag or revision moved since the lock (naming old and new), when the
 * lock lacks something the configs use, or when something cannot be resolved.
 *
 * Where it asks: REGISTRY_ENDPOINTS (a JSON map from a registry host to a base URL, `{"registry-1.docker.io":
 * "http://127.0.0.1:5000"}`), HF_ENDPOINT (as huggingface_hub reads it), HF_TOKEN for gated repositories (sent, never
 * written), and `gcloud auth print-access-token` for Artifact Registry. An entry point: it imports config/.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'node:util';
import { loadConfig, findRepoRoot, LoadedConfig } from '../config/load';
import { pipelineRecipes } from '../config/pipelines';
import { emptyLock, Lock, LOCK_FILE, parseLock, serializeLock, splitHubKey, Unresolved } from '../jobs/lock';
import { lockTargetsOf } from '../jobs/lock-apply';
import { resolveImage, RegistryClientOptions } from './registry';
import { resolveDataset, resolveModel, HubClientOptions } from './hub';

/** What the lock must hold: image refs, model keys, dataset keys (sorted, each once). */
export interface LockTargets {
  readonly images: readonly string[];
  readonly models: readonly string[];
  readonly datasets: readonly string[];
}

/** The config files under config/ (config/*.json and config/examples/*.json), relative to the repository root. */
export function configFiles(repoRoot: string): string[] {
  const list = (dir: string) =>
    fs.existsSync(path.join(repoRoot, dir))
      ? fs.readdirSync(path.join(repoRoot, dir)).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f))
      : [];
  return [...list('config'), ...list(path.join('config', 'examples'))].sort();
}

/** The targets of the loaded configs: every recipe of every config (enabled or not), and the program's images. */
export function targetsOf(configs: readonly LoadedConfig[]): LockTargets {
  const images = new Set<string>();
  const models = new Set<string>();
  const datasets = new Set<string>();
  for (const loaded of configs) {
    const { recipes } = pipelineRecipes(loaded);
    for (const [name, recipe] of Object.entries(recipes)) {
      const image = loaded.config.pipelines[name]?.image;
      const t = lockTargetsOf(image !== undefined ? { ...recipe, image } : recipe);
      t.images.forEach((i) => images.add(i));
      t.models.forEach((m) => models.add(m));
      t.datasets.forEach((d) => datasets.add(d));
    }
  }
  return { images: [...images].sort(), models: [...models].sort(), datasets: [...datasets].sort() };
}

export interface ResolveOptions {
  readonly registry: RegistryClientOptions;
  readonly hub: HubClientOptions;
}

/** Resolves every target; what fails is `unresolved` with why. */
export async function resolveTargets(targets: LockTargets, o: ResolveOptions): Promise<Lock> {
  const lock = emptyLock();
  const unresolved: Unresolved[] = [];
  for (const ref of targets.images) {
    const r = await resolveImage(ref, o.registry);
    if ('digest' in r) lock.images[ref] = { digest: r.digest, source: r.source };
    else unresolved.push({ kind: 'image', key: ref, why: r.problem });
  }
  for (const [kind, keys] of [['model', targets.models], ['dataset', targets.datasets]] as const) {
    for (const key of keys) {
      const at = splitHubKey(key)!;
      const r = kind === 'model' ? await resolveModel(at.repo, at.revision, o.hub) : await resolveDataset(at.repo, at.revision, o.hub);
      if ('value' in r) {
        if (kind === 'model') lock.models[key] = r.value as Lock['models'][string];
        else lock.datasets[key] = r.value as Lock['datasets'][string];
      } else unresolved.push({ kind, key, why: r.problem });
    }
  }
  return { ...lock, unresolved };
}

/** What moved between the lock and a fresh resolution, and what the lock lacks or could not be resolved now. */
export function checkLock(old: Lock | undefined, fresh: Lock, targets: LockTargets): string[] {
  const out: string[] = [];
  for (const ref of targets.images) {
    const was = old?.images[ref]?.digest;
    const now = fresh.images[ref]?.digest;
    if (was && now && was !== now) out.push(`image ${ref} moved: the lock has ${was}, the registry now ${now}; run \`npm run lock\` and review what changed`);
    else if (!was && now) out.push(`image ${ref} is not in ${LOCK_FILE} (the registry has ${now}); run \`npm run lock\``);
  }
  for (const kind of ['models', 'datasets'] as const) {
    for (const key of targets[kind]) {
      const was = old?.[kind][key]?.commit;
      const now = fresh[kind][key]?.commit;
      if (was && now && was !== now) out.push(`${kind === 'models' ? 'model' : 'dataset'} ${key} moved: the lock has commit ${was}, the Hub now ${now}; run \`npm run lock\` and review what changed`);
      else if (!was && now) out.push(`${kind === 'models' ? 'model' : 'dataset'} ${key} is not in ${LOCK_FILE} (the Hub has ${now}); run \`npm run lock\``);
    }
  }
  // Each why names its image or repository already (`image <ref>: ...`).
  for (const u of fresh.unresolved) out.push(`cannot check: ${u.why}`);
  return out;
}

/** The user's Google access token for Artifact Registry, or undefined (gcloud missing or logged out). */
function gcloudToken(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('gcloud', ['auth', 'print-access-token'], { timeout: 30_000 }, (err, stdout) => resolve(err ? undefined : stdout.trim() || undefined));
  });
}

/** `fn`, asked once (the gcloud token for every Artifact Registry image). */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** REGISTRY_ENDPOINTS as a map, or a problem naming the variable. */
export function registryEndpoints(value: string | undefined): Record<string, string> | { problem: string } {
  if (value === undefined || value.trim() === '') return {};
  try {
    const map = JSON.parse(value) as unknown;
    if (map === null || typeof map !== 'object' || Array.isArray(map) || !Object.values(map).every((v) => typeof v === 'string' && /^https?:\/\//.test(v))) {
      return { problem: 'REGISTRY_ENDPOINTS must be a JSON object from a registry host to a base URL, e.g. {"registry-1.docker.io": "http://127.0.0.1:5000"}' };
    }
    return map as Record<string, string>;
  } catch (err) {
    return { problem: `REGISTRY_ENDPOINTS is not JSON (${(err as Error).message}); e.g. {"registry-1.docker.io": "http://127.0.0.1:5000"}` };
  }
}

/** Where the CLI writes (process.stdout, or a test's collector). */
export interface Writer {
  write(text: string): unknown;
}

const USAGE = 'usage: npm run lock [-- --check] [--config <file>]... [--lock <file>]';

/** The CLI; resolves to the exit status. */
export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, out: Writer = process.stdout, err: Writer = process.stderr, googleToken: () => Promise<string | undefined> = once(gcloudToken)): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: [...argv], options: { check: { type: 'boolean' }, config: { type: 'string', multiple: true }, lock: { type: 'string' }, help: { type: 'boolean' } }, strict: true, allowPositionals: false });
  } catch (e) {
    err.write(`lock: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const endpoints = registryEndpoints(env.REGISTRY_ENDPOINTS);
  if ('problem' in endpoints) {
    err.write(`lock: ${endpoints.problem}\n`);
    return 2;
  }
  const repoRoot = findRepoRoot();
  const lockFile = path.resolve(repoRoot, args.values.lock ?? LOCK_FILE);
  const files = args.values.config ?? configFiles(repoRoot);
  const configs: LoadedConfig[] = [];
  for (const file of files) {
    try {
      configs.push(loadConfig({ file, env: { ...env, CONFIG_FILE: undefined, PIPELINES: undefined, SERVE: undefined, REHEARSE: undefined }, lock: 'ignore' }));
    } catch (e) {
      err.write(`lock: ${file}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  const targets = targetsOf(configs);
  out.write(`lock: ${targets.images.length} image(s), ${targets.models.length} model(s), ${targets.datasets.length} dataset(s) from ${files.length} config(s)\n`);
  const fresh = await resolveTargets(targets, {
    registry: { endpoints, googleToken, log: (line) => err.write(`lock: ${line}\n`) },
    hub: { ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT } : {}), ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}) },
  });
  if (args.values.check) {
    let old: Lock | undefined;
    if (fs.existsSync(lockFile)) {
      const parsed = parseLock(fs.readFileSync(lockFile, 'utf8'), path.relative(repoRoot, lockFile));
      if (!parsed.lock) {
        parsed.problems.forEach((p) => err.write(`lock: ${p}\n`));
        return 1;
      }
      old = parsed.lock;
    }
    const moved = checkLock(old, fresh, targets);
    moved.forEach((m) => err.write(`lock --check: ${m}\n`));
    if (moved.length === 0) out.write(`lock --check: ${path.relative(repoRoot, lockFile)} is current\n`);
    return moved.length === 0 ? 0 : 1;
  }
  fs.writeFileSync(lockFile, serializeLock(fresh));
  for (const u of fresh.unresolved) err.write(`lock: unresolved ${u.kind} ${u.key}: ${u.why}\n`);
  out.write(`lock: wrote ${path.relative(repoRoot, lockFile)} (${Object.keys(fresh.images).length} image(s), ${Object.keys(fresh.models).length} model(s), ${Object.keys(fresh.datasets).length} dataset(s) locked; ${fresh.unresolved.length} unresolved)\n`);
  return fresh.unresolved.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
