/**
 * Domain diff between two syntheses (the PR's base ref and its head), per stack: resources added, removed and
 * changed, worded the way a reviewer thinks ("TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16"),
 * with the raw attribute paths that changed underneath.
 *
 * `describeResource` is shared with `plan.ts`, which words real plan actions the same way.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readSynthesis, synthesize, Synthesis, TerraformJson } from './load';
import { block, extractStack, IamGrant, isObj, StackModel } from './model';

export interface AttributeChange {
  readonly path: string;
  readonly before?: string;
  readonly after?: string;
}

export type ResourceAction = 'added' | 'removed' | 'changed';

export interface ResourceDiff {
  readonly address: string;
  readonly type: string;
  readonly action: ResourceAction;
  /** One line per domain fact that changed ("TPU pool ...: topology 4x8 -> 4x4"), or a generic line. */
  readonly summary: readonly string[];
  readonly attributes: readonly AttributeChange[];
}

export interface StackDiff {
  readonly stack: string;
  readonly status: 'added' | 'removed' | 'changed' | 'unchanged';
  readonly resources: readonly ResourceDiff[];
  /** Same `name` attribute under a new address: Terraform destroys and recreates it. */
  readonly renamed: ReadonlyArray<{ from: string; to: string; name: string }>;
}

// ---------------------------------------------------------------------------------------------------------------
// attributes

/** Flattens a value into `a.b[0].c` -> JSON text, skipping cdktf's `//` metadata. */
export function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, '[]');
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (isObj(value)) {
    const entries = Object.entries(value).filter(([k]) => k !== '//');
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined && value !== null) {
    out.set(prefix, JSON.stringify(value));
  }
  return out;
}

/** Leaf attributes that differ between two attribute objects. */
export function attributeChanges(before: unknown, after: unknown): AttributeChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.filter((k) => a.get(k) !== b.get(k)).map((k) => ({ path: k, before: a.get(k), after: b.get(k) }));
}

// ---------------------------------------------------------------------------------------------------------------
// domain wording

function single(type: string, name: string, attrs: unknown, context?: TerraformJson): StackModel | undefined {
  if (!isObj(attrs)) return undefined;
  // Extract with the rest of the stack around it, so `${google_service_account.x.email}` references resolve.
  const json = { ...(context ?? {}), resource: { ...(context?.resource ?? {}), [type]: { [name]: attrs } } } as TerraformJson;
  const m = extractStack('x', json);
  const address = `${type}.${name}`;
  const mine = <T extends { address: string }>(xs: readonly T[]) => xs.filter((x) => x.address === address);
  return {
    ...m,
    tpuPools: mine(m.tpuPools),
    cpuPools: mine(m.cpuPools),
    grants: mine(m.grants),
    controlPlanes: mine(m.controlPlanes),
    jobsets: mine(m.jobsets),
    buckets: mine(m.buckets),
    kueue: mine(m.kueue),
  };
}

function arrow<T>(label: string, a: T, b: T, show: (v: T) => string = (v) => String(v ?? '-')): string | undefined {
  return show(a) === show(b) ? undefined : `${label} ${show(a)} -> ${show(b)}`;
}

function grantText(g: IamGrant): string {
  return `${g.member} ${g.role} on ${g.scope} ${g.target}`;
}

/**
 * Reviewer-facing lines for one resource given its attributes before and after (either may be undefined).
 * Works on synthesized attributes and on plan `before`/`after` values alike.
 */
export function describeResource(
  type: string,
  name: string,
  before: unknown,
  after: unknown,
  context?: { before?: TerraformJson; after?: TerraformJson },
): string[] {
  const b = single(type, name, before, context?.before);
  const a = single(type, name, after, context?.after);
  const verb = before === undefined ? 'added' : after === undefined ? 'removed' : undefined;

  const bt = b?.tpuPools[0];
  const at = a?.tpuPools[0];
  if (bt || at) {
    const p = (at ?? bt)!;
    const shape = (x = p) =>
      x.slice ? `${x.machineType} ${x.slice.topology}, ${x.slice.chips} chips, ${x.slice.vms} hosts, ${capacityText(x)}` : `${x.machineType} ${x.topology ?? ''}`;
    if (verb) return [`TPU pool ${p.name} ${verb}: ${shape()}`];
    const parts = [
      arrow('machine type', bt!.machineType, at!.machineType),
      arrow('topology', bt!.topology, at!.topology),
      arrow('chips', bt!.slice?.chips, at!.slice?.chips),
      arrow('hosts', bt!.slice?.vms, at!.slice?.vms),
      arrow('node count', bt!.nodeCount, at!.nodeCount),
      arrow('capacity', capacityText(bt!), capacityText(at!)),
      arrow('autoscaling', bt!.autoscaling, at!.autoscaling, (v) => (v ? JSON.stringify(v) : 'off')),
      arrow('service account', bt!.serviceAccount, at!.serviceAccount),
      arrow('zones', bt!.zones.join(','), at!.zones.join(',')),
    ].filter(Boolean);
    return parts.length ? [`TPU pool ${p.name}: ${parts.join(', ')}`] : [];
  }

  const bc = b?.cpuPools[0];
  const ac = a?.cpuPools[0];
  if (bc || ac) {
    const p = (ac ?? bc)!;
    const size = (x = p) => (x.minNodes !== undefined || x.maxNodes !== undefined ? `${x.minNodes ?? 0}-${x.maxNodes ?? '?'} nodes` : `${x.nodeCount ?? '?'} nodes`);
    if (verb) return [`CPU pool ${p.name} ${verb}: ${p.machineType}, ${size()}${p.spot ? ', spot' : ''}`];
    const parts = [
      arrow('machine type', bc!.machineType, ac!.machineType),
      arrow('size', size(bc!), size(ac!)),
      arrow('spot', bc!.spot, ac!.spot),
      arrow('service account', bc!.serviceAccount, ac!.serviceAccount),
    ].filter(Boolean);
    return parts.length ? [`CPU pool ${p.name}: ${parts.join(', ')}`] : [];
  }

  const bg = b?.grants ?? [];
  const ag = a?.grants ?? [];
  if (bg.length || ag.length) {
    const bs = new Set(bg.map(grantText));
    const as = new Set(ag.map(grantText));
    return [
      ...[...as].filter((g) => !bs.has(g)).map((g) => `IAM grant added: ${g}`),
      ...[...bs].filter((g) => !as.has(g)).map((g) => `IAM grant removed: ${g}`),
    ];
  }

  const bcp = b?.controlPlanes[0];
  const acp = a?.controlPlanes[0];
  if (bcp || acp) {
    const p = (acp ?? bcp)!;
    const nets = (x = p) => (x.authorizedNetworks ? x.authorizedNetworks.map((n) => n.cidr).join(', ') || '(empty)' : '(any)');
    if (verb) return [`cluster ${p.name} ${verb}: control-plane allow-list ${nets()}`];
    const parts = [
      arrow('control-plane allow-list', nets(bcp!), nets(acp!)),
      arrow('DNS endpoint (external)', bcp!.dnsEndpointExternal, acp!.dnsEndpointExternal),
      arrow('IP endpoint', bcp!.ipEndpointEnabled, acp!.ipEndpointEnabled),
      arrow('private nodes', bcp!.privateNodes, acp!.privateNodes),
      arrow('deletion protection', bcp!.deletionProtection, acp!.deletionProtection),
    ].filter(Boolean);
    return parts.length ? [`cluster ${p.name}: ${parts.join(', ')}`] : [];
  }

  const bj = b?.jobsets[0];
  const aj = a?.jobsets[0];
  if (bj || aj) {
    const j = (aj ?? bj)!;
    const slice = (x = j) => (x.tpuChips ? `${x.tpuChips} chips${x.tpuTopology ? ` (${x.tpuTopology})` : ''}` : 'CPU');
    if (verb) return [`JobSet ${j.name} (${j.kind}) ${verb}: ${slice()}, ${j.images.map((i) => i.image).join(', ')}`];
    const parts = [
      arrow('name', bj!.name, aj!.name),
      arrow('images', bj!.images.map((i) => i.image).join(','), aj!.images.map((i) => i.image).join(',')),
      arrow('slice', slice(bj!), slice(aj!)),
      arrow('model', bj!.model, aj!.model),
      arrow('timeout', bj!.timeoutText, aj!.timeoutText),
      arrow('ttlSecondsAfterFinished', bj!.ttlSecondsAfterFinished, aj!.ttlSecondsAfterFinished),
      arrow('GCS paths', bj!.gcs.map((g) => `${g.access}:${g.path}`).join(' '), aj!.gcs.map((g) => `${g.access}:${g.path}`).join(' ')),
    ].filter(Boolean);
    return [`JobSet ${j.name}: ${parts.length ? parts.join(', ') : 'command or spec changed'}`];
  }

  const bb = b?.buckets[0];
  const ab = a?.buckets[0];
  if ((bb || ab) && verb) return [`bucket ${(ab ?? bb)!.name} ${verb}`];

  if (type === 'helm_release') {
    const release = (v: unknown) => (isObj(v) ? `${String(v.chart ?? '?')}${v.version ? `@${String(v.version)}` : ''}` : '');
    const rname = String((isObj(after) ? after.name : isObj(before) ? before.name : name) ?? name);
    if (verb) return [`Helm release ${rname} ${verb}: ${release(after ?? before)}`];
    const v = arrow('chart', release(before), release(after));
    const quota = arrow('Kueue TPU quota', b?.kueue[0]?.tpuChips, a?.kueue[0]?.tpuChips);
    const values = JSON.stringify(isObj(before) ? before.values : '') !== JSON.stringify(isObj(after) ? after.values : '');
    const parts = [v, quota, values && !quota ? 'values changed' : undefined].filter(Boolean);
    return [`Helm release ${rname}: ${parts.join(', ') || 'settings changed'}`];
  }
  if (type === 'terraform_data' && !verb) {
    // A step's spec hash (constructs/spec-hash.ts): when it changes, replace_triggered_by replaces every JobSet that
    // references it, even when the JobSet's own manifest is unchanged (a later step after a changed earlier one).
    const ref = `terraform_data.${name}`;
    const manifests = Object.entries(block(context?.after?.resource?.kubernetes_manifest) ?? {}).filter(([, r]) => {
      const triggers = block(isObj(r) ? r.lifecycle : undefined)?.replace_triggered_by;
      return Array.isArray(triggers) && triggers.includes(ref);
    });
    return manifests.flatMap(([mname, r]) => {
      const j = single('kubernetes_manifest', mname, r, context?.after)?.jobsets[0];
      if (!j) return [];
      const cost = j.tpuChips ? ` on ${j.tpuChips} chips${j.timeoutText ? ` (up to ${j.timeoutText})` : ''}` : '';
      return [`JobSet ${j.name} will be REPLACED (its spec or an earlier step changed): re-runs ${j.kind}${cost}`];
    });
  }
  if (type === 'kubernetes_manifest') {
    const m = block(isObj(after) ? after.manifest : isObj(before) ? before.manifest : undefined);
    const kind = String(m?.kind ?? 'manifest');
    const mname = String(block(m?.metadata)?.name ?? name);
    if (verb) return [`${kind} ${mname} ${verb}`];
  }
  if (verb) return [`${type}.${name} ${verb}`];
  return [];
}

function capacityText(p: { capacity: string; reservations: readonly string[] }): string {
  return p.capacity === 'reservation' ? `reservation ${p.reservations.join(',') || '(none)'}` : p.capacity;
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
      });
    }
    const nameOf = (v?: { attrs: unknown }) => (isObj(v?.attrs) && typeof v!.attrs.name === 'string' ? v!.attrs.name : undefined);
    const renamed = out
      .filter((r) => r.action === 'removed')
      .flatMap((r) => {
        const n = nameOf(before.get(r.address));
        const to = out.find((o) => o.action === 'added' && o.type === r.type && n !== undefined && nameOf(after.get(o.address)) === n);
        return to && n ? [{ from: r.address, to: to.address, name: n }] : [];
      });
    const status = !b ? 'added' : !h ? 'removed' : out.length ? 'changed' : 'unchanged';
    return { stack, status, resources: out, renamed };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// synthesizing a git ref offline

/**
 * Transpiles a checkout's TypeScript (the files its tsconfig includes, minus tests and benchmarks) to `dist/`,
 * type-check free: the base ref was type-checked when it merged, and transpiling is ~10x faster than `tsc`.
 */
export function transpileCheckout(dir: string): void {
  // Loaded lazily: `typescript` is only needed for --base.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const configPath = path.join(dir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
  const outDir = parsed.options.outDir ?? path.join(dir, 'dist');
  const rootDir = parsed.options.rootDir ?? dir;
  const options = { ...parsed.options, noEmit: false, declaration: false, sourceMap: false, incremental: false };
  const skip = /[\\/](__tests__|bench)[\\/]|\.d\.ts$/;
  for (const file of parsed.fileNames.filter((f) => !skip.test(f))) {
    const rel = path.relative(rootDir, file);
    const js = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file }).outputText;
    const target = path.join(outDir, rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, js);
  }
  // JSON modules (resolveJsonModule) sit next to the code that imports them.
  const dirs = new Set(parsed.fileNames.map((f) => path.dirname(f)));
  for (const d of dirs) {
    for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.json') && !/^(tsconfig|package|package-lock)\.json$/.test(x))) {
      const target = path.join(outDir, path.relative(rootDir, d), f);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(path.join(d, f), target);
    }
  }
}

function git(repoDir: string, args: string[]): string {
  return execFileSync('git', ['-C', repoDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
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
    transpileCheckout(worktree);
    const outdir = path.join(tmp, 'cdktf.out');
    synthesize(worktree, outdir);
    const synthesis = readSynthesis(outdir);
    return { ...synthesis, outdir: `${ref} (${commit.slice(0, 10)})` };
  } finally {
    try {
      git(repoDir, ['worktree', 'remove', '--force', worktree]);
    } catch {
      git(repoDir, ['worktree', 'prune']);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
