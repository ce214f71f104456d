/** Shared fixtures: the example config with env overrides, and synthesized stacks as objects. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing, TerraformStack } from 'cdktf';
import { findRepoRoot, loadConfig, LoadedConfig } from '../config/load';
import { loadDeployment } from '../config/deployment';
import { platformFromConfig } from '../config/platform';
import type { Deployment } from '../jobs/deployment';
import { buildApp } from '../stacks/app';
import { Platform } from '../jobs/platform';

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

/** Synthesized Terraform JSON of one stack of the whole app, as an object. */
export function synthStack(name: string, env: Record<string, string> = {}): any {
  const app = buildApp(exampleDeployment(env), { outdir: defaultOutdir() });
  const stack = app.node.findChild(name) as TerraformStack;
  return JSON.parse(Testing.synth(stack));
}

/** The same, as the string the cdktf matchers take. */
export function synthStackString(name: string, env: Record<string, string> = {}): string {
  const app = buildApp(exampleDeployment(env), { outdir: defaultOutdir() });
  return Testing.synth(app.node.findChild(name) as TerraformStack);
}

/** Resources of one type in a synthesized stack, keyed by logical name. */
export function resources(synth: any, type: string): Record<string, any> {
  return synth.resource?.[type] ?? {};
}
