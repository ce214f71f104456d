/**
 * `npm run review [-- options]`: synthesizes the app (or reads a synthesized one), reviews every stack, and writes
 * one Markdown report to stdout and to a file. Exits 1 when there is an error finding, 2 on a usage or tool failure.
 *
 *   --out <file>            report file (default review-report.md)
 *   --base <git ref>        also synthesize <ref> in a temporary worktree (offline) and report the change per stack
 *   --plan <stack>=<file>   `terraform show -json` output of a stack's plan (repeatable)
 *   --prices <file>         price table replacing review/prices.json
 *   --from <dir>            read an existing synthesis from <dir> instead of synthesizing
 *   --no-synth              same as --from cdktf.out
 *   --quiet                 do not print the report to stdout
 */
import * as fs from 'fs';
import * as path from 'path';
import { diffSyntheses, synthesizeRef } from './diff';
import { Finding, hasErrors, review } from './findings';
import { readSynthesis, Synthesis, synthesize } from './load';
import { ChartReader, extractStack, StackModel } from './model';
import { PlanReview, reviewPlan } from './plan';
import { loadPrices } from './prices';
import { renderReport } from './report';

export interface CliOptions {
  out: string;
  base?: string;
  plans: Array<{ stack: string; file: string }>;
  prices?: string;
  from?: string;
  quiet: boolean;
}

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { out: 'review-report.md', plans: [], quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') && arg.startsWith('--') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--out': options.out = value(); break;
      case '--base': options.base = value(); break;
      case '--prices': options.prices = value(); break;
      case '--from': options.from = value(); break;
      case '--no-synth': options.from = 'cdktf.out'; break;
      case '--quiet': options.quiet = true; break;
      case '--plan': {
        const v = value();
        const eq = v.indexOf('=');
        if (eq <= 0) throw new UsageError(`--plan takes <stack>=<file>, got '${v}'`);
        options.plans.push({ stack: v.slice(0, eq), file: v.slice(eq + 1) });
        break;
      }
      case '--help': case '-h':
        throw new UsageError('usage: npm run review -- [--out file] [--base ref] [--plan stack=file]... [--prices file] [--from dir | --no-synth] [--quiet]');
      default:
        throw new UsageError(`unknown option '${arg}' (see --help)`);
    }
  }
  return options;
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

export interface ReviewResult {
  readonly markdown: string;
  readonly findings: readonly Finding[];
}

/** Runs the review for parsed options; `repoDir` is the checkout (for synth and --base). */
export function run(options: CliOptions, repoDir: string, started = Date.now()): ReviewResult {
  let synthesis: Synthesis;
  let source: string;
  if (options.from) {
    synthesis = readSynthesis(path.resolve(options.from));
    source = code(options.from);
  } else {
    const outdir = path.join(repoDir, 'cdktf.out');
    synthesize(repoDir, outdir);
    synthesis = readSynthesis(outdir);
    source = 'a fresh synth of the working tree';
  }
  const models = modelsOf(synthesis);
  const prices = loadPrices(options.prices);
  const plans: PlanReview[] = options.plans.map(({ stack, file }) => {
    if (!synthesis.stacks.some((s) => s.name === stack)) {
      throw new UsageError(`--plan ${stack}=${file}: no stack '${stack}' (stacks: ${synthesis.stacks.map((s) => s.name).join(', ')})`);
    }
    return reviewPlan(stack, file, JSON.parse(fs.readFileSync(file, 'utf8')) as unknown);
  });
  const diff = options.base
    ? { base: options.base, stacks: diffSyntheses(synthesizeRef(repoDir, options.base), synthesis) }
    : undefined;
  const findings = [
    ...review(models, synthesis.stacks.map((s) => ({ stack: s.name, text: s.text, json: s.json }))),
    ...plans.flatMap((p) => p.findings),
  ];
  const markdown = renderReport({ models, findings, prices, source, diff, plans, elapsedSeconds: (Date.now() - started) / 1000 });
  return { markdown, findings };
}

function code(s: string): string {
  return `\`${s}\``;
}

export function main(argv: readonly string[]): number {
  const started = Date.now();
  try {
    const options = parseArgs(argv);
    const repoDir = path.resolve(__dirname, '..', '..');
    const result = run(options, repoDir, started);
    fs.writeFileSync(options.out, result.markdown);
    if (!options.quiet) process.stdout.write(result.markdown);
    const errors = result.findings.filter((x) => x.severity === 'error').length;
    process.stderr.write(`review: ${errors} error(s), report written to ${options.out}\n`);
    return hasErrors(result.findings) ? 1 : 0;
  } catch (error) {
    process.stderr.write(`review: ${(error as Error).message}\n`);
    return 2;
  }
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
