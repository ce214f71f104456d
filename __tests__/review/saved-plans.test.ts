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
  synth) [ ! -e "$WORK/synth.fail" ] || { echo "synth stand-in: error" >&2; exit 1; }; rm -rf cdktf.out; cp -r "$WORK/synthesis" cdktf.out ;;
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
  init) [ ! -e "$WORK/tf/$stack.init-fail" ] || { echo "Error: backend (stand-in)" >&2; exit 1; } ;;
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
  "api repos/o/r/actions/workflows/plan-review.yml") answer "$WORK/gh/workflow.json" ;;
  "api repos/o/r/actions/workflows/"*) echo "$2" >> "$WORK/gh/runs-queries.log"; answer "$WORK/gh/runs.json" ;;
  "api --paginate") answer "$WORK/gh/comments.json" ;;
  "api --method") id="\${4##*/}"; cat > "$WORK/gh/sent-$3-$id.json" ;;
  "api repos/o/r/actions/runs/"*) id="\${2#repos/o/r/actions/runs/}"; id="\${id%%/*}"; f="$WORK/gh/jobs-$id.json"
    [ -e "$f" ] || { mkdir -p "$WORK/gh"; echo '{"total_count":2,"jobs":[{"name":"tests","conclusion":"success"},{"name":"plan","conclusion":"success"}]}' > "$f"; }
    answer "$f" ;;
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
    expect(r.out).toContain('::error::the plan of rl-qwen3 failed at terraform plan; the review fails on it');
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
    expect(calls()).toMatch(/npm run --silent review -- --base origin\/main --out review-report.md --quiet --plan infra=plans\/infra.json --plan-failed rl-qwen3=unknown step/);
    noCanary(r);
  });
});

describe('the deploy after the merge applies only the reviewed plan', () => {
  /** The merged pull request #7 at head abc, its plan-review run 42 with the plans artifact holding `reviewed`. */
  function github(reviewed: Record<string, string | undefined>): void {
    const gh = path.join(tmp, 'gh');
    fs.mkdirSync(path.join(gh, 'artifact-42'), { recursive: true });
    fs.writeFileSync(path.join(gh, 'commit-pulls.json'), JSON.stringify([{ number: 7, merged_at: '2026-12-01T20:00:00Z', merge_commit_sha: 'm1' }]));
    fs.writeFileSync(path.join(gh, 'pull.json'), JSON.stringify(pull()));
    fs.writeFileSync(path.join(gh, 'workflow.json'), JSON.stringify({ id: 5, path: '.github/workflows/plan-review.yml' }));
    runs([run(44, { status: 'in_progress', conclusion: null }), run(43, { conclusion: 'cancelled' }), run(42, { conclusion: 'failure' })]);
    fs.writeFileSync(path.join(gh, 'artifact-42', 'stacks.txt'), `${Object.keys(reviewed).join('\n')}\n`);
    fs.writeFileSync(path.join(gh, 'artifact-42', 'pull-request.txt'), '7 main\n');
    for (const [stack, fixture] of Object.entries(reviewed)) {
      if (fixture === undefined) fs.writeFileSync(path.join(gh, 'artifact-42', `${stack}.failed`), '');
      else fs.copyFileSync(path.join(REAL, `${fixture}.json`), path.join(gh, 'artifact-42', `${stack}.json`));
    }
  }
  /** The merged pull request #7 (REST `pulls/7`), with `over` replacing fields. */
  const pull = (over: Record<string, unknown> = {}) => ({
    number: 7, merged: true, merge_commit_sha: 'm1', head: { sha: 'abc', ref: 'feature', repo: { full_name: 'o/r' } }, base: { ref: 'main', repo: { full_name: 'o/r' } }, ...over,
  });
  /** A plan-review run (REST workflow_run) of pull request #7 at abc in o/r, completed, with `over` replacing fields. */
  const run = (id: number, over: Record<string, unknown> = {}) => ({
    id, html_url: `https://github.com/o/r/actions/runs/${id}`, workflow_id: 5, path: '.github/workflows/plan-review.yml', event: 'pull_request',
    head_sha: 'abc', head_branch: 'feature', status: 'completed', conclusion: 'success', created_at: `2026-12-01T${String(id % 24).padStart(2, '0')}:00:00Z`,
    repository: { full_name: 'o/r' }, head_repository: { full_name: 'o/r' },
    // What GitHub's REST API returns for a merged pull request's run: `pull_requests` lists open pull requests only
    // (github/rest-api-description api.github.com.json, components.schemas.workflow-run.pull_requests).
    pull_requests: [], ...over,
  });
  const runs = (list: unknown[]) => fs.writeFileSync(path.join(tmp, 'gh', 'runs.json'), JSON.stringify({ total_count: list.length, workflow_runs: list }));
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
    expect(r.all).toContain('reviewed plans of pull request #7 from plan-review run 42 (https://github.com/o/r/actions/runs/42), head abc, merged as m1');
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
    expect(r.all).toMatch(/the plan of stack infra differs from the reviewed plan reviewed-plans\/infra.json: terraform_data.labels: \\\["update"\\\] is not in the reviewed plan/);
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

    runs([run(43, { status: 'in_progress', conclusion: null })]);
    const unreviewed = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(unreviewed.code).toBe(1);
    expect(unreviewed.out).toContain('::error::no completed plan-review run (.github/workflows/plan-review.yml of o/r) of pull request #7 at abc');

    fs.writeFileSync(path.join(tmp, 'gh', 'commit-pulls.json'), JSON.stringify([{ number: 8, merged_at: null, merge_commit_sha: 'm1' }]));
    const direct = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
    expect(direct.code).toBe(1);
    expect(direct.out).toContain('::error::commit m1 is not the merge of a pull request');
    expect(applied()).toBe('');
  });
});

describe('the deploy takes only a run of this pull request, this repository and the plan-review workflow file', () => {
  const fetch = () => script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x' });
  const gh = (file: string, value: unknown) => fs.writeFileSync(path.join(tmp, 'gh', file), JSON.stringify(value));
  /** Runs 42 (this pull request's, its own infra plan failed) and `others`, each with a plans artifact holding sensitive.json. */
  function setUp(others: Array<Record<string, unknown>>): void {
    fs.mkdirSync(path.join(tmp, 'gh'), { recursive: true });
    gh('commit-pulls.json', [{ number: 7, merged_at: '2026-12-01T20:00:00Z', merge_commit_sha: 'm1' }]);
    gh('pull.json', { number: 7, merged: true, merge_commit_sha: 'm1', head: { sha: 'abc', ref: 'feature', repo: { full_name: 'o/r' } }, base: { ref: 'main', repo: { full_name: 'o/r' } } });
    gh('workflow.json', { id: 5 });
    const base = {
      workflow_id: 5, path: '.github/workflows/plan-review.yml', event: 'pull_request', head_sha: 'abc', head_branch: 'feature', status: 'completed', conclusion: 'failure',
      repository: { full_name: 'o/r' }, head_repository: { full_name: 'o/r' }, pull_requests: [],
    };
    const list = [{ ...base, id: 42, html_url: 'u42', created_at: '2026-12-01T10:00:00Z' }, ...others.map((o, i) => ({ ...base, id: 50 + i, html_url: `u${50 + i}`, created_at: `2026-12-01T1${i + 1}:00:00Z`, ...o }))];
    gh('runs.json', { total_count: list.length, workflow_runs: list });
    for (const r of list) {
      const dir = path.join(tmp, 'gh', `artifact-${r.id}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'stacks.txt'), 'infra\n');
      fs.writeFileSync(path.join(dir, 'pull-request.txt'), `${String((r as { pr?: string }).pr ?? '7 main')}\n`);
      if (r.id === 42) fs.writeFileSync(path.join(dir, 'infra.failed'), 'plan\n');
      else fs.copyFileSync(path.join(REAL, 'sensitive.json'), path.join(dir, 'infra.json'));
    }
  }

  test.each([
    ['another pull request with the same head commit (its artifact says #9)', { pr: '9 main' }],
    ['the same pull request number into another base branch', { pr: '7 dev' }],
    ['a fork (another head repository)', { head_repository: { full_name: 'mallory/r' } }],
    ['another head branch', { head_branch: 'other' }],
    ['another workflow file named plan-review', { workflow_id: 6, path: '.github/workflows/evil.yml' }],
    ['another repository', { repository: { full_name: 'mallory/r' } }],
    ['a push, not a pull request', { event: 'push' }],
    ['another head commit', { head_sha: 'def' }],
  ])('a newer run of %s is never taken: this pull request\'s own run (its plan failed) is, and nothing is applied', (_what, over) => {
    synthesis();
    setUp([over]);
    tfPlan('infra', 'sensitive');
    const fetched = fetch();
    expect(fetched.code).toBe(0);
    expect(fetched.out).toContain('from plan-review run 42 (u42)');
    expect(calls()).toContain('gh run download 42 -R o/r -n plans -D reviewed-plans');
    const r = script('deploy-infra.sh', [], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans' });
    expect(r.code).toBe(1);
    expect(r.out).toContain("::error::the pull request's plan of infra failed, so it was never reviewed: nothing is applied");
    expect(applied()).toBe('');
    noCanary(r);
    noCanary(fetched);
  });

  test('the run query asks for pull_request runs of the workflow id at the head commit', () => {
    synthesis();
    setUp([]);
    fetch();
    expect(fs.readFileSync(path.join(tmp, 'gh', 'runs-queries.log'), 'utf8')).toBe('repos/o/r/actions/workflows/5/runs?event=pull_request&head_sha=abc&per_page=100\n');
  });

  test.each([
    ['merged as another commit', { merge_commit_sha: 'm0' }, 'pull request #7 merged as m0, not as m1'],
    ['not merged', { merged: false }, 'pull request #7 is not merged'],
    ['merged into another branch', { base: { ref: 'dev', repo: { full_name: 'o/r' } } }, 'pull request #7 merged into o/r:dev, not o/r:main'],
  ])('a pull request %s: refused before any download', (_what, over, message) => {
    synthesis();
    setUp([{ conclusion: 'success' }]);
    gh('pull.json', { number: 7, merged: true, merge_commit_sha: 'm1', head: { sha: 'abc' }, base: { ref: 'main', repo: { full_name: 'o/r' } }, ...over });
    const r = script('fetch-reviewed-plans.sh', ['reviewed-plans'], { REPO: 'o/r', COMMIT: 'm1', GH_TOKEN: 'x', PR_NUMBER: '7' });
    expect(r.code).toBe(1);
    expect(r.out).toContain(`::error::${message}`);
    expect(calls()).not.toContain('gh run download');
  });

  test.each([
    ['skipped (the tests failed)', 'skipped'],
    ['cancelled', 'cancelled'],
  ])('the newest run\'s plan job was %s: it made no plan, the older run is taken', (_what, conclusion) => {
    synthesis();
    setUp([{ conclusion: 'failure' }]);
    gh('jobs-50.json', { total_count: 2, jobs: [{ name: 'tests', conclusion: 'failure' }, { name: 'plan', conclusion }] });
    const r = fetch();
    expect(r.code).toBe(0);
    expect(r.out).toContain('from plan-review run 42 (u42)');
    expect(calls()).not.toContain('gh run download 50');
  });

  test('every run refused (plan job skipped, another pull request\'s plans): refused, each reason named, no plans left', () => {
    synthesis();
    setUp([{ pr: '9 main' }]);
    gh('jobs-42.json', { total_count: 1, jobs: [{ name: 'plan', conclusion: 'skipped' }] });
    const r = fetch();
    expect(r.code).toBe(1);
    expect(r.out).toContain('run 50: its plans are of pull request 9 into main, not #7 into main');
    expect(r.out).toContain('run 42: its plan job is skipped (skipped when the tests failed): no plan was made');
    expect(fs.existsSync(path.join(tmp, 'reviewed-plans'))).toBe(false);
  });

  test('a pull request from a fork: refused before any run is looked up (a fork\'s run has no plan identity)', () => {
    synthesis();
    setUp([]);
    gh('pull.json', { number: 7, merged: true, merge_commit_sha: 'm1', head: { sha: 'abc', ref: 'feature', repo: { full_name: 'mallory/r' } }, base: { ref: 'main', repo: { full_name: 'o/r' } } });
    const r = fetch();
    expect(r.code).toBe(1);
    expect(r.out).toContain('::error::pull request #7 came from mallory/r, not o/r');
    expect(calls()).not.toContain('gh run download');
  });

  test('an artifact without stacks.txt (not written by plan-stacks.sh) is refused', () => {
    synthesis();
    setUp([{ conclusion: 'success' }]);
    fs.rmSync(path.join(tmp, 'gh', 'artifact-50', 'stacks.txt'));
    fs.rmSync(path.join(tmp, 'gh', 'artifact-42', 'stacks.txt'));
    const r = fetch();
    expect(r.code).toBe(1);
    expect(r.out).toContain('run 50: the plans artifact has no stacks.txt (not written by plan-stacks.sh)');
  });

  test('the reviewed plan job died outside a stack (plan-job.failed): nothing is applied, the step named', () => {
    synthesis();
    setUp([{ conclusion: 'success' }]);
    fs.writeFileSync(path.join(tmp, 'gh', 'artifact-50', 'plan-job.failed'), 'synth\n');
    tfPlan('infra', 'sensitive');
    expect(fetch().code).toBe(0);
    const r = script('deploy-infra.sh', [], { STATE_BUCKET: 'state', REVIEWED_PLANS: 'reviewed-plans' });
    expect(r.code).toBe(1);
    expect(r.out).toContain("::error::the pull request's plan job failed at 'synth'");
    expect(applied()).toBe('');
  });
});

describe('a plan job that fails before, during or after planning fails the review, naming the stack and the step', () => {
  const review = (env: Record<string, string> = {}) => {
    synthesis();
    fs.cpSync(path.join(tmp, 'synthesis'), path.join(tmp, 'cdktf.out'), { recursive: true });
    const out = path.join(tmp, 'out.txt');
    fs.rmSync(out, { force: true });
    const r = script('review-pr.sh', [], { BASE_REF: 'main', GITHUB_OUTPUT: out, STANDIN_OFFLINE: '1', ...env });
    return { r, exit: fs.readFileSync(out, 'utf8'), report: fs.readFileSync(path.join(tmp, 'review-report.md'), 'utf8') };
  };

  test('STATE_BUCKET unset: the job fails before its loop, plan-job.failed names the step, the review errors', () => {
    synthesis();
    const plan = script('plan-stacks.sh', ['plans'], {});
    expect(plan.code).not.toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'plans', 'plan-job.failed'), 'utf8')).toBe('STATE_BUCKET\n');
    expect(plan.out).toContain("::error::the plan job failed at step 'STATE_BUCKET'");
    const { r, exit, report } = review({ PLAN_JOB_RESULT: 'failure', PLANNED: 'failure' });
    expect(r.code).toBe(0);
    expect(exit).toBe('exit_code=1\n');
    expect(report).toContain('the plan job failed at STATE_BUCKET');
    expect(report).toMatch(/🛑 error \| \(all\) \| `\(plan job\)` \|/);
    expect(report).toContain('# Plan review: 🛑');
    expect(report).toContain('**No Terraform plan was reviewed**');
    noCanary(r);
  });

  test('synth fails: plan-job.failed says synth, no stack marker, the review errors', () => {
    synthesis();
    fs.writeFileSync(path.join(tmp, 'synth.fail'), '');
    const plan = script('plan-stacks.sh', ['plans'], { STATE_BUCKET: 'state' });
    expect(plan.code).not.toBe(0);
    expect(fs.readdirSync(path.join(tmp, 'plans'))).toEqual(['plan-job.failed', 'pull-request.txt']);
    expect(fs.readFileSync(path.join(tmp, 'plans', 'plan-job.failed'), 'utf8')).toBe('synth\n');
    fs.rmSync(path.join(tmp, 'synth.fail'));
    const { exit, report } = review({ PLAN_JOB_RESULT: 'failure', PLANNED: 'failure' });
    expect(exit).toBe('exit_code=1\n');
    expect(report).toContain('the plan job failed at synth');
  });

  test('a stack\'s init fails: its marker names the step; the other stack is planned; the review names both', () => {
    synthesis();
    tfPlan('infra', 'sensitive');
    tfPlan('rl-qwen3', 'no-changes');
    fs.writeFileSync(path.join(tmp, 'tf', 'rl-qwen3.init-fail'), '');
    const plan = script('plan-stacks.sh', ['plans'], { STATE_BUCKET: 'state' });
    expect(plan.code).toBe(1);
    expect(plan.out).toContain('::error::the plan of rl-qwen3 failed at terraform init');
    expect(fs.readFileSync(path.join(tmp, 'plans', 'rl-qwen3.failed'), 'utf8')).toBe('init\n');
    expect(fs.readFileSync(path.join(tmp, 'plans', 'stacks.txt'), 'utf8')).toBe('infra\nrl-qwen3\n');
    expect(fs.existsSync(path.join(tmp, 'plans', 'plan-job.failed'))).toBe(false);
    const { r, exit, report } = review({ PLAN_JOB_RESULT: 'failure', PLANNED: 'failure' });
    expect(exit).toBe('exit_code=1\n');
    expect(report).toContain('the plan step for stack rl-qwen3 failed at terraform init');
    expect(report).not.toContain('the plan job failed at');
    expect(calls()).toContain('--plan infra=plans/infra.json --plan-failed rl-qwen3=init --expect-plan infra --expect-plan rl-qwen3');
    noCanary(r);
  });

  test('a stack the job planned has no plan in the artifact: an error naming it', () => {
    fs.mkdirSync(path.join(tmp, 'plans'));
    fs.writeFileSync(path.join(tmp, 'plans', 'stacks.txt'), 'infra\nrl-qwen3\n');
    fs.copyFileSync(path.join(REAL, 'sensitive.json'), path.join(tmp, 'plans', 'infra.json'));
    const { exit, report } = review({ PLAN_JOB_RESULT: 'success', PLANNED: 'success' });
    expect(exit).toBe('exit_code=1\n');
    expect(report).toContain('the plan job planned stack rl-qwen3 but neither its plan nor a failure marker reached the review');
  });

  test('the plan job failed without a marker, or its artifact never arrived: an error, not "no errors"', () => {
    const failed = review({ PLAN_JOB_RESULT: 'failure' });
    expect(failed.exit).toBe('exit_code=1\n');
    expect(failed.report).toContain('the plan job failed at the plan job (failure, no marker: see its log)');
    const lost = review({ PLAN_JOB_RESULT: 'success', PLANNED: 'success' });
    expect(lost.exit).toBe('exit_code=1\n');
    expect(lost.report).toContain('the plan job failed at downloading the plans artifact (the plans step ran: success)');
    // The tests failed, so the plan job was skipped: no plan, and the review fails instead of "no errors".
    const skipped = review({ PLAN_JOB_RESULT: 'skipped' });
    expect(skipped.exit).toBe('exit_code=1\n');
    expect(skipped.report).toContain('the plan job (skipped: the tests failed, nothing was planned)');
  });

  test('no plan identity (a fork: the plans step skipped): the synthesized review, saying no plan was reviewed', () => {
    const { exit, report } = review({ PLAN_JOB_RESULT: 'success', PLANNED: 'skipped' });
    expect(exit).toBe('exit_code=0\n');
    expect(report).toContain('**No Terraform plan was reviewed**');
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
