/**
 * Renders the review as one Markdown document sized for a pull-request comment: findings first, then capacity
 * and cost, access, pipelines, and (when asked) the change against the base ref and the real plans.
 *
 * Pure: models, findings, prices, diffs and plan reviews in; a string out.
 */
import { RL_DEFAULTS } from '../jobs/maxtext-defaults';
import type { StackDiff } from './diff';
import type { Finding, Severity } from './findings';
import { rateText, stackCost } from './cost';
import type { JobSetStep, Pipeline, StackModel } from './model';
import type { PlanAction, PlannedChange, PlanReview } from './plan';
import { capacityText } from './resources/container-node-pool';
import { humanDuration } from './values';
import { money, PriceTable, RATE_TEXT, tpuRateFor, tpuRates } from '../jobs/prices';
import { capText, MAX_VALUE_CHARS } from '../util/redact';
import { codeSpan, inert } from '../util/inert';

/** Hidden marker the PR workflow uses to find and update its one comment. */
export const COMMENT_MARKER = '<!-- tpu-post-training:plan-review -->';

export interface ReportInput {
  readonly models: readonly StackModel[];
  readonly findings: readonly Finding[];
  readonly prices: PriceTable;
  /** Where the synthesis came from (`cdktf.out`, or "synthesized from the working tree"). */
  readonly source: string;
  readonly diff?: { readonly base: string; readonly stacks: readonly StackDiff[] };
  readonly plans?: readonly ReportedPlan[];
  /** Seconds the review took, for the footer. */
  readonly elapsedSeconds?: number;
}

const ICON: Record<Severity, string> = { error: '🛑 error', warning: '⚠️ warning', note: 'ℹ️ note' };
const HOURS_PER_MONTH = 730;

/** The longest table cell (a finding with several values in it); values inside are capped at MAX_VALUE_CHARS. */
const MAX_CELL_CHARS = 4 * MAX_VALUE_CHARS;
/** Rows of a plan's change table before the rest is summed up. */
export const MAX_PLAN_ROWS = 150;
/** Attribute changes a plan row shows (whatText). */
const ROW_ATTRIBUTES = 5;

/** A plan as the report reads it: `unshown` changes after the rows in `changes` are only counted. */
export type ReportedPlan = PlanReview & { readonly unshown?: number };

/**
 * The part of a plan review the report reads (plansSection): its counts and checks, and the first MAX_PLAN_ROWS
 * changes with the describer's lines and the first ROW_ATTRIBUTES attribute changes, never a change's values; the
 * other changes only counted. The CLI redacts this part: what is never shown is not walked again (a 50 MB plan's
 * values, its thousands of rows).
 */
export function reportedPlan(plan: PlanReview): ReportedPlan {
  return {
    ...plan,
    changes: plan.changes.slice(0, MAX_PLAN_ROWS).map(({ before: _before, after: _after, ...row }) => ({ ...row, attributes: row.attributes.slice(0, ROW_ATTRIBUTES) })),
    unshown: Math.max(0, plan.changes.length - MAX_PLAN_ROWS),
  };
}

/** A table cell: inert (util/inert.ts; code spans kept), `|` escaped. */
function cell(text: unknown): string {
  return inert(capText(String(text ?? ''), MAX_CELL_CHARS), false).replace(/\|/g, '\\|');
}

function table(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  if (rows.length === 0) return '_none_\n';
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n') + '\n';
}

/** `text` as a code span: shown as written, a backtick as a backtick (util/inert.ts codeSpan). */
function code(text: string): string {
  return codeSpan(capText(text));
}

// ---------------------------------------------------------------------------------------------------------------

function findingsSection(findings: readonly Finding[]): string {
  const count = (s: Severity) => findings.filter((x) => x.severity === s).length;
  const head = `## Findings\n\n**${count('error')} error(s), ${count('warning')} warning(s), ${count('note')} note(s).**` +
    (count('error') ? ' Errors fail this check.' : '') + '\n\n';
  return head + table(
    ['severity', 'stack', 'resource', 'finding', 'fix'],
    findings.map((x) => [ICON[x.severity], x.stack, code(x.address), x.message, x.fix]),
  );
}

function capacitySection(models: readonly StackModel[], prices: PriceTable): string {
  const out: string[] = ['## Capacity and cost\n'];
  const dash = (n: number | undefined) => (n === undefined ? '?' : money(prices, n));
  for (const m of models) {
    const hasCapacity = m.tpuPools.length + m.cpuPools.length + m.controlPlanes.length > 0;
    if (!hasCapacity && !m.pipeline) continue;
    out.push(`### ${code(m.name)}\n`);
    if (hasCapacity) {
      const cost = stackCost(m, prices);
      const tpu = cost.pools.filter((c) => c.kind === 'tpu');
      const cpu = cost.pools.filter((c) => c.kind === 'cpu');
      out.push('TPU slices:\n');
      out.push(table(
        ['pool', 'machine type', 'topology', 'chips', 'hosts', 'capacity', 'priced at', 'idle $/h', 'while running $/h'],
        tpu.map((c) => {
          const p = c.pool as StackModel['tpuPools'][number];
          return [p.name, p.machineType, p.slice?.topology ?? p.topology ?? '?', p.slice?.chips ?? '?', p.slice?.vms ?? '?', capacityText(p),
            rateText(c, prices), `${dash(c.idleHourly)} (${c.idleWhy})`, dash(c.runningHourly)];
        }),
      ));
      const why = [...new Set(tpu.map((c) => c.rateWhy).filter((w): w is string => w !== undefined && w.startsWith('reservation')))];
      if (why.length) out.push(`\nRate assumed for reservation-bound pools: **${RATE_TEXT[prices.reservationRate.rate]}** — ${prices.reservationRate.why} (${prices.reservationRate.source}).\n`);
      out.push('\nCPU pools:\n');
      out.push(table(
        ['pool', 'machine type', 'nodes', 'spot', 'idle $/h', 'while running $/h'],
        cpu.map((c) => {
          const p = c.pool as StackModel['cpuPools'][number];
          const nodes = p.nodeCount !== undefined ? String(p.nodeCount) : `${p.minNodes ?? 0}-${p.maxNodes ?? '?'} (autoscaled)`;
          return [p.name, p.machineType, nodes, p.spot ? 'yes' : 'no', `${dash(c.idleHourly)} (${c.idleWhy})`, dash(c.runningHourly)];
        }),
      ));
      out.push(
        `\n**Idle: ~${money(prices, cost.idleHourly)}/h (~${money(prices, cost.idleHourly * HOURS_PER_MONTH)}/month); ` +
          `while running: ~${money(prices, cost.runningHourly)}/h** (${cost.chips} TPU chips; cluster fee ${money(prices, cost.clusterFee)}/h included)` +
          `${cost.unpriced.length ? `; no price for ${inert(cost.unpriced.join(', '))}` : ''}.\n`,
      );
    }
    if (m.pipeline) out.push(pipelineCost(m.pipeline, models, prices));
    out.push('');
  }
  const estimates = Object.entries(prices.tpu).flatMap(([gen, row]) =>
    Object.entries(row).filter(([, r]) => r?.estimate).map(([rate]) => `${gen} ${RATE_TEXT[rate as keyof typeof RATE_TEXT]}`));
  out.push(
    `_Prices: ${prices.name}, ${prices.date}, ${prices.region} (${prices.currency}); table ${code(prices.origin)}; ` +
      `source ${prices.source}.${estimates.length ? ` Estimates (not list prices): ${estimates.join(', ')}.` : ''} ${prices.note ?? ''} ` +
      `Thresholds: ${prices.thresholds.stackChips} chips, ${money(prices, prices.thresholds.stackHourly)}/h per stack._\n`,
  );
  return out.join('\n');
}

function pipelineCost(p: Pipeline, models: readonly StackModel[], prices: PriceTable): string {
  const pool = models
    .flatMap((m) => m.tpuPools)
    .find((x) => x.slice && x.slice.topology === p.tpuTopology && (p.tpuChipsPerPod === undefined || x.slice.chipsPerVm === p.tpuChipsPerPod));
  const rate = pool?.slice ? tpuRateFor(pool, prices).rate : undefined;
  const chipHour = pool?.slice && rate ? tpuRates(prices, pool.slice.acceleratorType)?.[rate]?.chipHour : undefined;
  const priced = (chipHours: number) => chipHour === undefined || !rate ? '' : ` (~${money(prices, chipHour * chipHours)} at the ${RATE_TEXT[rate]} rate` +
    `${pool!.capacity === 'reservation' ? ', already paid for by the reservation' : ''})`;
  const tpuSteps = p.steps.filter((s) => s.tpuChips > 0);
  if (!p.spend) {
    return `Pipeline holds at most **${round(p.chipHours)} chip-hours**${priced(p.chipHours)}: ` +
      tpuSteps.map((s) => `${inert(s.name)} ${s.tpuChips} chips x ${s.timeoutText ?? '?'} (timeout)`).join(', ') + '.\n';
  }
  const { oneAttempt, worstCase } = p.spend;
  const attempt = (s: JobSetStep) => humanDuration(s.attemptSeconds) ?? '?';
  return (
    `Expected spend, one attempt of every TPU step to its deadline: **${round(oneAttempt.chipHours)} chip-hours**${priced(oneAttempt.chipHours)}, ` +
    `${humanDuration(Math.round(oneAttempt.wallMinutes) * 60)} of TPU steps: ` +
    tpuSteps.map((s) => `${inert(s.name)} ${s.tpuChips} chips x ${attempt(s)}`).join(', ') + '.\n' +
    `Worst case, every restart a lost host allows: **${round(worstCase.chipHours)} chip-hours**${priced(worstCase.chipHours)}: ` +
    tpuSteps.map((s) => `${inert(s.name)} ${s.maxRestarts + 1} attempt(s)`).join(', ') + '. ' +
    `Queueing holds no chips; the steps' windows (the timeout column: queue allowance, every attempt, margins) add up to ${round(p.chipHours)} chip-hours.\n`
  );
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

// ---------------------------------------------------------------------------------------------------------------

function accessSection(models: readonly StackModel[]): string {
  const out: string[] = ['## Access\n'];
  const grants = models.flatMap((m) => m.grants);
  out.push('IAM grants:\n');
  out.push(table(['member', 'role', 'scope', 'on', 'stack', 'resource'],
    grants.map((g) => [g.member, g.role, g.scope, g.target, g.stack, code(g.address)])));
  out.push('\nControl plane:\n');
  out.push(table(['cluster', 'IP allow-list', 'DNS endpoint (IAM)', 'IP endpoint', 'private nodes', 'private endpoint only', 'stack'],
    models.flatMap((m) => m.controlPlanes).map((c) => [
      c.name,
      c.authorizedNetworks ? c.authorizedNetworks.map((n) => `${n.cidr}${n.displayName ? ` (${n.displayName})` : ''}`).join(', ') || '(empty)' : 'any (no allow-list)',
      c.dnsEndpointExternal ? 'on, external traffic allowed' : 'internal only',
      c.ipEndpointEnabled ? 'on' : 'off',
      c.privateNodes ? 'yes' : 'no',
      c.privateEndpoint ? 'yes' : 'no',
      c.stack,
    ])));
  out.push('\nWorkload Identity:\n');
  out.push(table(['Kubernetes SA', 'acts as Google SA', 'stack', 'resource'],
    models.flatMap((m) => m.workloadIdentity).map((w) => [w.ksa, w.gsa, w.stack, code(w.address)])));
  const mounts = models.flatMap((m) => m.secretMounts);
  if (mounts.length) {
    out.push('\nSecret Manager secrets mounted by pods (through SecretProviderClass; values never in Terraform):\n');
    out.push(table(['stack', 'SecretProviderClass', 'secrets', 'resource'], mounts.map((x) => [x.stack, x.name, x.secrets.join(', ') || '?', code(x.address)])));
  }
  const pub: string[] = [];
  for (const g of grants.filter((x) => x.member === 'allUsers' || x.member === 'allAuthenticatedUsers')) {
    pub.push(`${inert(`${g.role} for ${g.member} on ${g.scope} ${g.target}`)} (${code(g.address)})`);
  }
  for (const c of models.flatMap((m) => m.controlPlanes)) {
    for (const n of (c.authorizedNetworks ?? []).filter((x) => x.cidr === '0.0.0.0/0' || x.cidr === '::/0')) {
      pub.push(`control plane of ${inert(`${c.name} open to ${n.cidr}`)} (${code(c.address)})`);
    }
    if (!c.authorizedNetworks && c.ipEndpointEnabled && !c.privateEndpoint) pub.push(`control plane of ${c.name}: public IP endpoint without allow-list`);
    if (!c.privateNodes) pub.push(`nodes of ${c.name} have public IPs`);
  }
  for (const b of models.flatMap((m) => m.buckets).filter((x) => x.publicAccessPrevention !== 'enforced' && !x.uniformAccess)) {
    pub.push(`bucket ${b.name} allows ACLs and public access prevention is not enforced`);
  }
  out.push(`\nPublic: ${pub.length ? '\n' + pub.map((x) => `- ${x}`).join('\n') : 'nothing public.'}\n`);
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

function mermaidLabel(s: JobSetStep): string {
  const where = s.tpuChips > 0 ? `${s.tpuChips} TPU chips${s.tpuTopology ? ` ${s.tpuTopology}` : ''}` : 'CPU';
  // Mermaid's own escapes; no backtick or newline, which could end the fenced block.
  const safe = (t: string) => t.replace(/[`\r\n<>]/g, ' ').replace(/"/g, '#quot;');
  return `${safe(s.name)}<br/>${safe(`${s.kind} · ${where}${s.timeoutText ? ` · ≤${s.timeoutText}` : ''}`)}`;
}

/** The step graph as a Mermaid flowchart. */
export function mermaid(p: Pipeline): string {
  const id = new Map(p.steps.map((s, i) => [s.name, `s${i}`]));
  return [
    '```mermaid',
    'flowchart LR',
    ...p.steps.map((s) => `  ${id.get(s.name)}["${mermaidLabel(s)}"]`),
    ...p.edges.map(([a, b]) => `  ${id.get(a)} --> ${id.get(b)}`),
    '```',
  ].join('\n');
}

/** MaxText's `num_test_batches` default (jobs/maxtext-defaults.ts, from maxtext-v0.2.4 configs/types.py). */
export const MAXTEXT_DEFAULT_TEST_BATCHES = RL_DEFAULTS.num_test_batches;

/**
 * MaxText's RL evaluation (train_rl.py: `num_test_batches` batches before and after training, when > 0) and its rough
 * cost: 2N evaluation batches next to `num_batches` training batches, as a share of the training step's chip-hour
 * bound. An RL step is one with `num_batches` (SFT counts `steps`).
 */
export function evaluationLine(p: Pipeline): string | undefined {
  const train = p.steps.find((s) => s.kind === 'training' && s.args.num_batches !== undefined);
  if (!train) return undefined;
  const given = train.args.num_test_batches;
  const n = given !== undefined ? Number(given) : MAXTEXT_DEFAULT_TEST_BATCHES;
  const source = given !== undefined ? `num_test_batches=${inert(String(given), false)}` : `num_test_batches unset: MaxText's default ${MAXTEXT_DEFAULT_TEST_BATCHES}`;
  if (!(n > 0)) return `MaxText evaluation: off (${source}); \`npm run status\` shows no accuracy before/after.\n`;
  const batches = Number(train.args.num_batches);
  const share = (2 * n) / (batches + 2 * n);
  const bound = (train.tpuChips * (train.timeoutSeconds ?? 0)) / 3600;
  return (
    `MaxText evaluation: ${n} test batches before and ${n} after training (${source}), on the training slice: ` +
    `roughly ${Math.round(share * 100)}% of the step's batches (2 x ${n} of ${batches + 2 * n}), up to ~${round(share * bound)} of its ${round(bound)} chip-hour bound; ` +
    `\`npm run status\` shows the accuracy before and after.` +
    (given !== undefined ? ` Change it with \`num_test_batches\` in pipelines.${p.stack}.overrides.\n` : ' The recipe does not set it (its train args would need `num_test_batches`).\n')
  );
}

function pipelinesSection(models: readonly StackModel[]): string {
  const pipelines = models.map((m) => m.pipeline).filter((p): p is Pipeline => p !== undefined);
  const out: string[] = ['## Pipelines\n'];
  if (pipelines.length === 0) out.push('_No pipeline stacks in this synthesis._\n');
  for (const p of pipelines) {
    out.push(`### ${code(p.stack)}\n`);
    out.push(`Model ${code(p.model ?? '?')}; slice ${p.tpuTopology ? `${p.tpuTopology} (${p.tpuChips} chips)` : 'none'}; ` +
      `images ${p.images.map(code).join(', ')}.\n`);
    if (p.maxtextDifference) out.push(`MaxText version: ${inert(p.maxtextDifference)}.\n`);
    if (p.evalGate) out.push(`Eval step: ${inert(p.evalGate)}.\n`);
    if (p.rehearsalRequired) out.push(`Requires a rehearsal: ${inert(p.rehearsalRequired)}.\n`);
    else if (p.rehearsalCheck) out.push(`Rehearsal: ${inert(p.rehearsalCheck)}.\n`);
    const evaluation = evaluationLine(p);
    if (evaluation) out.push(evaluation);
    out.push(mermaid(p) + '\n');
    out.push(table(['step', 'kind', 'image', 'slice', 'timeout', 'queue', 'resource'],
      p.steps.map((s) => [s.name, s.kind, s.images.map((i) => i.image).filter((v, i, a) => a.indexOf(v) === i).join(', '),
        s.tpuChips ? `${s.tpuChips} chips ${s.tpuTopology ?? ''}` : 'CPU', s.timeoutText ?? '-', s.queueName ?? '-', code(s.address)])));
    const io = p.steps.flatMap((s) => s.gcs.map((g) => [s.name, g.access, code(g.path), g.key ?? '']));
    out.push('\nGCS paths:\n');
    out.push(table(['step', 'access', 'path', 'via'], io));
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

function diffSection(diff: NonNullable<ReportInput['diff']>): string {
  const out: string[] = [`## Changes against \`${diff.base}\`\n`];
  const changed = diff.stacks.filter((s) => s.status !== 'unchanged');
  if (changed.length === 0) out.push('No synthesized change in any stack.\n');
  for (const s of diff.stacks) {
    if (s.status === 'unchanged') {
      out.push(`- ${code(s.stack)}: unchanged`);
      continue;
    }
    const n = (a: string) => s.resources.filter((r) => r.action === a).length;
    out.push(`\n### ${code(s.stack)} (${s.status}: +${n('added')} / -${n('removed')} / ~${n('changed')})\n`);
    for (const r of s.resources) {
      const sign = r.action === 'added' ? '+' : r.action === 'removed' ? '-' : '~';
      for (const line of r.summary) out.push(`- ${sign} ${inert(capText(line, MAX_CELL_CHARS))}`);
    }
    for (const m of s.renamed) {
      out.push(`- ⚠️ ${inert(m.name)}: address ${code(m.from)} -> ${code(m.to)}: Terraform destroys and recreates it (add a \`moved\` block)`);
    }
    const details = s.resources.filter((r) => r.attributes.length);
    if (details.length) {
      out.push('\n<details><summary>Changed attributes</summary>\n');
      for (const r of details) {
        out.push(`- ${code(r.address)}`);
        for (const a of r.attributes.slice(0, 25)) out.push(`  - ${attributeLine(a.path, a.before, a.after)}`);
        if (r.attributes.length > 25) out.push(`  - ... ${r.attributes.length - 25} more`);
      }
      out.push('\n</details>');
    }
  }
  return out.join('\n') + '\n';
}

/** An attribute change as `path: before -> after`; long values show only the words that differ. */
export function attributeLine(path: string, before: string | undefined, after: string | undefined): string {
  const show = (v: string | undefined) => (v === undefined ? '_(absent)_' : code(v));
  if (before === undefined || after === undefined || (before.length <= 80 && after.length <= 80)) return `${code(path)}: ${show(before)} -> ${show(after)}`;
  const words = (v: string) => (JSON.parse(v) as unknown as string).toString().split(/\s+/).filter((w) => w && w !== '\\');
  let b: string[];
  let a: string[];
  try {
    b = words(before);
    a = words(after);
  } catch {
    b = before.split(/\s+/);
    a = after.split(/\s+/);
  }
  const keyOf = (w: string) => /^((?:--)?[A-Za-z_][\w.]*)=/.exec(w)?.[1];
  const keyed = (ws: string[]) => new Map(ws.flatMap((w) => (keyOf(w) ? [[keyOf(w)!, w.slice(keyOf(w)!.length + 1)] as const] : [])));
  const kb = keyed(b);
  const ka = keyed(a);
  const changed = [...new Set([...kb.keys(), ...ka.keys()])].filter((k) => kb.get(k) !== ka.get(k)).map((k) => `${k}: ${kb.get(k) ?? '(unset)'} -> ${ka.get(k) ?? '(unset)'}`);
  const bs = new Set(b.filter((w) => !keyOf(w)));
  const as = new Set(a.filter((w) => !keyOf(w)));
  const removed = [...bs].filter((w) => !as.has(w));
  const added = [...as].filter((w) => !bs.has(w));
  const parts = [...changed.map(code), ...removed.map((w) => `removed ${code(w)}`), ...added.map((w) => `added ${code(w)}`)];
  return `${code(path)}: ${parts.length ? parts.join(', ') : 'whitespace changed'}`;
}

const ACTION_ICON: Record<PlanAction, string> = {
  create: '➕ create', update: '🔧 update', replace: '♻️ replace', delete: '🗑️ delete', read: 'read', 'no-op': 'no-op', forget: 'forget',
};

/** The action cell: Terraform's action, and the import / move an `import` or `moved` block adds to it. */
function actionText(x: PlannedChange): string {
  const state = [x.importing !== undefined ? '📥 import' : '', x.previousAddress !== undefined ? '➡️ move' : ''].filter(Boolean);
  const action = x.deposed ? `🗑️ delete deposed ${x.deposed}` : x.action === 'no-op' && state.length ? '' : ACTION_ICON[x.action];
  return [action, ...state].filter(Boolean).join(' + ') + (x.replaceOrder ? ` (${x.replaceOrder})` : '');
}

/** The what cell: the describer's words, or the attributes that change when it has none (an import's line is not one). */
function whatText(x: PlannedChange): string {
  const attrs = x.attributes.slice(0, ROW_ATTRIBUTES).map((a) => `${a.path}: ${capText(a.before ?? '(absent)', 100)} -> ${capText(a.after ?? '(absent)', 100)}`).join(', ');
  const own = x.summary.length - (x.importing !== undefined ? 1 : 0) - (x.previousAddress !== undefined ? 1 : 0);
  return [x.summary.join('; '), own > 0 ? '' : attrs].filter(Boolean).join('; ');
}

function plansSection(plans: readonly ReportedPlan[]): string {
  const out: string[] = ['## Terraform plans\n'];
  for (const p of plans) {
    const c = p.counts;
    out.push(`### ${code(p.stack)} (${code(p.file)}${p.terraformVersion ? `, Terraform ${p.terraformVersion}` : ''})\n`);
    if (p.errored) out.push('**This plan errored: Terraform stopped part way, the actions below are incomplete.**\n');
    if (p.rehearsal !== undefined) out.push(`Rehearsal: ${inert(capText(p.rehearsal, MAX_CELL_CHARS))}.\n`);
    for (const k of p.checks) out.push(`${k.status === 'unknown' ? '⚠️' : '🛑'} Check ${code(k.address)}: ${k.status}${k.problems.length ? ` (${inert(capText(k.problems.join('; '), MAX_CELL_CHARS))})` : ''}.\n`);
    const total = p.changes.length + (p.unshown ?? 0);
    if (total === 0 && !p.errored) {
      out.push(`No changes: the infrastructure matches the configuration${c['no-op'] ? ` (${c['no-op']} unchanged)` : ''}.\n`);
      continue;
    }
    out.push(`${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.delete} to delete` +
      `${c.deposed ? ` (+ ${c.deposed} deposed object(s) to delete)` : ''}, ${c.forget} to forget, ${c.import} to import, ${c.move} to move, ${c['no-op']} unchanged.\n`);
    const shown = p.changes.slice(0, MAX_PLAN_ROWS);
    out.push(table(['action', 'resource', 'what', 'forced by'],
      shown.map((x) => [actionText(x), code(x.address), whatText(x),
        x.replacePaths.join(', ') || (x.reason ?? '')])));
    if (total > shown.length) {
      out.push(`\n_... and ${total - shown.length} more changes: ${code(`terraform show ${p.workingDir}/plan`)} lists them all._\n`);
    }
  }
  return out.join('\n');
}

/** Who is notified of the pipelines' steps (NOTIFY_EMAIL, constructs/notifications.ts), and by what. */
function notificationsLine(models: readonly StackModel[]): string {
  const channels = models.flatMap((m) => m.notificationChannels);
  const policies = models.flatMap((m) => m.alertPolicies);
  // Notifications live in infra (the stack with the cluster): a review of pipeline stacks alone says nothing of them.
  if (channels.length === 0 && policies.length === 0 && !models.some((m) => m.controlPlanes.length > 0)) return '';
  if (channels.length === 0 && policies.length === 0) return '## Notifications\n\nNobody is notified of failed, restarted, stalled or completed steps (set NOTIFY_EMAIL).\n';
  const who = channels.map((c) => `${c.type} ${code(c.target)}`).join(', ') || '_no channel_';
  const what = inert(policies.map((p) => `${p.displayName.replace(/^.*?: /, '')} (${p.condition})`).join(', '));
  return `## Notifications\n\nNotified: ${who}; on ${what || '_no alert policy_'}.\n`;
}

// ---------------------------------------------------------------------------------------------------------------

/** The whole report. */
export function renderReport(input: ReportInput): string {
  const errors = input.findings.filter((f) => f.severity === 'error').length;
  const status = errors ? `🛑 ${errors} error(s)` : '✅ no errors';
  const parts = [
    COMMENT_MARKER,
    `# Plan review: ${status}\n`,
    `Stacks: ${input.models.map((m) => code(m.name)).join(', ') || '_none_'} (from ${input.source})` +
      `${input.diff ? `; compared with ${code(input.diff.base)}` : ''}` +
      `${input.plans?.length ? `; plans for ${input.plans.map((p) => code(p.stack)).join(', ')}` : ''}.\n`,
    input.plans?.length ? '' : '**No Terraform plan was reviewed**: this report covers the synthesized configuration only, not what a deploy would do to the infrastructure.\n',
    findingsSection(input.findings),
    input.plans?.length ? plansSection(input.plans) : '',
    input.diff ? diffSection(input.diff) : '',
    capacitySection(input.models, input.prices),
    accessSection(input.models),
    notificationsLine(input.models),
    pipelinesSection(input.models),
    input.elapsedSeconds !== undefined ? `\n_Generated by \`npm run review\` in ${input.elapsedSeconds.toFixed(1)} s._\n` : '',
  ];
  return parts.filter(Boolean).join('\n');
}
