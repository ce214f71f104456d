#!/usr/bin/env node
// scripts/house-move.mjs <checkout>: moves tpu-post-training's jobs/ into rooms (issue 47 item 3), deterministically.
//
//   jobs/domain/     TPU, machines, zones, models, prices, names, capacity, quantities, state names, image refs, secrets
//   jobs/recipes/    spec, methods, presets, validation, fit (HBM), MaxText arguments, reward, log formats, run record
//   jobs/manifests/  JobSet, Argo, Kueue, eval, vLLM, serve, watchers, notifications, rehearsal, step time, the pipeline
//   jobs/records/    the cluster record of a pipeline, lineage, the deployment
// (Where the issue's example put secrets under manifests and run/rehearsal records and step time under records, the
// imports decide: each of those is imported by a room the issue puts before it; see MAPPING's comments.)
//
// One mapping table (MAPPING, below) names every file of jobs/: a jobs/ file missing from it, or a mapped file that is
// not there, is named and the script stops before it changes anything (run it again after adding the row).
// What it changes, in this order, all computed before anything is written:
//   1. every relative module specifier or path string in .ts/.mjs/.cjs/.js files (sources, tests, bench, scripts, the
//      stryker config) that resolves to a repository file is recomputed from the file's new place to its target's;
//   2. path segments written as string lists (`path.join(ROOT, 'jobs', 'prices.json')`, `'dist', 'jobs', 'tpu.js'`);
//   3. every textual mention of a moved path (`jobs/pipeline.ts`, `jobs/methods/`, markdown links `../jobs/models.ts`)
//      in code comments, docs, README, .ci and .github files; `__tests__/jobs/...` is a test folder and stays;
//   4. `git mv` of every file (history kept).
// Then it prints the room graph from the imports and every import that points the wrong way between rooms
// (ROOM_ORDER: a room imports only rooms before it), and exits 3 when there is one (the tree is still moved).
// Running it twice stops at step 0: the moved files are not in the table's left column.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

/** Rooms, in the one direction imports may point: a room imports only rooms before it. */
const ROOM_ORDER = ['jobs/domain', 'jobs/recipes', 'jobs/manifests', 'jobs/records'];

/** Every file of jobs/ -> its room (the new path is jobs/<room>/<rest>). */
const MAPPING = {
  // domain: facts of the platform
  'jobs/tpu.ts': 'domain/tpu.ts',
  'jobs/machines.ts': 'domain/machines.ts',
  'jobs/zones.ts': 'domain/zones.ts',
  'jobs/models.ts': 'domain/models.ts',
  'jobs/prices.ts': 'domain/prices.ts',
  'jobs/prices.json': 'domain/prices.json',
  'jobs/names.ts': 'domain/names.ts',
  'jobs/capacity.ts': 'domain/capacity.ts',
  'jobs/quantity.ts': 'domain/quantity.ts',
  'jobs/state-names.ts': 'domain/state-names.ts',
  'jobs/image-ref.ts': 'domain/image-ref.ts',
  'jobs/hf-id.ts': 'domain/hf-id.ts',
  'jobs/platform.ts': 'domain/platform.ts',
  'jobs/spec-key.ts': 'domain/spec-key.ts',
  // the lock's format and reader (jobs of its own: no import beyond image refs)
  'jobs/lock.ts': 'domain/lock.ts',
  // the HF token's home (mount path, secret id, the command that stores it); its one builder needs only the platform
  'jobs/secrets.ts': 'domain/secrets.ts',
  // recipes: what a pipeline computes
  'jobs/spec.ts': 'recipes/spec.ts',
  'jobs/validate.ts': 'recipes/validate.ts',
  'jobs/hbm.ts': 'recipes/hbm.ts',
  'jobs/maxtext.ts': 'recipes/maxtext.ts',
  'jobs/maxtext-defaults.ts': 'recipes/maxtext-defaults.ts',
  'jobs/maxtext-keys.ts': 'recipes/maxtext-keys.ts',
  'jobs/reward.ts': 'recipes/reward.ts',
  'jobs/recipe-files.ts': 'recipes/recipe-files.ts',
  'jobs/budget.ts': 'recipes/budget.ts',
  'jobs/run-log.ts': 'recipes/run-log.ts',
  // MaxText's goodput flags of a train step (maxtext.ts adds them)
  'jobs/goodput.ts': 'recipes/goodput.ts',
  // what a step writes of its run (the pipeline's scripts write it, status reads it)
  'jobs/run-record.ts': 'recipes/run-record.ts',
  'jobs/methods/common.ts': 'recipes/methods/common.ts',
  'jobs/methods/dpo.ts': 'recipes/methods/dpo.ts',
  'jobs/methods/index.ts': 'recipes/methods/index.ts',
  'jobs/methods/kind.ts': 'recipes/methods/kind.ts',
  'jobs/methods/rl.ts': 'recipes/methods/rl.ts',
  'jobs/methods/sft.ts': 'recipes/methods/sft.ts',
  'jobs/methods/types.ts': 'recipes/methods/types.ts',
  'jobs/recipes/common.ts': 'recipes/presets/common.ts',
  'jobs/recipes/index.ts': 'recipes/presets/index.ts',
  'jobs/recipes/rl-gemma4.ts': 'recipes/presets/rl-gemma4.ts',
  'jobs/recipes/rl-llama3.ts': 'recipes/presets/rl-llama3.ts',
  'jobs/recipes/rl-qwen3.ts': 'recipes/presets/rl-qwen3.ts',
  'jobs/recipes/sft-gemma4.ts': 'recipes/presets/sft-gemma4.ts',
  'jobs/recipes/types.ts': 'recipes/presets/types.ts',
  // manifests: Kubernetes objects
  'jobs/jobset.ts': 'manifests/jobset.ts',
  'jobs/hf-revision.ts': 'manifests/hf-revision.ts',
  'jobs/vllm.ts': 'manifests/vllm.ts',
  'jobs/eval.ts': 'manifests/eval.ts',
  'jobs/serve.ts': 'manifests/serve.ts',
  'jobs/kueue.ts': 'manifests/kueue.ts',
  'jobs/lost-host.ts': 'manifests/lost-host.ts',
  'jobs/argo.ts': 'manifests/argo.ts',
  'jobs/notifications.ts': 'manifests/notifications.ts',
  'jobs/rehearsal.ts': 'manifests/rehearsal.ts',
  // the verdict writer's JobSet and the record it writes; the Workflow's exit handler runs it
  'jobs/rehearsal-record.ts': 'manifests/rehearsal-record.ts',
  // the start-up and checkpoint timing checks of the train step (reads vLLM's start-up figures)
  'jobs/step-time.ts': 'manifests/step-time.ts',
  'jobs/pipeline-options.ts': 'manifests/pipeline-options.ts',
  'jobs/pipeline.ts': 'manifests/pipeline.ts',
  // the lock applied to a built pipeline (its images, the data it loads): reads the pipeline and its manifests' images
  'jobs/lock-apply.ts': 'manifests/lock-apply.ts',
  'jobs/admission.ts': 'manifests/admission.ts',
  'jobs/dashboard.ts': 'manifests/dashboard.ts',
  // records: what a run leaves, and the deployment that names it all
  'jobs/lineage.ts': 'records/lineage.ts',
  'jobs/record.ts': 'records/record.ts',
  'jobs/deployment.ts': 'records/deployment.ts',
};

const CODE = /\.(ts|mjs|cjs|js)$/;
const TEXT = /\.(ts|mjs|cjs|js|md|sh|ya?ml|txt)$|^\.ci\/|^\.github\/|(^|\/)(Dockerfile|Makefile)$/;

function fail(lines, code = 1) {
  for (const l of lines) process.stderr.write(`house-move: ${l}\n`);
  process.exit(code);
}

const reportOnly = process.argv[2] === '--report';
const root = path.resolve(process.argv[reportOnly ? 3 : 2] ?? fail(['usage: node house-move.mjs [--report] <checkout>'], 2));
/** The checkout's own TypeScript (its parser finds the string literals): run `npm ci` there first. */
let ts;
try {
  ts = createRequire(path.join(root, 'package.json'))('typescript');
} catch {
  fail([`${root}: no node_modules/typescript: run npm ci there first`, 'nothing was changed']);
}
const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
const files = git('ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter((f) => f !== '' && existsSync(path.join(root, f)));
const fileSet = new Set(files);

if (reportOnly) {
  report();
  process.exit(process.exitCode ?? 0);
}

// 0. The table names every jobs/ file, and only files that are there.
const inJobs = files.filter((f) => f.startsWith('jobs/'));
const unmapped = inJobs.filter((f) => !(f in MAPPING));
const absent = Object.keys(MAPPING).filter((f) => !fileSet.has(f));
if (unmapped.length > 0 || absent.length > 0) {
  fail([
    ...unmapped.map((f) => `${f} is in jobs/ but not in MAPPING: give it a room (a row 'jobs/...': '<room>/...') and run again`),
    ...absent.map((f) => `${f} is in MAPPING but not in the checkout: remove its row (or restore the file) and run again`),
    'nothing was changed',
  ]);
}
const moved = new Map(Object.entries(MAPPING).map(([from, to]) => [from, `jobs/${to}`]));
const newPath = (f) => moved.get(f) ?? f;
/** Old folder -> new folder, for folder mentions (jobs/methods/ -> jobs/recipes/methods/). */
const movedDirs = new Map();
for (const [from, to] of moved) {
  const [fd, td] = [path.posix.dirname(from), path.posix.dirname(to)];
  if (fd !== 'jobs' && !movedDirs.has(fd)) movedDirs.set(fd, td);
}

/** The repository file a relative specifier written in `file` names (extension-less, a folder's index, .js for .ts). */
function resolveFrom(file, spec) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  const candidates = [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts'), `${base}.json`];
  for (const c of candidates) if (fileSet.has(c)) return { target: c, form: c === base ? 'exact' : c === `${base}/index.ts` ? 'dir' : c === `${base}.ts` ? 'bare' : c === `${base}.json` ? 'bare' : 'js' };
  if (movedDirs.has(base)) return { target: base, form: 'folder' };
  return undefined;
}

function relative(fromFile, to) {
  let r = path.posix.relative(path.posix.dirname(fromFile), to);
  if (!r.startsWith('.')) r = `./${r}`;
  return r;
}

/** 1. A relative specifier of `file` rewritten for both moves; unchanged when neither side moved. */
function respecify(file, spec) {
  const hit = resolveFrom(file, spec);
  if (!hit) return spec;
  const { target, form } = hit;
  const dest = form === 'folder' ? movedDirs.get(target) : newPath(target);
  if (newPath(file) === file && dest === target) return spec;
  const trailing = spec.endsWith('/') ? '/' : '';
  switch (form) {
    case 'exact':
    case 'folder':
      return relative(newPath(file), dest) + trailing;
    case 'dir':
      return relative(newPath(file), path.posix.dirname(dest));
    case 'bare':
      return relative(newPath(file), dest.replace(/\.(ts|json)$/, ''));
    case 'js':
      return relative(newPath(file), dest.replace(/\.ts$/, '.js'));
  }
  return spec;
}

/** Old path mentions (files with and without extension, .js of .ts, folders), longest first. */
const mentions = [];
for (const [from, to] of moved) {
  mentions.push([from, to]);
  if (from.endsWith('.ts')) {
    mentions.push([from.replace(/\.ts$/, '.js'), to.replace(/\.ts$/, '.js')]);
    mentions.push([from.replace(/\.ts$/, ''), to.replace(/\.ts$/, '')]);
    if (from.endsWith('/index.ts')) mentions.push([path.posix.dirname(from), path.posix.dirname(to)]);
  }
}
for (const [from, to] of movedDirs) mentions.push([from, to]);
mentions.sort((a, b) => b[0].length - a[0].length || a[0].localeCompare(b[0]));
const mentionMap = new Map(mentions);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// jobs/<path> not inside a longer name (`__tests__/jobs/...` is a test folder; `sub-jobs/` is another word).
const MENTION = new RegExp(`(?<![\\w.-])(?<!__tests__/)(${mentions.map(([m]) => escape(m)).join('|')})(?![\\w-])`, 'g');

/** 2. `'jobs', 'x.ts'` segment lists: the moved path's segments. */
function resegment(text) {
  return text.replace(/(['"])jobs\1(\s*,\s*)(['"])([\w.-]+)\3/g, (all, q, sep, q2, name) => {
    const old = `jobs/${name}`;
    const to = mentionMap.get(old);
    if (to === undefined) return all;
    return to.split('/').map((s) => `${q}${s}${q}`).join(sep);
  });
}

/** 3. Textual mentions of moved paths. */
const remention = (text) => text.replace(MENTION, (m) => mentionMap.get(m) ?? m);

/** A literal's text with a leading moved path rewritten (`jobs/methods/${f}`, `'../jobs/prices.json'`); else unchanged. */
function leadingMention(body) {
  const m = /^((?:\.\.?\/)*)(jobs\/[\w./-]*)/.exec(body);
  if (!m) return body;
  return m[1] + remention(m[2]) + body.slice(m[0].length);
}

/**
 * A file's new text: its relative specifiers, segment lists and mentions rewritten. In code, the string and template
 * literals are found by the TypeScript parser (the checkout's own typescript); a literal is rewritten only where it
 * starts with a path (a specifier, a file a test reads): a path inside a longer text (`code: jobs/jobset.ts
 * PATHWAYS_IMAGES.proxy`, `estimate: jobs/hbm.ts`) is what the program prints, and the synthesized output does not
 * move (__tests__/golden); those are listed at the end for a deliberate re-record. Comments are rewritten.
 */
function rewrite(file, text) {
  if (!CODE.test(file)) return remention(text);
  const source = resegment(text);
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, /\.(mjs|cjs|js)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const literals = [];
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      literals.push([node.getStart(sf), node.end, node]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  literals.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end, node] of literals) {
    if (start < at) continue;
    out += remention(source.slice(at, start));
    const raw = source.slice(start, end);
    // The quote or template punctuation around the text: ', ", `, ${, }.
    const open = raw.startsWith('`') || raw.startsWith('}') ? 1 : 1;
    const close = raw.endsWith('${') ? 2 : 1;
    const body = raw.slice(open, raw.length - close);
    // A relative path that names a repository file: recomputed from both moves; any other text: its leading path.
    const resolved = ts.isStringLiteral(node) && /^\.\.?\//.test(body) && resolveFrom(file, body) !== undefined;
    const next = resolved ? respecify(file, body) : leadingMention(body);
    MENTION.lastIndex = 0;
    if (!resolved && MENTION.test(body.replace(/^((?:\.\.?\/)*)(jobs\/[\w./-]*)/, ''))) inStrings.push(`${file}:${sf.getLineAndCharacterOfPosition(start).line + 1}: ${next.length > 100 ? `${next.slice(0, 100)}...` : next}`);
    MENTION.lastIndex = 0;
    out += raw.slice(0, open) + next + raw.slice(raw.length - close);
    at = end;
  }
  return out + remention(source.slice(at));
}
/** Moved paths left inside printed text (kept so the output does not move). */
const inStrings = [];

const changes = [];
for (const file of files) {
  // charts/ is data hashed into the synthesized asset names; golden recordings and fixtures are recorded output.
  if (!TEXT.test(file) || file.startsWith('charts/') || file.startsWith('__tests__/golden/') || /(^|\/)fixtures\//.test(file)) continue;
  const abs = path.join(root, file);
  if (!statSync(abs).isFile()) continue;
  const text = readFileSync(abs, 'utf8');
  const next = rewrite(file, text);
  if (next !== text) changes.push([file, next]);
}

// 4. Write and move.
for (const [file, text] of changes) writeFileSync(path.join(root, file), text);
for (const [from, to] of moved) {
  mkdirSync(path.join(root, path.posix.dirname(to)), { recursive: true });
  git('mv', from, to);
}
// Folders the move emptied (git tracks no folder).
for (const dir of [...movedDirs.keys()].sort().reverse()) {
  try {
    rmdirSync(path.join(root, dir));
  } catch {
    // not empty: a file the table did not move stays (it was refused above), or an ignored one
  }
}
if (inStrings.length > 0) {
  process.stdout.write(`house-move: ${inStrings.length} printed texts still name an old jobs/ path (kept: the synthesized output does not move; change them with a re-record of __tests__/golden):\n${inStrings.map((l) => `  ${l}`).join('\n')}\n`);
}
process.stdout.write(`house-move: moved ${moved.size} files of jobs/ into ${ROOM_ORDER.join(', ')}; rewrote ${changes.length} files\n`);

report();

/**
 * The room graph, from the imports (the checkout's own scripts/import-graph.cjs, which needs its node_modules: after
 * `npm ci`, `node house-move.mjs --report <checkout>` prints it again).
 */
function report() {
  const graphModule = path.join(root, 'scripts', 'import-graph.cjs');
  if (!existsSync(graphModule) || !existsSync(path.join(root, 'node_modules', 'typescript'))) {
    process.stdout.write('house-move: no room graph yet (scripts/import-graph.cjs and node_modules/typescript): npm ci, then node house-move.mjs --report <checkout>\n');
    return;
  }
  const { importGraph, cycles, documented } = createRequire(import.meta.url)(graphModule);
  // docs/architecture.md's layout section, made from the moved tree's imports (what `npm run architecture` writes).
  if (!reportOnly && typeof documented === 'function') writeFileSync(path.join(root, 'docs', 'architecture.md'), documented(root));
  const graph = importGraph(root);
  const roomOf = (f) => ROOM_ORDER.find((r) => f.startsWith(`${r}/`));
  const wrong = [];
  const edges = new Map();
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (!a) continue;
    for (const t of targets) {
      const b = roomOf(t);
      if (!b || a === b) continue;
      edges.set(`${a} -> ${b}`, (edges.get(`${a} -> ${b}`) ?? 0) + 1);
      if (ROOM_ORDER.indexOf(b) > ROOM_ORDER.indexOf(a)) wrong.push(`${from} -> ${t}`);
    }
  }
  for (const [e, n] of [...edges].sort()) process.stdout.write(`  ${e}: ${n} imports\n`);
  for (const c of cycles(graph)) process.stdout.write(`house-move: import cycle: ${c.join(' <-> ')}\n`);
  if (wrong.length > 0) {
    process.stdout.write(`house-move: ${wrong.length} imports point the wrong way between rooms (${ROOM_ORDER.join(' < ')}):\n${wrong.map((w) => `  ${w}`).join('\n')}\n`);
    process.exitCode = 3;
  }
}
