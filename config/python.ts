/**
 * Reads a Python file with Python's own parser: `python3 -c <script>` with the file's bytes on stdin, `ast.parse` over
 * them (PEP 263 coding declarations and a UTF-8 BOM honoured as the interpreter honours them), and the top-level names
 * the module binds, last binding winning, each `def` with its signature. The rules over the result are in
 * jobs/reward.ts. python3 is on every machine of this project's kind and on GitHub's runners (docs/pipelines.md
 * "Reward files"); where it is missing the reward is refused with the fix, never waved through.
 *
 * Limits, said where a user reads them (docs/pipelines.md): the grammar is the local python3's (a file using syntax
 * newer than it is refused, naming the version); what a decorator does to a signature, and anything the file does
 * when imported (its own imports, module-level code), is not seen.
 */
import { spawnSync } from 'child_process';
import type { PythonModule } from '../jobs/reward';

/** The script: stdin bytes in, one JSON object out. */
const SCRIPT = `
import ast, json, sys
v = "python %d.%d.%d" % sys.version_info[:3]
src = sys.stdin.buffer.read()
try:
    tree = ast.parse(src)
except (SyntaxError, ValueError) as e:
    print(json.dumps({"ok": False, "python": v, "line": getattr(e, "lineno", None), "message": getattr(e, "msg", None) or str(e)}))
    sys.exit(0)
names = {}
def bind(t, line):
    if isinstance(t, ast.Name):
        names[t.id] = {"kind": "other", "line": line}
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts: bind(e, line)
    elif isinstance(t, ast.Starred):
        bind(t.value, line)
for n in tree.body:
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = n.args
        pos = a.posonlyargs + a.args
        first_default = len(pos) - len(a.defaults)
        params = [{"name": p.arg, "kind": "posonly" if i < len(a.posonlyargs) else "pos", "required": i < first_default, "line": p.lineno} for i, p in enumerate(pos)]
        params += [{"name": p.arg, "kind": "kwonly", "required": d is None, "line": p.lineno} for p, d in zip(a.kwonlyargs, a.kw_defaults)]
        names[n.name] = {"kind": "def", "line": n.lineno, "async": isinstance(n, ast.AsyncFunctionDef), "params": params, "varkw": a.kwarg is not None, "decorated": len(n.decorator_list) > 0}
    elif isinstance(n, ast.ClassDef):
        names[n.name] = {"kind": "other", "line": n.lineno}
    elif isinstance(n, (ast.Import, ast.ImportFrom)):
        for al in n.names:
            names[(al.asname or al.name).split(".")[0]] = {"kind": "other", "line": n.lineno}
    elif isinstance(n, ast.Assign):
        for t in n.targets: bind(t, n.lineno)
    elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and getattr(n, "value", None) is not None:
        bind(n.target, n.lineno)
print(json.dumps({"ok": True, "python": v, "names": names}))
`;

/** The interpreter: `python3` on PATH (another name only in tests, for the missing-interpreter path). */
export const PYTHON = 'python3';

const cache = new Map<string, PythonModule | { problem: string }>();

/**
 * The file `bytes` as Python parses it, or why it could not be read (python3 missing or failing). Cached by content:
 * one config load reads each file once, and tests load the same files many times.
 */
export function parsePython(bytes: Buffer, key: string, python: string = PYTHON): PythonModule | { problem: string } {
  const hit = cache.get(`${python}\n${key}`);
  if (hit) return hit;
  const run = spawnSync(python, ['-I', '-c', SCRIPT], { input: bytes, encoding: 'utf8', timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  let result: PythonModule | { problem: string };
  if (run.error || run.status !== 0) {
    const why = run.error ? (run.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${python} is not on PATH` : run.error.message : (run.stderr || '').trim().split('\n').pop();
    result = { problem: `cannot be checked with Python's parser (${why}): install Python 3 (${PYTHON} on PATH) and run again` };
  } else {
    result = JSON.parse(run.stdout) as PythonModule;
  }
  cache.set(`${python}\n${key}`, result);
  return result;
}
