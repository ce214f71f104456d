/**
 * `npm run review [-- options]` (= `node scripts/review.mjs`: the build check, then `main` below in the same process):
 * synthesizes the app (or reads a synthesized one, or the one in cdktf.out again while its inputs are unchanged:
 * synth-cache.ts), reviews every stack, and writes one Markdown report to stdout and to a file.
 * Exits 0 without error findings, 1 with one, 2 on a usage error or a tool failure.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs as parseArgv } from 'node:util';
import { ENVIRONMENT_FILE } from '../jobs/deployment';
import { diffSyntheses, synthesizeRef } from './diff';
import { Finding, hasErrors, review } from './findings';
import { readSynthesis, Synthesis, synthesize } from './load';
import { synthesizeIfChanged } from './synth-cache';
import { parseScanned, scanPlanText } from './json-scan';
import { BoundExceeded, readBounded } from '../util/bounded-read';
import { planDifferences } from './same-plan';
import { extractStack, StackModel } from './model';
import { identityName, PlanReview, reviewPlan } from './plan';
import { capText, redactDeep, Redactor } from '../util/redact';
import { loadPrices, parsePrices, PriceTable } from '../jobs/prices';
import { renderReport, reportedPlan } from './report';
import { stripControls } from '../util/inert';
import type { ChartReader } from './resources/types';

/**
 * Largest plan file read, in MiB (--max-plan-mb). Reading a plan takes about 12-20 times its size in memory (measured:
 * a 232 MB plan of 280,000 changes 146 s and 2.7 GB; 16 MB, 19,500 changes, 4-14 s and 310 MB): a larger plan is
 * refused (exit 2) before it is read, not read in part. A plan of this project's stacks is a few MB at most.
 */
export const DEFAULT_MAX_PLAN_MB = 16;

export const USAGE = `usage: npm run review -- [options]

  --out <file>            report file (default review-report.md)
  --base <git ref>        also synthesize <ref> in a temporary worktree (offline) and report the change per stack
  --plan <stack>=<file>   \`terraform show -json\` output of that stack's plan (repeatable); with plans, every stack
                          changed against --base needs one that changes it
  --plan-failed <stack>[=<step>]  the plan of that stack failed (at <step>: init, plan, show); an error (repeatable)
  --plan-job-failed <step>  the plan job died at <step> outside any stack's plan (synth, ...): an error
  --expect-plan <stack>   the plan job planned that stack: an error when it has neither --plan nor --plan-failed
                          (repeatable; CI passes the plan job's stacks.txt)
  --reviewed <stack>=<file>  the plan the pull request reviewed: an error when that stack's --plan differs from it
  --max-plan-mb <n>       refuse a plan file larger than this (default ${DEFAULT_MAX_PLAN_MB})
  --prices <file>         price table replacing jobs/prices.json (same shape)
  --max-chips <n>         a finding when a stack holds more TPU chips (default: thresholds.stackChips of the table)
  --max-hourly <amount>   a finding when a stack costs more per hour with all capacity running (default: thresholds.stackHourly)
  --from <dir>            read an existing synthesis from <dir> instead of synthesizing
  --no-synth              same as --from cdktf.out
  --quiet                 do not print the report to stdout
  -h, --help              this text

Exit: 0 no error findings, 1 error findings, 2 usage error or tool failure.`;

export interface CliOptions {
  out: string;
  base?: string;
  plans: Array<{ stack: string; file: string }>;
  /** Stacks whose plan step failed. */
  failedPlans: string[];
  /** The step each failed stack's plan died at (`--plan-failed <stack>=<step>`). */
  failedSteps: Record<string, string>;
  /** Steps at which the plan job died outside a stack's plan (`--plan-job-failed`). */
  planJobFailed: string[];
  /** Stacks the plan job planned (`--expect-plan`): each needs a plan or a failure marker. */
  expectedPlans: string[];
  /** The reviewed plans (`--reviewed`) the new `--plan` of each stack must equal. */
  reviewed: Array<{ stack: string; file: string }>;
  /** Largest plan file read, in MiB. */
  maxPlanMb: number;
  prices?: string;
  maxChips?: number;
  maxHourly?: number;
  from?: string;
  quiet: boolean;
  help?: boolean;
}

export class UsageError extends Error {}

/** The entries of a stack folder (directories with a trailing `/`), at most 1,000: what Terraform may load there. */
export function stackFolderEntries(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).slice(0, 1000).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  } catch {
    return [];
  }
}

const OPTIONS = {
  out: { type: 'string' },
  base: { type: 'string' },
  plan: { type: 'string', multiple: true },
  'plan-failed': { type: 'string', multiple: true },
  'plan-job-failed': { type: 'string', multiple: true },
  'expect-plan': { type: 'string', multiple: true },
  reviewed: { type: 'string', multiple: true },
  'max-plan-mb': { type: 'string' },
  prices: { type: 'string' },
  'max-chips': { type: 'string' },
  'max-hourly': { type: 'string' },
  from: { type: 'string' },
  'no-synth': { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function positive(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${flag} must be a positive ${integer ? 'whole number' : 'number'}, got '${value}'`);
  }
  return n;
}

function stackArg(flag: string, v: string): string {
  if (!/^[\w.-]+$/.test(v)) throw new UsageError(`--${flag} takes a stack name, got '${capText(v, 80)}'`);
  return v;
}

/** `--plan-failed <stack>[=<step>]`: the stacks, and the step each died at. */
function failedPlanArgs(values: readonly string[]): Pick<CliOptions, 'failedPlans' | 'failedSteps'> {
  const failedSteps: Record<string, string> = Object.create(null) as Record<string, string>;
  const failedPlans = values.map((v) => {
    const eq = v.indexOf('=');
    const stack = stackArg('plan-failed', eq < 0 ? v : v.slice(0, eq));
    if (eq >= 0) failedSteps[stack] = capText(v.slice(eq + 1).replace(/[^\w .()/-]/g, '?'), 80);
    return stack;
  });
  return { failedPlans, failedSteps };
}

/** Parses argv with node:util parseArgs; a missing value or an unknown option is a UsageError naming the flag. */
export function parseArgs(argv: readonly string[]): CliOptions {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgv({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    const e = error as { code?: string; message: string };
    // ERR_PARSE_ARGS_INVALID_OPTION_VALUE: "Option '--base <value>' argument missing"
    const flag = /'(-{1,2}[\w-]+)/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`${flag ?? 'an option'} needs a value (see --help)`);
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${flag ? `'${flag}'` : ''} (see --help)`.replace(/\s+\(/, ' ('));
    throw new UsageError(`${e.message} (see --help)`);
  }
  const str = (k: string) => values[k] as string | undefined;
  for (const k of ['out', 'base', 'prices', 'from', 'max-chips', 'max-hourly', 'max-plan-mb']) {
    // parseArgs accepts `--base --quiet` (the next flag as the value) and `--base=`; both are a missing value here.
    const v = str(k);
    if (v !== undefined && (v === '' || v.startsWith('--'))) throw new UsageError(`--${k} needs a value (see --help)`);
  }
  const pairs = (flag: string) => ((values[flag] as string[] | undefined) ?? []).map((v) => {
    const eq = v.indexOf('=');
    if (eq <= 0 || eq === v.length - 1) throw new UsageError(`--${flag} takes <stack>=<file>, got '${v}'`);
    return { stack: v.slice(0, eq), file: v.slice(eq + 1) };
  });
  const plans = pairs('plan');
  const reviewed = pairs('reviewed');
  for (const r of reviewed) if (!plans.some((p) => p.stack === r.stack)) throw new UsageError(`--reviewed ${r.stack}=${r.file} needs the new plan of ${r.stack} (--plan ${r.stack}=<file>)`);
  return {
    out: str('out') ?? 'review-report.md',
    ...(str('base') !== undefined ? { base: str('base') } : {}),
    plans,
    reviewed,
    ...failedPlanArgs((values['plan-failed'] as string[] | undefined) ?? []),
    planJobFailed: ((values['plan-job-failed'] as string[] | undefined) ?? []).map((v) => capText(v.replace(/[^\w .,:;()/-]/g, '?'), 120)),
    expectedPlans: ((values['expect-plan'] as string[] | undefined) ?? []).map((v) => stackArg('expect-plan', v)),
    maxPlanMb: positive('max-plan-mb', str('max-plan-mb'), false) ?? DEFAULT_MAX_PLAN_MB,
    ...(str('prices') !== undefined ? { prices: str('prices') } : {}),
    ...(str('max-chips') !== undefined ? { maxChips: positive('max-chips', str('max-chips'), true) } : {}),
    ...(str('max-hourly') !== undefined ? { maxHourly: positive('max-hourly', str('max-hourly'), false) } : {}),
    ...(str('from') !== undefined ? { from: str('from') } : values['no-synth'] ? { from: 'cdktf.out' } : {}),
    quiet: values.quiet === true,
    ...(values.help ? { help: true } : {}),
  };
}

/** Reads a local chart's values.yaml and templates, relative to the stack directory (TerraformAsset paths). */
function chartReader(stackDir: string): ChartReader {
  return (chart) => {
    const dir = path.resolve(stackDir, chart);
    if (!fs.existsSync(path.join(dir, 'Chart.yaml'))) return undefined;
    const templatesDir = path.join(dir, 'templates');
    const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined);
    return {
      values: read(path.join(dir, 'values.yaml')),
      templates: fs.existsSync(templatesDir) ? fs.readdirSync(templatesDir).map((f) => read(path.join(templatesDir, f)) ?? '') : [],
    };
  };
}

export function modelsOf(synthesis: Synthesis): StackModel[] {
  return synthesis.stacks.map((s) => extractStack(s.name, s.json, chartReader(s.dir)));
}

/** Managed-resource addresses (`type.name`) each synthesized stack declares. */
function stackAddresses(synthesis: Synthesis): Map<string, Set<string>> {
  return new Map(
    synthesis.stacks.map((s) => [s.name, new Set(Object.entries(s.json.resource ?? {}).flatMap(([type, byName]) => Object.keys(byName ?? {}).map((n) => `${type}.${n}`)))]),
  );
}

/** Literal resource names per synthesized stack (address -> `name` or manifest `metadata.name`), for PlanReview.namesOf. */
function stackNames(synthesis: Synthesis): Map<string, Map<string, string>> {
  return new Map(synthesis.stacks.map((s) => [s.name, new Map(Object.entries(s.json.resource ?? {}).flatMap(([type, byName]) =>
    Object.entries(byName ?? {}).flatMap(([n, attrs]) => {
      const name = identityName(attrs);
      return name === undefined || name.includes('${') ? [] : [[`${type}.${n}`, name] as const];
    })))]));
}

/** Reads a --prices file and checks it against the table's schema; errors name the file (and the key). */
export function readPrices(file: string): PriceTable {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`price file ${file}: ${(error as Error).message}`);
  }
  return parsePrices(raw, file);
}

/** How long a plan read may wait for its data to end (a FIFO whose writer never finishes), in seconds. */
export const PLAN_READ_TIMEOUT_S = 120;

/**
 * Reads and parses a plan file; errors name the file. At most `maxMb` MiB are read, whatever the file is (a regular
 * file, a FIFO, /dev/zero: util/bounded-read.ts): a larger plan is refused at the first byte over, never read in part.
 * Numbers a double does not keep are kept as written (json-scan.ts parseJsonExact).
 */
function readPlan(file: string, maxMb: number): unknown {
  let text: string;
  try {
    text = readBounded(file, { maxBytes: Math.floor(maxMb * 2 ** 20), limitName: '--max-plan-mb', timeoutMs: PLAN_READ_TIMEOUT_S * 1000, timeoutName: `the plan read bound, ${PLAN_READ_TIMEOUT_S} s` }).toString('utf8');
  } catch (error) {
    if (error instanceof BoundExceeded) {
      throw new UsageError(`--plan: ${error.message}; review a plan of fewer changes (terraform plan -target) or raise the limit`);
    }
    throw new Error(`--plan: cannot read ${file}: ${(error as Error).message}`);
  }
  // One pass finds a duplicate key, too deep nesting and the numbers a double does not keep (json-scan.ts); the text
  // must be JSON first, then free of those problems.
  const { problem, spans } = scanPlanText(text);
  let parsed: unknown;
  try {
    parsed = problem ? JSON.parse(text) : parseScanned(text, spans);
  } catch {
    let why = 'not JSON';
    try {
      JSON.parse(text);
    } catch (error) {
      // V8 quotes the text around the error ("..." is not valid JSON): the position is enough, the text may hold a secret.
      why = (error as Error).message.replace(/, (?:\.\.\.)?"[\s\S]*? is not valid JSON$/, '');
    }
    throw new Error(`--plan: ${file} is not valid JSON (${why}); write it with \`terraform show -json <planfile> > ${file}\``);
  }
  if (problem) {
    throw new Error(`--plan: ${file}: ${problem.message} at ${problem.path || '(top level)'} (line ${problem.line}): not a plan Terraform writes; the review cannot tell what it does`);
  }
  return parsed;
}

export interface ReviewResult {
  /** The report, already through the redactor. */
  readonly markdown: string;
  readonly findings: readonly Finding[];
}

/** Runs the review for parsed options; `repoDir` is the checkout (for synth and --base). */
export function run(
  options: CliOptions,
  repoDir: string,
  started = Date.now(),
  redactor = new Redactor(),
  /** How `--base` is synthesized (tests pass a synthesis). @default synthesizeRef */
  synthesizeBase: (repoDir: string, ref: string) => Synthesis = synthesizeRef,
): ReviewResult {
  let synthesis: Synthesis;
  let source: string;
  if (options.from) {
    synthesis = readSynthesis(path.resolve(options.from));
    source = `\`${options.from}\``;
  } else {
    // Synthesized again only when an input changed since the synthesis there (review/synth-cache.ts).
    const outdir = path.join(repoDir, 'cdktf.out');
    const { reused } = synthesizeIfChanged(repoDir, outdir, synthesize);
    synthesis = readSynthesis(outdir);
    source = reused ? 'the synth of the working tree in `cdktf.out`, its inputs unchanged since (review/synth-cache.ts)' : 'a fresh synth of the working tree';
  }
  // Which environment the synthesis is, and the config file and variables it was built from (main.ts writes it).
  const origin = path.join(options.from ? path.resolve(options.from) : path.join(repoDir, 'cdktf.out'), ENVIRONMENT_FILE);
  if (fs.existsSync(origin)) source += `: ${fs.readFileSync(origin, 'utf8').trim()}`;
  const models = modelsOf(synthesis);
  const prices = loadPrices(options.prices ? readPrices(options.prices) : undefined, { stackChips: options.maxChips, stackHourly: options.maxHourly });
  const addresses = stackAddresses(synthesis);
  const names = stackNames(synthesis);
  const raw = new Map<string, unknown>();
  const plans: PlanReview[] = options.plans.map(({ stack, file }) => {
    const synthesized = synthesis.stacks.find((s) => s.name === stack);
    if (!synthesized) throw new UsageError(`--plan ${stack}=${file}: no stack '${stack}' (stacks: ${synthesis.stacks.map((s) => s.name).join(', ')})`);
    const workingDir = path.relative(process.cwd(), synthesized.dir) || '.';
    raw.set(stack, readPlan(file, options.maxPlanMb));
    return reviewPlan(stack, file, raw.get(stack), { stackAddresses: addresses, stackNames: names, workingDir, redactor });
  });
  const reviewed = options.reviewed.map(({ stack, file }) => {
    const old = readPlan(file, options.maxPlanMb);
    reviewPlan(stack, file, old, { redactor }); // refuses what is not a plan, and registers its sensitive values
    return { stack, file, differences: planDifferences(old, raw.get(stack)) };
  });
  const diff = options.base ? { base: options.base, stacks: diffSyntheses(synthesizeBase(repoDir, options.base), synthesis) } : undefined;
  const texts = synthesis.stacks.map((s) => ({ stack: s.name, text: s.text, json: s.json, files: stackFolderEntries(s.dir) }));
  const findings = review(models, texts, plans, prices, diff?.stacks, options.failedPlans, reviewed, {
    failedSteps: options.failedSteps, planJobFailed: options.planJobFailed, expectedPlans: options.expectedPlans,
  });
  // Redaction first, on the raw values (the values Terraform marks sensitive, registered by reviewPlan, and the secret
  // shapes): the report then shortens and escapes them, which would leave a cut or escaped secret unmatched.
  const clean = <T>(v: T): T => redactDeep(v, (t) => redactor.text(t));
  const markdown = renderReport({
    models: clean(models), findings: clean(findings), prices, source: clean(source), diff: clean(diff), plans: clean(plans.map(reportedPlan)),
    elapsedSeconds: (Date.now() - started) / 1000,
  });
  // And once more over the whole text, for what the report itself joins; no terminal control survives (stdout).
  return { markdown: stripControls(redactor.text(markdown)), findings };
}

export function main(
  argv: readonly string[],
  /** How `--base` is synthesized (tests pass a synthesis). @default synthesizeRef */
  synthesizeBase: (repoDir: string, ref: string) => Synthesis = synthesizeRef,
): number {
  const started = Date.now();
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`review: ${(error as Error).message}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const redactor = new Redactor();
  try {
    const repoDir = path.resolve(__dirname, '..', '..');
    const result = run(options, repoDir, started, redactor, synthesizeBase);
    fs.writeFileSync(options.out, result.markdown);
    if (!options.quiet) process.stdout.write(result.markdown);
    const errors = result.findings.filter((x) => x.severity === 'error').length;
    process.stderr.write(`review: ${errors} error(s), report written to ${options.out}\n`);
    return hasErrors(result.findings) ? 1 : 0;
  } catch (error) {
    // Error text can quote a plan or the synthesis (a JSON parse error shows the text around it): redacted too.
    process.stderr.write(`review: ${stripControls(capText(redactor.text((error as Error)?.message ?? String(error)), 2000))}\n`);
    return 2;
  }
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
