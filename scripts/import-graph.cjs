// The program's import graph, read with the TypeScript compiler's own API (typescript 5.6: ts.createSourceFile walks
// each file's syntax, ts.resolveModuleName resolves each specifier as tsc does): every `import` (type-only ones too: a
// cycle of types is a cycle a reader walks), `export ... from`, `import('...')` type, `require('...')` and `import()`
// between the repository's own .ts and .mjs files. One home for two users:
//   - __tests__/architecture.test.ts fails on any import cycle anywhere (`cycles`);
//   - `npm run architecture` writes the layout table and graph of docs/architecture.md from it (`layout`, between the
//     `<!-- layout:begin -->` and `<!-- layout:end -->` markers), and `npm run architecture -- --check` fails when the
//     page is not what the imports say (__tests__/architecture.test.ts runs the check too).
// CommonJS, so jest and the ES module scripts can both load it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'reports', '.stryker-tmp', 'coverage']);
const DOC = path.join(ROOT, 'docs', 'architecture.md');
const BEGIN = '<!-- layout:begin -->';
const END = '<!-- layout:end -->';

/** Every .ts (not .d.ts) and .mjs file of the repository, relative, sorted. */
function sourceFiles(root = ROOT, dir = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (SKIP.has(e.name) || e.name.startsWith('cdktf.out')) continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...sourceFiles(root, rel));
    else if ((e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) || e.name.endsWith('.mjs')) out.push(rel);
  }
  return out.sort();
}

/** The module specifiers a file names (static and dynamic), with whether each is type-only. */
function specifiers(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, file.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) out.push(node.argument.literal.text);
    else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** file -> the repository files it imports (sorted, each once). */
function importGraph(root = ROOT) {
  const files = sourceFiles(root);
  const known = new Set(files);
  const options = { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, allowJs: true, resolveJsonModule: true };
  const graph = new Map();
  for (const file of files) {
    const abs = path.join(root, file);
    const targets = new Set();
    for (const spec of specifiers(file, fs.readFileSync(abs, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      let resolved = ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule?.resolvedFileName;
      // An .mjs a script imports by its own name.
      if (resolved === undefined && spec.endsWith('.mjs')) resolved = path.resolve(path.dirname(abs), spec);
      if (resolved === undefined) continue;
      const rel = path.relative(root, resolved).split(path.sep).join('/');
      if (known.has(rel) && rel !== file) targets.add(rel);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each an import cycle, sorted. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const connect = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) connect(v);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The room of a source file: its top folder, or its first two folders under jobs/ (jobs/<room>/...). */
function roomOf(file) {
  const parts = file.split('/');
  if (parts.length === 1) return file;
  if (parts[0] === 'jobs' && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

/** What the program is made of (tests, bench and scripts aside): rooms with their files, lines and imports. */
function layout(root = ROOT) {
  const graph = importGraph(root);
  const program = [...graph.keys()].filter((f) => f.endsWith('.ts') && !/^(__tests__|bench|scripts)\//.test(f));
  const rooms = new Map();
  for (const file of program) {
    const room = roomOf(file);
    const r = rooms.get(room) ?? { files: 0, lines: 0, uses: new Map() };
    r.files += 1;
    r.lines += fs.readFileSync(path.join(root, file), 'utf8').split('\n').length - 1;
    for (const target of graph.get(file)) {
      const to = roomOf(target);
      if (to !== room && program.includes(target)) r.uses.set(to, (r.uses.get(to) ?? 0) + 1);
    }
    rooms.set(room, r);
  }
  const names = [...rooms.keys()].sort();
  const lines = [
    BEGIN,
    '<!-- Generated by `npm run architecture` (scripts/import-graph.cjs) from the imports; do not edit by hand. -->',
    '',
    '| room | files | lines | imports from (file-to-file import edges) |',
    '|---|---:|---:|---|',
    ...names.map((n) => {
      const r = rooms.get(n);
      const uses = [...r.uses].sort((a, b) => a[0].localeCompare(b[0])).map(([to, count]) => `\`${to}\` (${count})`).join(', ');
      return `| \`${n}\` | ${r.files} | ${r.lines} | ${uses || '-'} |`;
    }),
    '',
    '```mermaid',
    'graph TD',
    ...names.flatMap((n) => [...rooms.get(n).uses.keys()].sort().map((to) => `  ${id(n)}["${n}"] --> ${id(to)}["${to}"]`)),
    '```',
    END,
  ];
  return lines.join('\n');
}

const id = (room) => room.replace(/[^A-Za-z0-9]/g, '_');

/** docs/architecture.md with its layout section made from the imports. */
function documented(root = ROOT) {
  const doc = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/architecture.md: no ${BEGIN} ... ${END} section to write the layout into`);
  return doc.slice(0, begin) + layout(root) + doc.slice(end + END.length);
}

module.exports = { importGraph, cycles, layout, documented, roomOf, sourceFiles };

if (require.main === module) {
  const check = process.argv.includes('--check');
  const found = cycles(importGraph());
  for (const c of found) process.stderr.write(`import cycle: ${c.join(' <-> ')}\n`);
  const want = documented();
  if (check) {
    if (fs.readFileSync(DOC, 'utf8') !== want) {
      process.stderr.write('docs/architecture.md: the layout section is not what the imports say: run `npm run architecture`\n');
      process.exitCode = 1;
    }
  } else fs.writeFileSync(DOC, want);
  if (found.length > 0) process.exitCode = 1;
}
