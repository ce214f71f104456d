/** Shared fixtures: the example config with env overrides, and synthesized stacks as objects. */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing, TerraformStack } from 'cdktf';
import { ConfigError, findRepoRoot, loadConfig, LoadedConfig } from '../config/load';
import { loadDeployment } from '../config/deployment';
import { platformFromConfig } from '../config/platform';
import type { Deployment } from '../jobs/deployment';
import { buildApp } from '../stacks/app';
import { Platform } from '../jobs/platform';
import { workflowJobSets } from '../jobs/argo';

/** Env that asks for the single-host pool, so every recipe (rl-llama3 too) has its slice in infra. */
export const WITH_SINGLE_HOST: Readonly<Record<string, string>> = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };

/** Writes a config file derived from config/example.json with `patch` applied to a deep copy; returns its path. */
export function configFile(patch: (c: any) => void): string {
  const copy = JSON.parse(fs.readFileSync(path.join(findRepoRoot(), 'config', 'example.json'), 'utf8'));
  patch(copy);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-config-')), 'config.json');
  fs.writeFileSync(file, JSON.stringify(copy));
  return file;
}

/** The problems loading the deployment with `env` (and `file`) is refused with; throws when it is not refused. */
export function configProblems(env: Record<string, string>, file?: string): readonly string[] {
  try {
    loadDeployment({ env, ...(file ? { file } : {}) });
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

/** The deployment of the example config with `entries` added to its pipelines, and only those built (single-host pool on). */
export function deployPipelines(entries: Record<string, unknown>): Deployment {
  const file = configFile((c) => Object.assign(c.pipelines, entries));
  return loadDeployment({ env: { CONFIG_FILE: file, PIPELINES: Object.keys(entries).join(','), ...WITH_SINGLE_HOST } });
}

/** The message `deployPipelines(entries)` is refused with; throws when it is not refused. */
export function pipelinesError(entries: Record<string, unknown>): string {
  try {
    deployPipelines(entries);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a config error');
}

/** Loads config/example.json with the given env (nothing from the real environment). */
export function exampleConfig(env: Record<string, string> = {}): LoadedConfig {
  return loadConfig({ env });
}

/** The deployment of config/example.json with the given env (what main.ts hands the stacks). */
export function exampleDeployment(env: Record<string, string> = {}): Deployment {
  return loadDeployment({ env });
}

export function examplePlatform(env: Record<string, string> = {}): Platform {
  return platformFromConfig(exampleConfig(env));
}

/**
 * The output folder the stack helpers build into: `cdktf.out` at the repository root, cdktf's default, so the
 * local backend path is the one a user gets (stacks/backend.ts makes it relative to the repository root). Nothing
 * is written there but the (empty) folder itself: Testing.synth keeps the JSON in memory.
 */
export function defaultOutdir(): string {
  const dir = path.join(findRepoRoot(), 'cdktf.out');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Synthesized JSON, computed once per configuration per jest run and handed out as strings (every caller parses its
 * own copy, so no test sees another's mutations). The same configurations are synthesized by many test files; jest
 * gives each file a fresh module registry, so the cache is two-level: this file's Map, then the run's folder that
 * globalSetup makes (__tests__/global-setup.js: TPT_JEST_RUN_DIR/synth, removed at the end of the run, shared by the
 * workers).
 * The key holds everything a synthesis reads: the env, the output folder (the local backend path is relative to
 * it) and the bytes of the config file (CONFIG_FILE, or config/example.json), since a test may rewrite one path.
 * A synthesis that throws is never cached: it runs again, and throws again, for every caller.
 */
const synthCache = new Map<string, string>();
export function cachedSynth(what: string, env: Readonly<Record<string, string>>, outdir: string, compute: () => string): string {
  const root = findRepoRoot();
  const configPath = path.resolve(root, env.CONFIG_FILE || path.join('config', 'example.json'));
  let config: Buffer;
  try {
    config = fs.readFileSync(configPath);
  } catch {
    return compute(); // loadConfig names the unreadable file
  }
  const sortedEnv = Object.keys(env)
    .sort()
    .map((k) => [k, env[k]]);
  const key = createHash('sha256').update(JSON.stringify([what, sortedEnv, outdir])).update(config).digest('hex');
  const hit = synthCache.get(key);
  if (hit !== undefined) return hit;
  const dir = process.env.TPT_JEST_RUN_DIR && path.join(process.env.TPT_JEST_RUN_DIR, 'synth');
  const file = dir ? path.join(dir, `${key}.json`) : undefined;
  if (file && fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8');
    synthCache.set(key, text);
    return text;
  }
  const text = compute();
  synthCache.set(key, text);
  if (file && fs.existsSync(dir!)) {
    // Write then rename, so a parallel worker never reads half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
  return text;
}

/** Synthesized Terraform JSON of one stack of the whole app, as an object (a fresh copy per call). */
export function synthStack(name: string, env: Record<string, string> = {}): any {
  return JSON.parse(synthStackString(name, env));
}

/** The same, as the string the cdktf matchers take. */
export function synthStackString(name: string, env: Record<string, string> = {}): string {
  const outdir = defaultOutdir();
  return cachedSynth(`stack ${name}`, env, outdir, () => {
    const app = buildApp(exampleDeployment(env), { outdir });
    return Testing.synth(app.node.findChild(name) as TerraformStack);
  });
}

/** Resources of one type in a synthesized stack, keyed by logical name. */
export function resources(synth: any, type: string): Record<string, any> {
  return synth.resource?.[type] ?? {};
}

/**
 * The JobSets of a synthesized pipeline stack: each is the manifest of a create template of the stack's Workflow
 * (jobs/argo.ts), in step order, as `{ manifest }` like a kubernetes_manifest resource.
 */
export function stackJobSets(tf: any): Array<{ manifest: any }> {
  const workflows = Object.values<any>(tf.resource?.kubernetes_manifest ?? {}).filter((m) => m.manifest.kind === 'Workflow');
  return workflows.flatMap((w) => workflowJobSets(w.manifest).map((manifest) => ({ manifest })));
}
