/**
 * Project-wide rules: provider imports by deep path, pure jobs/, only config/ reads the environment, only the entry
 * points import config/ (one validated Deployment flows down), deterministic synth, no secret in the output.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../config/deployment';
import { App } from 'cdktf';
import { BuiltinData } from '../constructs/builtin-data';
import { buildApp } from '../stacks/app';
import { ProjectStack } from '../stacks/project-stack';

const ROOT = path.join(__dirname, '..');
const SOURCE_DIRS = ['config', 'constructs', 'stacks', 'jobs', 'review', 'bench', 'util', 'lock', '__tests__'];

function sourceFiles(): string[] {
  const files: string[] = [path.join(ROOT, 'main.ts')];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|js)$/.test(entry.name)) files.push(full);
    }
  };
  SOURCE_DIRS.forEach((d) => walk(path.join(ROOT, d)));
  return files;
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true } as any).flatMap((e: any) =>
    e.isFile() ? [path.relative(dir, path.join(e.parentPath ?? e.path, e.name))] : [],
  );
}

/** `type.name` (or `data.type.name`) references in a synthesized stack that name nothing the stack declares. */
function undeclaredReferences(tf: any): string[] {
  const declared = new Set<string>();
  for (const [type, byName] of Object.entries(tf.resource ?? {})) for (const name of Object.keys(byName as object)) declared.add(`${type}.${name}`);
  for (const [type, byName] of Object.entries(tf.data ?? {})) for (const name of Object.keys(byName as object)) declared.add(`data.${type}.${name}`);
  // `removed`, `moved` and `import` blocks name addresses of the state, not references (the upgrades' forgotten resources).
  const text = JSON.stringify({ ...tf, '//': undefined, removed: undefined, moved: undefined, import: undefined });
  const refs = new Set<string>();
  // Inside "${...}" expressions and depends_on: the first `[data.]type.name` of each reference path.
  for (const m of text.matchAll(/(?<![\w.])((?:data\.)?[a-z][a-z0-9_]*\.[A-Za-z_][A-Za-z0-9_-]*)(?=[.\[}" ,)\]])/g)) {
    const ref = m[1]!;
    const head = ref.split('.')[0]!;
    if (['var', 'local', 'each', 'count', 'self', 'path', 'terraform', 'module'].includes(head)) continue;
    if (!/^(data\.)?(google|kubernetes|helm|terraform)_/.test(ref)) continue;
    refs.add(ref);
  }
  return [...refs].filter((r) => !declared.has(r)).sort();
}

test('no source file imports a provider package from its root (3 s and 850 MB per synth)', () => {
  const offenders = sourceFiles().filter((file) =>
    /(from\s+|require\()\s*['"]@cdktf\/provider-(google|kubernetes|helm)['"]/.test(fs.readFileSync(file, 'utf8')),
  );
  expect(offenders).toEqual([]);
});

test('jobs/ is pure: no cdktf, constructs or provider import, no fs or process.env', () => {
  const offenders = sourceFiles()
    .filter((f) => f.startsWith(path.join(ROOT, 'jobs') + path.sep))
    .filter((f) => /from ['"](cdktf|constructs|@cdktf\/[^'"]+|fs|child_process)['"]|process\.env/.test(fs.readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});

test('only config/ reads the environment (the review and bench CLIs excepted)', () => {
  const offenders = sourceFiles()
    .filter((f) => ['constructs', 'stacks', 'jobs'].some((d) => f.startsWith(path.join(ROOT, d) + path.sep)) || f.endsWith('main.ts'))
    .filter((f) => /process\.env/.test(fs.readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});

/** Entry points: the only modules that join config/ to the rest (main.ts, the CLIs, the benchmarks). */
const ENTRY_POINTS = ['main.ts', path.join('review', 'cli.ts'), path.join('status', 'cli.ts'), path.join('lock', 'cli.ts')];
const isEntryPoint = (rel: string) => ENTRY_POINTS.includes(rel) || rel.startsWith('bench' + path.sep);

/** Every .ts file of the program below the entry points (stacks, constructs, jobs, review, status), relative to ROOT. */
function layerFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) out.push(path.relative(ROOT, full));
    }
  };
  ['stacks', 'constructs', 'jobs', 'review', 'status', 'util'].forEach((d) => walk(path.join(ROOT, d)));
  return out.filter((rel) => !isEntryPoint(rel));
}

describe('the plan review is a top layer: status/, config/ and the layers below never import review/ (no side door)', () => {
  const text = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
  // `from '../review/redact'`, `require('../../review/prices')`, `import('../review')`, `export ... from`.
  const REVIEW_IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"](?:\.\.\/)+review(?:\/[^'"]*)?['"]/;
  const below = () => {
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(rel);
        else if (entry.name.endsWith('.ts')) out.push(rel);
      }
    };
    ['config', 'status', 'stacks', 'constructs', 'jobs', 'util'].forEach(walk);
    return [...out, 'main.ts'];
  };

  test('no file under config/, status/, stacks/, constructs/, jobs/ or util/ (nor main.ts) imports review/: what they share lives in util/ (redaction) or jobs/ (prices)', () => {
    const files = below();
    expect(files.some((f) => f.startsWith('status' + path.sep))).toBe(true);
    expect(files.some((f) => f.startsWith('config' + path.sep))).toBe(true);
    expect(files.filter((f) => REVIEW_IMPORT.test(text(f)))).toEqual([]);
  });

  test('the rule catches each form of import, the side doors that were there included', () => {
    for (const line of [
      "import { redact } from '../review/redact';",
      "import { cpuHourly, loadPrices } from '../review/prices';",
      "import { tpuRateFor } from '../review/cost';",
      "const { RATE_TEXT } = require('../../review/prices');",
      "export { x } from '../review';",
    ]) {
      expect(REVIEW_IMPORT.test(line)).toBe(true);
    }
    expect(REVIEW_IMPORT.test("import { redact } from '../util/redact';")).toBe(false);
    expect(REVIEW_IMPORT.test("import { x } from './reviewer';")).toBe(false);
  });
});

describe('one copy of each shared helper (issue 38 item 3): JSON paths, duplicate keys and bounded commands come from util/', () => {
  const text = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
  /** Every .ts file of the program (main.ts, config/ and the layers below it), relative to ROOT. */
  const program = (): string[] => {
    const out: string[] = ['main.ts'];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(rel);
        else if (entry.name.endsWith('.ts')) out.push(rel);
      }
    };
    ['config', 'constructs', 'stacks', 'jobs', 'review', 'status', 'util'].forEach(walk);
    return out;
  };
  // The forms the copies had: `? `[${p}]``, `out += `[${i}]``, `${prefix}[${i}]` (util/json-path.ts jsonPathStep).
  const PATH_PRINTER = /(?:\?|\+=)\s*`\[\$\{[\w.]+\}\]`|\$\{\w+\}\[\$\{[\w.]+\}\]/;
  // jsonc-parser's key visitor (config/load.ts's copy) or a `duplicate key` message without the one scanner.
  const KEY_SCANNER = /onObjectProperty/;
  // review/json-scan.ts (scanPlanText) is util's scanner handed each number token: the plan reader imports it.
  const USES_SCANNER = /from\s+['"](?:(?:\.\.\/)+util|\.)\/json-scan['"]/;
  // The asynchronous child_process calls (a deadline and bounded output are util/child-process.ts runBounded's).
  const ASYNC_CHILD = /import\s*\{[^}]*\b(?:spawn|execFile|exec|fork)\b[^}]*\}\s*from\s*['"](?:node:)?child_process['"]|require\(\s*['"](?:node:)?child_process['"]\s*\)\.(?:spawn|execFile|exec|fork)\b/;

  test('the walk finds the files that held the copies', () => {
    const files = program();
    for (const f of ['review/plan.ts', 'review/attributes.ts', 'config/load.ts', 'status/bucket.ts', 'status/exec-credential.ts']) expect(files).toContain(path.join(...f.split('/')));
  });

  test('one JSON path printer: util/json-path.ts', () => {
    expect(program().filter((f) => f !== path.join('util', 'json-path.ts') && PATH_PRINTER.test(text(f)))).toEqual([]);
  });

  test('one duplicate-key scanner: util/json-scan.ts (a file that reports a duplicate key imports it)', () => {
    const home = path.join('util', 'json-scan.ts');
    expect(program().filter((f) => f !== home && (KEY_SCANNER.test(text(f)) || (/['"`]duplicate key/.test(text(f)) && !USES_SCANNER.test(text(f)))))).toEqual([]);
    expect(USES_SCANNER.test(text(path.join('config', 'load.ts')))).toBe(true);
    expect(/from\s+['"]\.\/json-scan['"]/.test(text(path.join('review', 'cli.ts')))).toBe(true);
    expect(/from\s+['"]\.\.\/util\/json-scan['"]/.test(text(path.join('review', 'json-scan.ts')))).toBe(true);
  });

  test('one bounded runner of helper commands: util/child-process.ts (no other file spawns asynchronously)', () => {
    expect(program().filter((f) => f !== path.join('util', 'child-process.ts') && ASYNC_CHILD.test(text(f)))).toEqual([]);
    for (const f of ['status/bucket.ts', 'status/exec-credential.ts']) expect([f, /from\s+['"]\.\.\/util\/child-process['"]/.test(text(f))]).toEqual([f, true]);
  });

  test('the rules catch each copy that was there (a rule that cannot fail guards nothing)', () => {
    for (const line of [
      "return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(the entry)';",
      "if (f.kind === 'array') out += `[${f.index}]`;",
      'value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));',
      "sensitiveChangePaths(a, b, c, d, typeof k === 'number' ? `${prefix}[${k}]` : prefix ? `${prefix}.${k}` : k)",
    ]) {
      expect([line, PATH_PRINTER.test(line)]).toEqual([line, true]);
    }
    for (const line of ['`count_over_time(${lines}[${m}m])`', '`serviceAccount:${p}.svc.id.goog[${ns}/${ksa}]`', 'jsonPathStep(prefix, k)']) expect([line, PATH_PRINTER.test(line)]).toEqual([line, false]);
    expect(KEY_SCANNER.test('onObjectProperty: (name, _offset, _length, line, column, pathSupplier) => {')).toBe(true);
    for (const line of ["import { execFile } from 'child_process';", "import { spawn } from 'child_process';", "import { spawn, spawnSync } from 'node:child_process';", "const x = require('child_process').execFile;"]) {
      expect([line, ASYNC_CHILD.test(line)]).toEqual([line, true]);
    }
    for (const line of ["import { spawnSync } from 'child_process';", "import { execFileSync } from 'child_process';", "import { runBounded } from '../util/child-process';"]) expect([line, ASYNC_CHILD.test(line)]).toEqual([line, false]);
  });
});

describe('one validated model flows down: only the entry points join config/ to the rest', () => {
  const files = layerFiles();
  const text = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
  // `from '../config/load'`, `require('../../config')`, `import('../config/deployment')`, `export ... from`.
  const CONFIG_IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"](?:\.\.\/)+config(?:\/[^'"]*)?['"]/;

  test('the layers are there to check (the walk found stacks, constructs, jobs, review)', () => {
    for (const dir of ['stacks', 'constructs', 'jobs', 'review']) expect(files.some((f) => f.startsWith(dir + path.sep))).toBe(true);
    expect(files).not.toContain(path.join('review', 'cli.ts'));
  });

  test('no file under stacks/, constructs/, jobs/, review/ or status/ (the CLIs excepted) imports config/', () => {
    expect(files.filter((f) => CONFIG_IMPORT.test(text(f)))).toEqual([]);
  });

  test('no LoadedConfig and no sourceOf below the entry points: provenance travels inside the Deployment', () => {
    expect(files.filter((f) => /\bLoadedConfig\b|\bsourceOf\b/.test(text(f)))).toEqual([]);
  });

  test('the import rule catches each form of import (a rule that cannot fail guards nothing)', () => {
    for (const line of [
      "import { loadConfig } from '../config/load';",
      "import type { Config } from '../../config/schema';",
      "const { x } = require('../config/pipelines');",
      "export { ConfigError } from '../config/load';",
      "import('../config')",
    ]) {
      expect(CONFIG_IMPORT.test(line)).toBe(true);
    }
    expect(CONFIG_IMPORT.test("import { Deployment } from '../jobs/deployment';")).toBe(false);
    expect(CONFIG_IMPORT.test("import { x } from './configure';")).toBe(false);
  });
});

describe('one home per method: the method table (jobs/methods/) is the only place that tests a method by name', () => {
  const METHOD_NAME = "(?:sft|rl|dpo|orpo|grpo|gspo)";
  // `x === 'sft'`, `'rl' !== x`, `Record<'sft' | 'rl', ...>`, `case 'dpo':`, and the template-literal forms.
  const BINARY_METHOD_TEST = new RegExp(
    [
      `[!=]==?\\s*['"\`]${METHOD_NAME}['"\`]`,
      `['"\`]${METHOD_NAME}['"\`]\\s*[!=]==?`,
      `['"]${METHOD_NAME}['"]\\s*\\|\\s*['"]${METHOD_NAME}['"]`,
      `\\bcase\\s+['"]${METHOD_NAME}['"]\\s*:`,
    ].join('|'),
  );
  const files = sourceFiles()
    .map((f) => path.relative(ROOT, f))
    .filter((rel) => !rel.startsWith('__tests__') && !rel.startsWith(path.join('jobs', 'methods') + path.sep));
  const allFiles = [...files, ...layerFiles().filter((f) => f.startsWith('status' + path.sep))];

  test('the walk finds the files that used to test methods (jobs/spec.ts, jobs/validate.ts, status/model.ts)', () => {
    for (const f of [path.join('jobs', 'spec.ts'), path.join('jobs', 'validate.ts'), path.join('status', 'model.ts'), path.join('config', 'pipelines.ts')]) {
      expect(allFiles).toContain(f);
    }
  });

  test('no file outside jobs/methods/ tests a method by name', () => {
    const offenders = allFiles.flatMap((rel) =>
      fs
        .readFileSync(path.join(ROOT, rel), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, i }))
        .filter(({ line }) => BINARY_METHOD_TEST.test(line))
        .map(({ line, i }) => `${rel}:${i + 1}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  test('the rule catches each form of a method test (a rule that cannot fail guards nothing)', () => {
    for (const line of [
      "if (recipe.train.kind === 'sft') return [];",
      'if (recipe.train.kind !== "rl") return [];',
      "const x = method === 'gspo' ? a : b;",
      "if ('dpo' === kind) {}",
      "export const P: Record<'sft' | 'rl', RegExp> = {};",
      "readonly kind: 'rl' | 'sft';",
      "case 'rl':",
      'if (kind === `sft`) {}',
    ]) {
      expect(BINARY_METHOD_TEST.test(line)).toBe(true);
    }
    for (const line of ["kind: 'rl',", "run_name: 'sft',", "const row = METHOD_TABLE[recipe.train.kind];", "if (!rowOf(recipe).rollout) return [];"]) {
      expect(BINARY_METHOD_TEST.test(line)).toBe(false);
    }
  });
});

describe('functions a reader sees at once (issue 38 item 2): under 60 lines in the pipeline builder, the HBM arithmetic, the method table, the eval plan, the JobSet builders, the Kueue objects and the config loader', () => {
  /** Top-level functions (declarations and `const x = (...) =>`) with their line counts, by brace depth. */
  function functionLengths(text: string): Array<{ name: string; lines: number }> {
    const out: Array<{ name: string; lines: number }> = [];
    const lines = text.split('\n');
    let start = -1;
    let name = '';
    let depth = 0;
    lines.forEach((line, i) => {
      const m = /^(?:export )?(?:async )?function (\w+)|^(?:export )?const (\w+) = (?:\(|async)/.exec(line);
      if (m && start < 0) {
        start = i;
        name = m[1] ?? m[2];
        depth = 0;
      }
      if (start < 0) return;
      depth += (line.match(/{/g) ?? []).length - (line.match(/}/g) ?? []).length;
      // Ends where the braces close again (a one-line arrow ends on its own line).
      if (depth <= 0 && ((i > start && /[})]/.test(line)) || /;\s*$/.test(line))) {
        out.push({ name, lines: i - start + 1 });
        start = -1;
      }
    });
    return out;
  }
  const files = ['jobs/pipeline.ts', 'jobs/hbm.ts', 'jobs/eval.ts', 'jobs/jobset.ts', 'jobs/kueue.ts', 'config/load.ts', ...fs.readdirSync(path.join(ROOT, 'jobs', 'methods')).map((f) => `jobs/methods/${f}`)];

  test.each(files)('%s', (file) => {
    const long = functionLengths(fs.readFileSync(path.join(ROOT, file), 'utf8')).filter((f) => f.lines >= 60);
    expect(long).toEqual([]);
  });

  test('review/plan.ts: reviewPlan in pieces (issue 38 item 2)', () => {
    const lengths = functionLengths(fs.readFileSync(path.join(ROOT, 'review', 'plan.ts'), 'utf8'));
    expect(lengths.map((f) => f.name)).toContain('reviewPlan');
    expect(lengths.filter((f) => f.lines >= 60)).toEqual([]);
  });

  test('the measure finds a long function (a rule that cannot fail guards nothing)', () => {
    const body = Array.from({ length: 70 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    expect(functionLengths(`export function big() {\n${body}\n}\n`)).toEqual([{ name: 'big', lines: 72 }]);
    expect(functionLengths('function small() {\n  return 1;\n}\n')).toEqual([{ name: 'small', lines: 3 }]);
    expect(functionLengths('const one = (a: number) => a + 1;\nfunction two() {\n  return 2;\n}\n')).toEqual([{ name: 'one', lines: 1 }, { name: 'two', lines: 3 }]);
  });
});

describe('the whole app', () => {
  const synthTo = (env: Record<string, string | undefined>) => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-synth-'));
    buildApp(loadDeployment({ env }), { outdir }).synth();
    return outdir;
  };

  test('synth is deterministic: two runs are byte-identical', () => {
    const a = synthTo({});
    const b = synthTo({});
    const files = listFiles(a).sort();
    expect(files.length).toBeGreaterThan(3);
    expect(listFiles(b).sort()).toEqual(files);
    for (const file of files) {
      expect(fs.readFileSync(path.join(b, file)).equals(fs.readFileSync(path.join(a, file)))).toBe(true);
    }
  });

  test('a canary HF_TOKEN in the environment appears nowhere in the output', () => {
    const canary = ['hf', 'CanaryTokenValue0123456789abcdef'].join('_'); // joined so no token-shaped literal is committed
    const saved = process.env.HF_TOKEN;
    process.env.HF_TOKEN = canary;
    try {
      const out = synthTo(process.env);
      for (const file of listFiles(out)) {
        expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain(canary);
      }
    } finally {
      if (saved === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = saved;
    }
  });

  test('no stack refers to another (stacks/project-stack.ts skips cdktf\'s cross-stack preparing run): every reference of every stack, serve stacks too, names what that stack declares', () => {
    const out = synthTo({ SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', SERVE: 'rl-qwen3' });
    const stacks = fs.readdirSync(path.join(out, 'stacks'));
    expect(stacks).toContain('serve-rl-qwen3');
    for (const stack of stacks) {
      const tf = JSON.parse(fs.readFileSync(path.join(out, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
      expect([stack, undeclaredReferences(tf)]).toEqual([stack, []]);
    }
  });

  test('the reference check catches a cross-stack reference, which the skipped preparing run would have wired', () => {
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-xref-')) });
    class Stack extends ProjectStack {}
    const a = new Stack(app, 'a');
    const b = new Stack(app, 'b');
    const source = new BuiltinData(a, 'source', 'x');
    new BuiltinData(b, 'sink', source.output);
    app.synth();
    const tf = JSON.parse(fs.readFileSync(path.join(app.outdir, 'stacks', 'b', 'cdk.tf.json'), 'utf8'));
    expect(undeclaredReferences(tf)).toEqual(['terraform_data.source']);
  });

  test('every depends_on is a plain reference (Terraform JSON rejects "${...}" there)', () => {
    const out = synthTo({});
    for (const file of listFiles(out).filter((f) => f.endsWith('cdk.tf.json'))) {
      const tf = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
      for (const block of [tf.resource ?? {}, tf.data ?? {}]) {
        for (const byName of Object.values(block) as any[]) {
          for (const res of Object.values(byName) as any[]) {
            for (const dep of res.depends_on ?? []) expect(dep).toMatch(/^(data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+$/);
          }
        }
      }
    }
  });
});

describe('no import cycle anywhere; the layout of docs/architecture.md is the imports (issue 47)', () => {
  // scripts/import-graph.cjs: the TypeScript compiler's parser and module resolution over every .ts and .mjs file.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const graphs = require('../scripts/import-graph.cjs') as {
    importGraph(root?: string): Map<string, string[]>;
    cycles(graph: Map<string, string[]>): string[][];
    documented(root?: string): string;
  };

  test('no import cycle among the source, tests, bench and scripts (type-only imports count)', () => {
    const graph = graphs.importGraph();
    expect(graph.size).toBeGreaterThan(300);
    // The walk sees the kinds of import this repository uses: a lazy require, a type-only import, a re-export, an .mjs.
    expect(graph.get('main.ts')).toEqual(expect.arrayContaining(['stacks/app.ts', 'config/deployment.ts']));
    expect(graph.get('jobs/hbm.ts')).toEqual(expect.arrayContaining(['jobs/methods/kind.ts']));
    expect(graph.get('jobs/secrets.ts')).toEqual(expect.arrayContaining(['jobs/platform.ts']));
    expect(graph.get('scripts/synth.mjs')).toEqual(expect.arrayContaining(['scripts/build-if-stale.mjs']));
    expect(graphs.cycles(graph)).toEqual([]);
  });

  test('the cycle check finds a cycle, type-only and through a re-export', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-cycle-'));
    fs.mkdirSync(path.join(root, 'jobs'));
    fs.writeFileSync(path.join(root, 'jobs', 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
    fs.writeFileSync(path.join(root, 'jobs', 'b.ts'), "export { c } from './c';\nexport type B = string;\n");
    fs.writeFileSync(path.join(root, 'jobs', 'c.ts'), "import type { A } from './a';\nexport const c = (x: A) => x;\n");
    fs.writeFileSync(path.join(root, 'jobs', 'd.ts'), "export const d = require('./a');\n");
    expect(graphs.cycles(graphs.importGraph(root))).toEqual([['jobs/a.ts', 'jobs/b.ts', 'jobs/c.ts']]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('docs/architecture.md shows the layout the imports make (npm run architecture writes it)', () => {
    expect(fs.readFileSync(path.join(__dirname, '..', 'docs', 'architecture.md'), 'utf8')).toBe(graphs.documented());
  });
});
