/**
 * The saved-plan flow of the workflows (issue 24 items 6 and 7), run for real with stand-ins for `gh`, `terraform` and
 * `npm` on PATH: the plan job saves each stack's plan (plan-stacks.sh), the review reads exactly those
 * (review-pr.sh, the real review CLI), the deploy after the merge fetches the merged pull request's plans
 * (fetch-reviewed-plans.sh), re-plans and applies its saved plan only when it equals the reviewed one
 * (deploy-infra.sh), and the comment script edits only the workflow's own comment (post-comment.sh, the real jq
 * filter). Every case asserts the exit code and that no canary appears in stdout, stderr, the report or the comment.
 *
 * The review CLI runs compiled: review/ and jobs/ transpiled file by file (typescript.transpileModule, the project
 * sets isolatedModules) into a temporary directory.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { COMMENT_MARKER } from '../../review/report';
import { infraJson, pipelineJson } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPTS = path.join(ROOT, '.github', 'scripts');
const REAL = path.join(__dirname, 'fixtures', 'real-plans');
/** Values that must never be printed: the sensitive values of sensitive.json and sensitive-shapes.json. */
const CANARIES = ['sensitive-OLD-canary-0123', 'sensitive-NEW-canary-4567', 'canary|PIPE', 'canaryLONG', 'canary-key-', 'canary-val-'];

let tmp: string;
let dist: string;

/** Transpiles review/, jobs/ and util/ (what the review CLI imports) to `out` (CommonJS), copying JSON files. */
function transpile(out: string): void {
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.json')) fs.cpSync(path.join(ROOT, rel), path.join(out, rel));
      else if (e.name.endsWith('.ts')) {
        const js = ts.transpileModule(fs.readFileSync(path.join(ROOT, rel), 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        }).outputText;
        fs.mkdirSync(path.dirname(path.join(out, rel)), { recursive: true });
        fs.writeFileSync(path.join(out, rel.replace(/\.ts$/, '.js')), js);
      }
    }
  };
  walk('review');
  walk('jobs');
  walk('util');
}

beforeAll(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'saved-plans-dist-'));
  transpile(dist);
});
afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'saved-plans-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The stand-ins: each logs its arguments to calls.log; what they answer comes from files in the work directory. */
function standIns(): string {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const write = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\nset -euo pipefail\necho "${name} $*" >> "$WORK/calls.log"\n${body}\n`, { mode: 0o755 });
  // npm: `run --silent synth` copies the synthesis; `run --silent review -- <args>` runs the compiled review CLI.
  write('npm', `
case "$3" in
  synth) rm -rf cdktf.out; cp -r "$WORK/synthesis" cdktf.out ;;
  review) shift 4
    # --base synthesizes the base commit in a git worktree and a review without --from synthesizes the app (review/diff.ts,
    # load.ts); with STANDIN_OFFLINE the review reads cdktf.out instead (the base comparison: fail-closed.test.ts).
    if [ -n "\${STANDIN_OFFLINE:-}" ] && [ "$1" = "--base" ]; then shift 2; set -- --no-synth "$@"; fi
    NODE_PATH="$NODE_MODULES" exec node "$REVIEW_JS" "$@" ;;
  *) echo "npm stand-in: unexpected $*" >&2; exit 64 ;;
esac`);
  // terraform -chdir=<dir> <command>: plan -out=plan saves $WORK/tf/<stack>.plan.json as the plan file (or fails when
  // $WORK/tf/<stack>.fail exists); show -json prints it; apply records which plan file was applied.
  write('terraform', `
dir="\${1#-chdir=}"; stack="$(basename "$dir")"; cmd="$2"
case "$cmd" in
  init) ;;
  plan) [ ! -e "$WORK/tf/$stack.fail" ] || { echo "Error: googleapi: 403 (stand-in)" >&2; exit 1; }
        cp "$WORK/tf/$stack.plan.json" "$dir/plan" ;;
  show) cat "$dir/plan" ;;
  apply) echo "$stack $(sha256sum < "$dir/\${@: -1}" | cut -c1-16)" >> "$WORK/applied.log" ;;
  *) exit 64 ;;
esac`);
  // gh: the REST calls the scripts make, answered from $WORK/gh/; --jq filters run through the real jq.
  write('gh', `
answer() { if [ -n "\${jqf:-}" ]; then jq -r "$jqf" "$1"; else cat "$1"; fi; }
args=("$@"); jqf=""; for i in "\${!args[@]}"; do [ "\${args[$i]}" = "--jq" ] && jqf="\${args[$((i+1))]}"; done
case "$1 $2" in
  "api repos/o/r/commits/"*) answer "$WORK/gh/commit-pulls.json" ;;
  "api repos/o/r/pulls/"*) answer "$WORK/gh/pull.json" ;;
  "api --paginate") answer "$WORK/gh/comments.json" ;;
  "api --method") id="\${4##*/}"; cat > "$WORK/gh/sent-$3-$id.json" ;;
  "run list") answer "$WORK/gh/runs.json" ;;
  "run download") [ -d "$WORK/gh/artifact-$3" ] || { echo "no artifact" >&2; exit 1; }; d="\${@: -1}"; mkdir -p "$d"; cp -r "$WORK/gh/artifact-$3/." "$d/" ;;
  *) echo "gh stand-in: unexpected $*" >&2; exit 64 ;;
esac`);
  return bin;
}

/** A synthesized app: infra declares the terraform_data resources of the real plans; rl-qwen3 the pipeline. */
function synthesis(): void {
  const dir = path.join(tmp, 'synthesis');
  const stacks: Record<string, unknown> = {
    infra: { ...infraJson(), resource: { ...infraJson().resource, terraform_data: { login: {}, labels: {}, step: {} } } },
    'rl-qwen3': pipelineJson(),
  };
  const manifest: Record<string, unknown> = {};
  for (const [name, json] of Object.entries(stacks)) {
    fs.mkdirSync(path.join(dir, 'stacks', name), { recursive: true });
    fs.writeFileSync(path.join(dir, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json));
    manifest[name] = { name, synthesizedStackPath: `stacks/${name}/cdk.tf.json`, workingDirectory: `stacks/${name}` };
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: manifest }));
}

function tfPlan(stack: string, fixture: string | undefined): void {
  fs.mkdirSync(path.join(tmp, 'tf'), { recursive: true });
  if (fixture === undefined) fs.writeFileSync(path.join(tmp, 'tf', `${stack}.fail`), '');
  else fs.copyFileSync(path.join(REAL, `${fixture}.json`), path.join(tmp, 'tf', `${stack}.plan.json`));
}

interface Run {
  readonly code: number | null;
  readonly out: string;
  /** stdout, stderr and every file the flow wrote that a person reads (report, comment bodies). */
  readonly all: string;
}

function script(name: string, args: string[] = [], env: Record<string, string> = {}): Run {
  const bin = standIns();
  const r = spawnSync('bash', [path.join(SCRIPTS, name), ...args], {
    cwd: tmp,
    encoding: 'utf8',
    env: {
      PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, WORK: tmp, REVIEW_JS: path.join(dist, 'review', 'cli.js'),
      NODE_MODULES: path.join(ROOT, 'node_modules'), HOME: tmp, GITHUB_STEP_SUMMARY: path.join(tmp, 'summary.md'), ...env,
    },
  });
  const read = (f: string) => (fs.existsSync(path.join(tmp, f)) ? fs.readFileSync(path.join(tmp, f), 'utf8') : '');
  const sent = fs.existsSync(path.join(tmp, 'gh')) ? fs.readdirSync(path.join(tmp, 'gh')).filter((f) => f.startsWith('sent-')).map((f) => read(path.join('gh', f))).join('') : '';
  return { code: r.status, out: r.stdout + r.stderr, all: r.stdout + r.stderr + read('review-report.md') + read('summary.md') + sent };
}

const calls = () => fs.readFileSync(path.join(tmp, 'calls.log'), 'utf8');
const applied = () => (fs.existsSync(path.join(tmp, 'applied.log')) ? fs.readFileSync(path.join(tmp, 'applied.log'), 'utf8') : '');
const noCanary = (r: Run) => expect(CANARIES.filter((c) => r.all.includes(c))).toEqual([]);

describe('the pull request: saved plans, and the review of exactly those', () => {
  test('plan-stacks.sh saves every stack\'s plan as JSON, marks a failed one, and fails after all ran', () => {
    synthesis();
    tfPlan('infra', 'sensitive');
    tfPlan('rl-qwen3', undefined);
    const r = script('plan-stacks.sh', ['plans'], { STATE_BUCKET: 'state' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('::error::the plan of rl-qwen3 failed; the review fails on it');
    expect(fs.readFileSync(path.join(tmp, 'plans', 'infra.json'), 'utf8')).toBe(fs.readFileSync(path.join(REAL, 'sensitive.json'), 'utf8'));
    expect(fs.existsSync(path.join(tmp, 'plans', 'rl-qwen3.failed'))).toBe(true);
    expect(fs.existsSync(path.join(tmp, 'plans', 'rl-qwen3.json'))).toBe(false);
    expect(calls()).toContain('terraform -chdir=cdktf.out/stacks/infra plan -input=false -lock-timeout=5m -out=plan');
    noCanary(r);
  });

  test('review-pr.sh reviews exactly the saved plans; a failed plan fails the review (exit_code=1)', () => {
    synthesis();
    fs.cpSync(path.join(tmp, 'synthesis'), path.join(tmp, 'cdktf.out'), { recursive: true });
    fs.mkdirSync(path.join(tmp, 'plans'));
    fs.copyFileSync(path.join(REAL, 'sensitive.json'), path.join(tmp, 'plans', 'infra.json'));
    fs.writeFileSync(path.join(tmp, 'plans', 'rl-qwen3.failed'), '');
    const out = path.join(tmp, 'out.txt');
    const r = script('review-pr.sh', [], { BASE_REF: 'main', GITHUB_OUTPUT: out, STANDIN_OFFLINE: '1' });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe('exit_code=1\n');
    const report = fs.readFileSync(path.join(tmp, 'review-report.md'), 'utf8');
    expect(report).toContain('the plan step for stack rl-qwen3 failed');
    expect(report).toContain('### `infra` (`plans/infra.json`, Terraform 1.11.4)');
    expect(calls()).toMatch(/npm run --silent review -- --base origin\/main --out review-report.md --quiet --plan infra=plans\/infra.json --plan-failed rl-qwen3/);
    noCanary(r);
  });
});

describe('the deploy after the merge applies only the reviewed plan', () => {
  /** The merged pull request #7 at head abc, its plan-review run 42 with the plans artifact holding `reviewed`. */
  function github(reviewed: Record<string, string | undefined>): void {
    const gh = path.join(tmp, 'gh');
    fs.mkdirSync(path.join(gh, 'artifact-42'), { recursive: true });
    fs.writeFileSync(path.join(gh, 'commit-pulls.json'), JSON.stringify([{ number: 7, merged_at: '2026-12-01T20:00:00Z' }]));
    fs.writeFileSync(path.join(gh, 'pull.json'), JSON.stringify({ number: 7, head: { sha: 'abc' } }));
    fs.writeFileSync(path.join(gh, 'runs.json'), JSON.stringify([{ databaseId: 44, status: 'in_progress', conclusion: null }, { databaseId: 43, status: 'completed', conclusion: 'cancelled' }, { databaseId: 42, status: 'completed', conclusion: 'failure' }]));
    for (const [stack, fixture] of Object.entries(reviewed)) {
      if (fixture === undefined) fs.writeFileSync(path.join(gh, 'artifact-42', `${stack}.failed`), '');
      else fs.copyFileSync(path.join(REAL, `${fixture}.json`), path.join(gh, 'artifact-42', `${stack}.json`));
    }
  }
  const deploy = () => {
    const fetched = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(fetched.code).toBe(0);
    return script('deploy-infra.sh', [], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans' });
  };

  test('the new plan equals the reviewed one: its saved plan file is applied', () => {
    synthesis();
    github({ infra: 'sensitive-shapes' });
    tfPlan('infra', 'sensitive-shapes');
    const r = deploy();
    expect(r.code).toBe(0);
    expect(calls()).toContain('gh run download 42 -R o/r -n plans -D reviewed-plans');
    expect(calls()).toContain('npm run --silent review -- --no-synth --plan infra=deploy-plan.json --reviewed infra=reviewed-plans/infra.json');
    expect(applied()).toMatch(/^infra [0-9a-f]{16}\n$/);
    expect(calls()).toContain('terraform -chdir=cdktf.out/stacks/infra apply -input=false plan');
    noCanary(r);
  });

  test('a pipeline stack by name; the pipeline workflow refuses infra and a name that is no stack name, before any plan', () => {
    synthesis();
    github({ infra: 'sensitive-shapes' });
    const fetched = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(fetched.code).toBe(0);
    const infra = script('deploy-infra.sh', ['infra'], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans', PIPELINES_ONLY: '1' });
    expect(infra.code).toBe(2);
    expect(infra.out).toContain('::error::this workflow deploys pipeline stacks only; infra deploys on merge (deploy-infra.yml)');
    const odd = script('deploy-infra.sh', ['rl-qwen3; rm -rf /'], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans', PIPELINES_ONLY: '1' });
    expect(odd.code).toBe(2);
    expect(odd.out).toContain("::error::stack must be a stack name such as infra or rl-qwen3, got 'rl-qwen3; rm -rf /'");
    // rl-qwen3's plan was not part of the review: refused before any credential is used for a plan
    const pipeline = script('deploy-infra.sh', ['rl-qwen3'], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans', PIPELINES_ONLY: '1' });
    expect(pipeline.code).toBe(1);
    expect(pipeline.out).toContain('::error::no reviewed plan of rl-qwen3 in reviewed-plans: nothing is applied');
    expect(calls()).not.toContain('terraform -chdir=cdktf.out/stacks/rl-qwen3 plan');
    expect(applied()).toBe('');
  });

  test('the new plan differs from the reviewed one: refused, nothing applied, the difference named without values', () => {
    synthesis();
    github({ infra: 'sensitive' });
    tfPlan('infra', 'sensitive-shapes');
    const r = deploy();
    expect(r.code).toBe(1);
    expect(applied()).toBe('');
    expect(r.out).toContain('::error::the plan to apply differs from the reviewed plan or has review errors (exit 1); nothing is applied');
    expect(r.all).toMatch(/the plan of stack infra differs from the reviewed plan reviewed-plans\/infra.json: terraform_data.labels: \["update"\] is not in the reviewed plan/);
    noCanary(r);
  });

  test('the reviewed plan of infra failed, or none was saved, or the PR never had a completed review: refused', () => {
    synthesis();
    github({ infra: undefined });
    tfPlan('infra', 'sensitive');
    const r = deploy();
    expect(r.code).toBe(1);
    expect(r.out).toContain("::error::the pull request's plan of infra failed, so it was never reviewed: nothing is applied");
    expect(applied()).toBe('');

    fs.rmSync(path.join(tmp, 'gh', 'artifact-42', 'infra.failed'));
    const none = deploy();
    expect(none.code).toBe(1);
    expect(none.out).toContain('::error::no reviewed plan of infra in reviewed-plans: nothing is applied');

    fs.writeFileSync(path.join(tmp, 'gh', 'runs.json'), JSON.stringify([{ databaseId: 43, status: 'in_progress' }]));
    const unreviewed = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(unreviewed.code).toBe(1);
    expect(unreviewed.out).toContain('::error::no completed plan-review run for pull request #7 at abc');

    fs.writeFileSync(path.join(tmp, 'gh', 'commit-pulls.json'), JSON.stringify([{ number: 8, merged_at: null }]));
    const direct = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(direct.code).toBe(1);
    expect(direct.out).toContain('::error::commit m1 is not the merge of a pull request');
    expect(applied()).toBe('');
  });
});

describe("post-comment.sh edits only the workflow's own comment", () => {
  const comments = (list: unknown[]) => {
    fs.mkdirSync(path.join(tmp, 'gh'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'gh', 'comments.json'), JSON.stringify(list));
    fs.writeFileSync(path.join(tmp, 'report.md'), `${COMMENT_MARKER}\n# Plan review: ✅ no errors\n`);
  };
  const env = { GH_TOKEN: 'x', REPO: 'o/r', PR_NUMBER: '7' };

  test('a comment by someone else carrying the marker is left alone: the bot\'s own is updated', () => {
    comments([
      { id: 1, user: { login: 'mallory', type: 'User' }, body: `${COMMENT_MARKER}\nfake review` },
      { id: 2, user: { login: 'github-actions[bot]', type: 'Bot' }, body: `someone quoted ${COMMENT_MARKER}` },
      { id: 3, user: { login: 'github-actions[bot]', type: 'Bot' }, body: `${COMMENT_MARKER}\n# Plan review: old` },
    ]);
    const r = script('post-comment.sh', ['report.md'], env);
    expect(r.code).toBe(0);
    expect(r.out).toContain('updated comment 3');
    expect(calls()).toContain('gh api --method PATCH repos/o/r/issues/comments/3 --input -');
    expect(JSON.parse(fs.readFileSync(path.join(tmp, 'gh', 'sent-PATCH-3.json'), 'utf8')).body).toContain('# Plan review: ✅ no errors');
    noCanary(r);
  });

  test('only others\' comments carry the marker: a new comment is created', () => {
    comments([{ id: 1, user: { login: 'mallory', type: 'User' }, body: `${COMMENT_MARKER}\nfake review` }]);
    const r = script('post-comment.sh', ['report.md'], env);
    expect(r.code).toBe(0);
    expect(r.out).toContain('created review comment');
    expect(calls()).toContain('gh api --method POST repos/o/r/issues/7/comments --input -');
    expect(calls()).not.toContain('PATCH');
  });
});
