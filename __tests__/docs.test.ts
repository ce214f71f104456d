/**
 * The README is the newcomer's page and docs/ the reference (issue 18): the README stays short, its first lines are
 * the two fresh-machine commands CI and package.json really run, each tutorial's flow deploys that tutorial's pipeline
 * from exactly the variables the tutorial exports, every relative link resolves (to a file, and an `#anchor` to a
 * heading by GitHub's slug rules), and every docs page is reachable from the README and from docs/README.md.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdktf';
import { loadConfig, UNREAD_TUTORIAL_VARIABLES, TPU_VM_ENV } from '../config/load';
import { deploymentOf, loadDeployment } from '../config/deployment';
import { composeApp } from '../stacks/app';
import { seedsTestMode } from './ci-env';
import { hfTokenSecretIdOf } from '../jobs/platform';
import { secretCommand } from '../jobs/secrets';

const ROOT = path.join(__dirname, '..');
const README = path.join(ROOT, 'README.md');
const DOCS = path.join(ROOT, 'docs');
const read = (file: string) => fs.readFileSync(file, 'utf8');
const rel = (file: string) => path.relative(ROOT, file);

/** The longest README a newcomer reads in five minutes. */
const MAX_README_LINES = 160;

/**
 * Written by the code redesign of the same issue: a link to it is checked once it exists, and until then is the one
 * link allowed to point at a missing file.
 */
const ARCHITECTURE = path.join(DOCS, 'architecture.md');

const docPages = () =>
  fs
    .readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f));
const markdownFiles = () => [README, ...docPages()];

/** Lines outside fenced code blocks, with inline code spans blanked (links and headings are never code). */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      out.push('');
      continue;
    }
    out.push(fence === undefined ? line : '');
  }
  return out;
}

/** The text of a heading as GitHub renders it: link text kept, code span markers, HTML and emphasis markers dropped. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .replace(/`/g, '')
    .trim();
}

/**
 * GitHub's heading anchors (github-slugger, as github.com renders Markdown): lowercase, every character that is not a
 * letter, mark, number, connector punctuation (`_`), hyphen or space dropped, spaces to hyphens; a repeated slug gets
 * `-1`, `-2`, ... in order.
 */
function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const base = headingText(m[1]!)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

/** Inline links `[text](target)` and images outside code, with their line numbers. */
function links(markdown: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = [];
  prose(markdown).forEach((line, i) => {
    const code = line.replace(/`[^`]*`/g, (s) => ' '.repeat(s.length));
    for (const m of code.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
  });
  return out;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Where a relative link of `from` points, and its anchor. */
function resolve(from: string, target: string): { file: string; anchor?: string } {
  const [p, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = p === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(p));
  return { file, anchor: anchor === undefined || anchor === '' ? undefined : decodeURIComponent(anchor) };
}

/** Shell words of one `export A=b C="d e"` statement (backslash-newline joined), `$(...)` kept as written. */
function exportsOf(block: string): Record<string, string> {
  const statement = block.replace(/\\\n/g, ' ').split('\n').find((l) => l.startsWith('export '));
  if (!statement) return {};
  const env: Record<string, string> = {};
  for (const m of statement.slice('export '.length).matchAll(/([A-Z_][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S*)/g)) {
    env[m[1]!] = m[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return env;
}

describe('README.md: the newcomer page', () => {
  const readme = read(README);
  const lines = readme.split('\n');

  test(`at most ${MAX_README_LINES} lines`, () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_README_LINES);
  });

  test('its first lines are the two fresh-machine commands, which package.json defines and .ci/run runs', () => {
    // The first block, right under the title.
    expect(lines.slice(0, 3)).toEqual(['# tpu-post-training', '', '```bash']);
    const commands = lines
      .slice(3, lines.indexOf('```', 3))
      .map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && SINGLE_HOST_RESERVATION=my-v6e-8-reservation npm run synth', 'npm test']);
    const scripts = (JSON.parse(read(path.join(ROOT, 'package.json'))) as { scripts: Record<string, string> }).scripts;
    for (const c of commands) {
      for (const name of [...c.matchAll(/npm (?:run ([\w:-]+)|(test))/g)].map((m) => m[1] ?? m[2])) {
        expect({ command: c, script: name, defined: Boolean(scripts[name!]) }).toEqual({ command: c, script: name, defined: true });
      }
    }
    // CI runs exactly the README's test command, after a clean install.
    const ci = read(path.join(ROOT, '.ci', 'run')).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(ci).toEqual(expect.arrayContaining(['npm ci --no-audit --no-fund', 'npm test']));
    expect(ci.indexOf('npm ci --no-audit --no-fund')).toBeLessThan(ci.indexOf('npm test'));
  });

  test('the synth command gives what its comment says: all five stacks of the example config', () => {
    const env = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };
    expect(lines[3]).toContain(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} npm run synth`);
    expect(lines[3]).toContain('all five stacks of config/example.json');
    const { app } = composeApp(loadDeployment({ env }), { outdir: Testing.app().outdir });
    expect(app.node.children.map((c) => c.node.id).sort()).toEqual(['infra', 'rl-gemma4', 'rl-llama3', 'rl-qwen3', 'sft-gemma4']);
  });
});

/**
 * The variables each tutorial has its reader export before the first command (/work/shared/seeds: 000 lines 44-56,
 * 001 lines 69-82, 002 lines 60-63, 003 lines 70-80), and the pipeline that is that tutorial.
 */
const TUTORIALS: Record<string, { exports: string[]; stack: string }> = {
  '000': {
    exports: ['PROJECT', 'REGION', 'ZONE', 'CLUSTER_NAME', 'GCS_BUCKET', 'CLOUD_IMAGE_NAME', 'COMPUTE_TYPE', 'TOPOLOGY', 'CLUSTER_NODEPOOL_COUNT', 'RESERVATION', 'MODEL_NAME', 'CLUSTER_TOOLKIT_VERSION', 'HF_TOKEN'],
    stack: 'rl-qwen3',
  },
  '001': {
    exports: ['PROJECT', 'REGION', 'ZONE', 'CLUSTER_NAME', 'GCS_BUCKET', 'CLOUD_IMAGE_NAME', 'COMPUTE_TYPE', 'TPU_TYPE', 'TOPOLOGY', 'CLUSTER_NODEPOOL_COUNT', 'RESERVATION', 'MODEL_NAME', 'CLUSTER_TOOLKIT_VERSION', 'HF_TOKEN'],
    stack: 'rl-gemma4',
  },
  '002': { exports: ['PROJECT', 'ZONE', 'RESERVATION', 'TPU_NAME'], stack: 'rl-llama3' },
  '003': {
    exports: ['PROJECT', 'REGION', 'ZONE', 'CLUSTER_NAME', 'GCS_BUCKET', 'CLOUD_IMAGE_NAME', 'TPU_TYPE', 'RESERVATION', 'HF_TOKEN', 'MODEL_NAME', 'CLUSTER_TOOLKIT_VERSION'],
    stack: 'sft-gemma4',
  },
};

/** The tutorial texts, where this checkout sits next to the shared seeds (not in a fresh clone elsewhere). */
const SEEDS = path.join(ROOT, '..', 'shared', 'seeds');

describe.each(Object.entries(TUTORIALS))('README: the flow of tutorial %s', (id, tutorial) => {
  const readme = read(README);
  const section = readme.split(/^### /m).find((s) => s.startsWith(`Tutorial ${id}:`));
  const block = section?.match(/```bash\n([\s\S]*?)```/)?.[1] ?? '';
  const env = exportsOf(block);

  const name = 'the list of exports is the tutorial’s own (checked against its text)';
  const mode = seedsTestMode(fs.existsSync(SEEDS));
  const run = () => {
    const seed = fs.readdirSync(SEEDS).find((f) => f.startsWith(`${id}_`));
    expect({ tutorial: id, seed }).toEqual({ tutorial: id, seed: expect.any(String) });
    const text = read(path.join(SEEDS, seed!)).split('\n');
    const first = text.findIndex((l) => l.startsWith('export '));
    const end = text.findIndex((l, i) => i > first && !l.startsWith('export '));
    expect(text.slice(first, end).map((l) => /^export ([A-Z_0-9]+)=/.exec(l)![1])).toEqual(tutorial.exports);
  };
  if (mode.run) test(name, run);
  else if ('skip' in mode) test.skip(`${name} [skipped: ${mode.skip}]`, () => undefined);
  else
    test(name, () => {
      throw new Error(mode.fail);
    });

  test(`exports every variable the tutorial exports that this program reads, then three commands deploy ${tutorial.stack}`, () => {
    expect(section).toBeDefined();
    const notRead = Object.keys(UNREAD_TUTORIAL_VARIABLES).filter((v) => v !== TPU_VM_ENV);
    const missing = tutorial.exports.filter((v) => !notRead.includes(v) && !(v in env));
    expect({ tutorial: id, missing }).toEqual({ tutorial: id, missing: [] });
    const commands = block.replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('export '));
    // The token goes into the cluster's own secret (jobs/platform.ts hfTokenSecretIdOf): `"$CLUSTER_NAME-hf-token"`, or
    // the default cluster's where the tutorial exports no CLUSTER_NAME.
    const secretId = 'CLUSTER_NAME' in env ? '"$CLUSTER_NAME-hf-token"' : hfTokenSecretIdOf(loadConfig({ env: {} }).config.clusterName);
    expect(commands).toEqual([
      'npm run deploy -- infra',
      secretCommand('"$PROJECT"', secretId),
      `npm run deploy -- ${tutorial.stack}`,
    ]);
  });

  test(`those exports alone synthesize ${tutorial.stack}, with no placeholder left for the plan to stop on`, () => {
    // The user's own values: `my-...` (the README says to replace them) and `$(curl -4 -s ifconfig.me)/32`, a public address.
    const values = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace(/\$\([^)]*\)/g, '34.1.2.3').replace(/^my-/, 'acme-')]));
    const loaded = loadConfig({ env: values });
    expect(loaded.placeholders).toEqual([]);
    const { app } = composeApp(deploymentOf(loaded), { outdir: Testing.app().outdir });
    expect(app.node.children.map((c) => c.node.id)).toEqual(expect.arrayContaining(['infra', tutorial.stack]));
  });
});

describe('links', () => {
  test.each(markdownFiles().map((f) => [rel(f), f]))('every relative link of %s resolves, anchors to a heading', (_name, file) => {
    const broken: string[] = [];
    for (const { line, target } of links(read(file))) {
      if (isExternal(target)) continue;
      const to = resolve(file, target);
      if (to.file === ARCHITECTURE && !fs.existsSync(ARCHITECTURE)) continue;
      if (!fs.existsSync(to.file)) {
        broken.push(`${rel(file)}:${line}: ${target}: no such file`);
        continue;
      }
      if (to.anchor === undefined) continue;
      if (!to.file.endsWith('.md') || !slugs(read(to.file)).has(to.anchor)) {
        broken.push(`${rel(file)}:${line}: ${target}: no heading '#${to.anchor}' in ${rel(to.file)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('every docs page is linked from docs/README.md and from README.md', () => {
    const linked = (from: string) => new Set(links(read(from)).filter((l) => !isExternal(l.target)).map((l) => resolve(from, l.target).file));
    const index = linked(path.join(DOCS, 'README.md'));
    const readme = linked(README);
    const pages = docPages().filter((f) => f !== path.join(DOCS, 'README.md'));
    expect(pages.length).toBeGreaterThanOrEqual(5);
    for (const page of [...pages, ARCHITECTURE]) {
      expect({ page: rel(page), inIndex: index.has(page), inReadme: readme.has(page) }).toEqual({ page: rel(page), inIndex: true, inReadme: true });
    }
    expect(readme.has(path.join(DOCS, 'README.md'))).toBe(true);
  });

  test('every docs page and section the code, tests and workflows cite exists', () => {
    const skip = new Set(['node_modules', 'dist', 'cdktf.out', 'coverage', '.git', '.rehearse']);
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (skip.has(e.name)) continue;
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.(ts|js|ya?ml|sh)$/.test(e.name) || e.name === 'run') sources.push(full);
      }
    };
    walk(ROOT);
    const cited: string[] = [];
    const broken: string[] = [];
    for (const file of sources) {
      // `docs/<page>.md` and, where a section is named, `docs/<page>.md, "<Heading>"` (a comment may wrap after the comma).
      for (const m of read(file).matchAll(/\bdocs\/([\w-]+\.md)(?:,\s*(?:\/\/|\*|#)?\s*"([^"]+)")?/g)) {
        const page = path.join(DOCS, m[1]!);
        if (file === __filename) continue;
        cited.push(`${rel(file)}: ${m[0]}`);
        if (page === ARCHITECTURE && !fs.existsSync(page)) continue;
        if (!fs.existsSync(page)) broken.push(`${rel(file)}: ${m[0]}: no such page`);
        else if (m[2] !== undefined && ![...prose(read(page))].some((l) => /^#{1,6}\s/.test(l) && headingText(l.replace(/^#+\s+/, '')) === m[2])) {
          broken.push(`${rel(file)}: ${m[0]}: no heading '${m[2]}'`);
        }
      }
    }
    expect(cited.length).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  test('the slug rules: punctuation dropped, code and links kept as text, repeats numbered', () => {
    const s = slugs('# How long a deploy waits, and if it stops waiting\n## `--base` and [links](x.md)\n## Notes\n## Notes\n```\n# not a heading\n```\n');
    expect([...s]).toEqual(['how-long-a-deploy-waits-and-if-it-stops-waiting', '--base-and-links', 'notes', 'notes-1']);
  });

  test('a broken link or anchor is found', () => {
    const file = path.join(DOCS, 'status.md');
    expect(links('see [x](missing.md) and `[y](in-code.md)`\n```\n[z](fenced.md)\n```\n[w](ci.md#nope)').map((l) => l.target)).toEqual(['missing.md', 'ci.md#nope']);
    expect(fs.existsSync(resolve(file, 'missing.md').file)).toBe(false);
    expect(slugs(read(path.join(DOCS, 'ci.md'))).has('nope')).toBe(false);
    expect(slugs(read(path.join(DOCS, 'ci.md'))).has('ci-identities')).toBe(true);
  });
});
