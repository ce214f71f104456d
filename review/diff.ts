/**
 * Domain diff between two syntheses (the PR's base ref and its head), per stack: resources added, removed and
 * changed, worded the way a reviewer thinks ("TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16"),
 * with the raw attribute paths that changed underneath.
 *
 * The wording comes from `describe.ts` (the resource describers), shared with `plan.ts`, which words real plan
 * actions the same way.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { attributeChanges, AttributeChange } from './attributes';
import { describeResource } from './describe';
import { readSynthesis, SynthesizedStack, synthesize, Synthesis, TerraformJson } from './load';
import { extractStack } from './model';
import { isTpuPoolAttrs } from './resources/container-node-pool';
import { triggeredManifests } from './resources/terraform-data';
import { canonical, isObj } from './values';

export { describeResource } from './describe';
export { attributeChanges, flatten } from './attributes';
export type { AttributeChange } from './attributes';

export type ResourceAction = 'added' | 'removed' | 'changed';

export interface ResourceDiff {
  readonly address: string;
  readonly type: string;
  readonly action: ResourceAction;
  /** One line per domain fact that changed ("TPU pool ...: topology 4x8 -> 4x4"), or a generic line. */
  readonly summary: readonly string[];
  readonly attributes: readonly AttributeChange[];
  /** Either side is a TPU node pool (a slice). @default false */
  readonly tpuPool?: boolean;
}

export interface StackDiff {
  readonly stack: string;
  readonly status: 'added' | 'removed' | 'changed' | 'unchanged';
  readonly resources: readonly ResourceDiff[];
  /** Same `name` attribute under a new address: Terraform destroys and recreates it. */
  readonly renamed: ReadonlyArray<{ from: string; to: string; name: string }>;
  /** The `terraform.backend` block (where the state is kept) on each side, when it differs. @default - unchanged, or a side is missing */
  readonly backend?: { readonly before: unknown; readonly after: unknown };
  /** A removed stack's pipeline steps that hold TPU chips (from the base synthesis). @default - none */
  readonly removedTraining?: ReadonlyArray<{ readonly step: string; readonly chips: number; readonly address: string }>;
}

/** `from -> to` of the `moved` blocks a synthesized stack declares (cdktf 0.21.0 lib/terraform-resource.js toTerraform writes `moveTo`/`moveFromId` as a top-level `moved: [{ to, from }]`). */
function movedPairs(json: TerraformJson | undefined): Set<string> {
  const moved = json?.moved;
  return new Set((Array.isArray(moved) ? moved : []).filter(isObj).map((m) => `${String(m.from)} -> ${String(m.to)}`));
}

// ---------------------------------------------------------------------------------------------------------------
// syntheses

function attrsByAddress(json: TerraformJson): Map<string, { type: string; name: string; attrs: unknown }> {
  const out = new Map<string, { type: string; name: string; attrs: unknown }>();
  for (const [type, byName] of Object.entries(json.resource ?? {})) {
    for (const [name, attrs] of Object.entries(byName ?? {})) out.set(`${type}.${name}`, { type, name, attrs });
  }
  return out;
}

/**
 * Orders a stack's changes the way its pipeline runs: a step's JobSet and its spec hash (terraform_data) at the
 * step's position, everything else first in address order.
 */
function inPipelineOrder(diffs: ResourceDiff[], json: TerraformJson): ResourceDiff[] {
  const steps = extractStack('order', json).pipeline?.steps ?? [];
  const position = new Map(steps.map((s, i) => [s.address, i]));
  const rank = (r: ResourceDiff): number => {
    if (r.type === 'kubernetes_manifest') return position.get(r.address) ?? -1;
    if (r.type === 'terraform_data') {
      const manifests = triggeredManifests(json, r.address.slice('terraform_data.'.length));
      if (manifests.length === 0) return -1;
      return Math.min(...manifests.map((m) => position.get(`kubernetes_manifest.${m}`) ?? -1), Infinity) - 0.5;
    }
    return -1;
  };
  return diffs.map((r, i) => ({ r, i, k: rank(r) })).sort((x, y) => x.k - y.k || x.i - y.i).map((x) => x.r);
}

/** Diffs every stack of `head` against `base`. */
export function diffSyntheses(base: Synthesis, head: Synthesis): StackDiff[] {
  const names = [...new Set([...head.stacks.map((s) => s.name), ...base.stacks.map((s) => s.name)])];
  return names.map((stack) => {
    const b = base.stacks.find((s) => s.name === stack);
    const h = head.stacks.find((s) => s.name === stack);
    const before = attrsByAddress(b?.json ?? {});
    const after = attrsByAddress(h?.json ?? {});
    const out: ResourceDiff[] = [];
    for (const address of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const x = before.get(address);
      const y = after.get(address);
      const { type, name } = (y ?? x)!;
      const attributes = attributeChanges(x?.attrs, y?.attrs);
      if (x && y && attributes.length === 0) continue;
      const action: ResourceAction = !x ? 'added' : !y ? 'removed' : 'changed';
      const summary = describeResource(type, name, x?.attrs, y?.attrs, { before: b?.json, after: h?.json });
      out.push({
        address,
        type,
        action,
        summary: summary.length ? summary : [`${address}: ${attributes.slice(0, 6).map((c) => c.path).join(', ')}${attributes.length > 6 ? ', ...' : ''}`],
        attributes: action === 'changed' ? attributes : [],
        ...(type === 'google_container_node_pool' && (isTpuPoolAttrs(x?.attrs) || isTpuPoolAttrs(y?.attrs)) ? { tpuPool: true } : {}),
      });
    }
    const nameOf = (v?: { attrs: unknown }) => (isObj(v?.attrs) && typeof v!.attrs.name === 'string' ? v!.attrs.name : undefined);
    const renamed = out
      .filter((r) => r.action === 'removed')
      .flatMap((r) => {
        const n = nameOf(before.get(r.address));
        const to = out.find((o) => o.action === 'added' && o.type === r.type && n !== undefined && nameOf(after.get(o.address)) === n);
        return to && n ? [{ from: r.address, to: to.address, name: n }] : [];
      })
      // A `moved` block already moves it: Terraform keeps the object, nothing to warn about.
      .filter((m) => !movedPairs(h?.json).has(`${m.from} -> ${m.to}`));
    const [bBackend, hBackend] = [b?.json.terraform?.backend, h?.json.terraform?.backend];
    // Compared as canonical JSON: the same backend with its keys in another order moves no state.
    const backend = b && h && canonical(bBackend) !== canonical(hBackend) ? { backend: { before: bBackend, after: hBackend } } : {};
    const removedTraining = b && !h
      ? (extractStack(stack, b.json).pipeline?.steps ?? []).filter((x) => x.tpuChips > 0).map((x) => ({ step: x.name, chips: x.tpuChips, address: x.address }))
      : [];
    const status = !b ? 'added' : !h ? 'removed' : out.length || backend.backend ? 'changed' : 'unchanged';
    return { stack, status, resources: inPipelineOrder(out, h?.json ?? b?.json ?? {}), renamed, ...backend, ...(removedTraining.length ? { removedTraining } : {}) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// synthesizing a git ref offline

/**
 * Builds a checkout's `dist/` for its synthesis. The project compiles with `isolatedModules`, so each file's
 * JavaScript depends on that file alone: it is transpiled file by file (`ts.transpileModule`, the emit `tsc` does
 * without reading a declaration file; profiled: `tsc --noCheck` spent 4.8 s of CPU, most of it parsing and binding the
 * providers' .d.ts files, for the same output), and the JSON files beside them are copied (`resolveJsonModule`
 * imports). A checkout without `isolatedModules` is built with `tsc -p <config> --noCheck`. Uses the checkout's
 * tsconfig.build.json when it has one (the app and its sources, no tests).
 */
export function buildCheckout(
  dir: string,
  tscPath: string = require.resolve('typescript/bin/tsc'),
  /**
   * A checkout built the same way (the working tree, whose `npm run review` just built it): a file whose source is
   * byte for byte the same there, with a build output newer than that source, is copied from its build instead of
   * compiled (a pull request changes a few files; cold, the compiler takes about 20 ms of CPU per file). @default - none
   */
  reuseFrom?: string,
): void {
  const config = fs.existsSync(path.join(dir, 'tsconfig.build.json')) ? 'tsconfig.build.json' : 'tsconfig.json';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for --base (9 MB of compiler)
  const ts = require('typescript') as typeof import('typescript');
  const read = ts.readConfigFile(path.join(dir, config), ts.sys.readFile);
  const parsed = read.error ? undefined : ts.parseJsonConfigFileContent(read.config, ts.sys, dir);
  if (!parsed || parsed.errors.length || !parsed.options.isolatedModules) return tscCheckout(dir, config, tscPath);
  const options = { ...parsed.options, noEmit: false, declaration: false, incremental: false, sourceMap: false };
  const outDir = options.outDir ?? dir;
  const rootDir = options.rootDir ?? dir;
  const dirs = new Set<string>();
  const needed = appModules(dir);
  const files = parsed.fileNames.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && (needed === undefined || needed.has(path.resolve(f))));
  for (const file of files) {
    const out = path.join(outDir, path.relative(rootDir, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    dirs.add(path.dirname(file));
    const built = reuseFrom === undefined ? undefined : prebuilt(file, dir, reuseFrom, out);
    if (built) {
      fs.copyFileSync(built, out);
      continue;
    }
    const { outputText, diagnostics } = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`building ${dir}: ${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, ' ')}`);
    fs.writeFileSync(out, outputText);
  }
  for (const d of dirs) {
    for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.json'))) fs.copyFileSync(path.join(d, f), path.join(outDir, path.relative(rootDir, d), f));
  }
}

/** `reuseFrom`'s build output of `file` (a source of checkout `dir`) when its source is the same and the output newer. */
function prebuilt(file: string, dir: string, reuseFrom: string, out: string): string | undefined {
  const source = path.join(reuseFrom, path.relative(dir, file));
  const output = path.join(reuseFrom, path.relative(dir, out));
  try {
    if (fs.statSync(output).mtimeMs < fs.statSync(source).mtimeMs) return undefined;
    return fs.readFileSync(source).equals(fs.readFileSync(file)) ? output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The source files the app (`main.ts`) reaches through relative imports (static, side-effect only, `require` and `import()`), as
 * absolute paths: synthesis runs nothing else, so nothing else is built (about 70 of the 175 files). Undefined when
 * the checkout has no main.ts (then every file is built).
 */
function appModules(dir: string): Set<string> | undefined {
  const entry = path.join(dir, 'main.ts');
  if (!fs.existsSync(entry)) return undefined;
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s+|require\(\s*|import\(\s*)['"](\.{1,2}\/[^'"]+|\.{1,2})['"]/g)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      const found = [`${target}.ts`, path.join(target, 'index.ts'), target].find((c) => fs.existsSync(c) && fs.statSync(c).isFile() && c.endsWith('.ts'));
      if (found) queue.push(found);
    }
  }
  return seen;
}

/** `tsc -p <config> --noCheck` in `dir` (a checkout that does not compile with isolatedModules). */
function tscCheckout(dir: string, config: string, tscPath: string): void {
  try {
    execFileSync(process.execPath, [tscPath, '-p', config, '--noCheck', '--incremental', 'false', '--declaration', 'false'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const out = `${(error as { stdout?: Buffer }).stdout ?? ''}${(error as { stderr?: Buffer }).stderr ?? ''}`.trim();
    throw new Error(`building ${dir} (tsc -p ${config} --noCheck) failed:\n${out}`);
  }
}

function git(repoDir: string, args: string[]): string {
  return execFileSync('git', ['-C', repoDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}

/**
 * A base stack's local backend path as it would be had the base been synthesized in this checkout: cdktf writes it
 * relative to the stack's working directory (jobs/state-names.ts localStatePath), and the base is built in
 * `<tmp>/src` into `<tmp>/cdktf.out`, so the same state file reads `../../../src/terraform.<...>.tfstate` there and
 * `../../../terraform.<...>.tfstate` here: compared as text, every stack's state "moved" (issue 45). Each path is
 * resolved, its temporary root mapped to this checkout's (`roots`: [from, to]), and made relative again.
 */
export function asIfHere(stack: SynthesizedStack, roots: ReadonlyArray<readonly [string, string]>): SynthesizedStack {
  const backend = (stack.json.terraform?.backend ?? {}) as Record<string, unknown>;
  const local = backend.local as { path?: unknown } | undefined;
  if (!local || typeof local.path !== 'string' || path.isAbsolute(local.path)) return stack;
  const map = (p: string) => {
    for (const [from, to] of roots) {
      const rel = path.relative(from, p);
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return path.join(to, rel);
    }
    return p;
  };
  const dir = path.resolve(stack.dir);
  const moved = path.relative(map(dir), map(path.resolve(dir, local.path))).split(path.sep).join('/');
  if (moved === local.path) return stack;
  const json = { ...stack.json, terraform: { ...stack.json.terraform, backend: { ...backend, local: { ...local, path: moved } } } };
  return { ...stack, json };
}

/**
 * Synthesizes `ref` in a temporary worktree that shares this checkout's node_modules (no install, no network),
 * then removes the worktree. A ref without `main.ts` yields an empty synthesis (everything is "added").
 */
export function synthesizeRef(repoDir: string, ref: string): Synthesis {
  const commit = git(repoDir, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'review-base-'));
  const worktree = path.join(tmp, 'src');
  git(repoDir, ['worktree', 'add', '--detach', worktree, commit]);
  try {
    if (!fs.existsSync(path.join(worktree, 'main.ts'))) return { outdir: worktree, stacks: [] };
    fs.symlinkSync(path.join(path.resolve(repoDir), 'node_modules'), path.join(worktree, 'node_modules'), 'dir');
    buildCheckout(worktree, undefined, path.resolve(repoDir));
    const outdir = path.join(tmp, 'cdktf.out');
    synthesize(worktree, outdir);
    const synthesis = readSynthesis(outdir);
    const stacks = synthesis.stacks.map((st) => asIfHere(st, [[worktree, path.resolve(repoDir)], [outdir, path.resolve(repoDir, 'cdktf.out')]]));
    return { ...synthesis, stacks, outdir: `${ref} (${commit.slice(0, 10)})` };
  } finally {
    try {
      git(repoDir, ['worktree', 'remove', '--force', worktree]);
    } catch {
      git(repoDir, ['worktree', 'prune']);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
