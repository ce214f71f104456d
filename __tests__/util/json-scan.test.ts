/**
 * util/json-scan.ts, the one duplicate-key and depth scanner (the review reads plans with it, the config reader config
 * files), case by case: where each problem is (line, column, path), what passes, the depth limit, how many are kept.
 */
import * as fs from 'fs';
import * as path from 'path';
import { visit } from 'jsonc-parser';
import { jsonProblems, MAX_JSON_DEPTH, scanJson } from '../../util/json-scan';

const REAL = path.join(__dirname, '..', 'review', 'fixtures', 'real-plans');

describe('scanJson: the first problem', () => {
  test('every real Terraform 1.11.4 plan passes', () => {
    const files = fs.readdirSync(REAL).filter((x) => x.endsWith('.json'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect([f, scanJson(fs.readFileSync(path.join(REAL, f), 'utf8'))]).toEqual([f, undefined]);
  });

  test.each([
    ['{"a": 1, "a": 2}', { message: 'duplicate key "a"', line: 1, column: 10, path: 'a' }],
    ['{\n"x": {"a": [1, {"b": 1}]},\n"x": 2}', { message: 'duplicate key "x"', line: 3, column: 1, path: 'x' }],
    ['[{"a": 1}, {"a": 1}, {"b": 1, "b": 2}]', { message: 'duplicate key "b"', line: 1, column: 31, path: '[2].b' }],
    ['{"a": {"k": 1, "q": [[], {"k": 2, "k": 3}]}}', { message: 'duplicate key "k"', line: 1, column: 35, path: 'a.q[1].k' }],
    ['{"a\\"b": 1, "a\\"b": 2}', { message: 'duplicate key "a"b"', line: 1, column: 13, path: 'a"b' }],
    [`{"${'k'.repeat(100)}": 1, "${'k'.repeat(100)}": 1}`, { message: `duplicate key "${'k'.repeat(80)}"`, line: 1, column: 109, path: 'k'.repeat(100) }],
    // CR, LF and CRLF are one line break each (as editors and jsonc-parser count them); the column restarts after it.
    ['{"a": 1,\r\n  "a": 2}', { message: 'duplicate key "a"', line: 2, column: 3, path: 'a' }],
    ['{"a": 1,\r\r  "a": 2}', { message: 'duplicate key "a"', line: 3, column: 3, path: 'a' }],
  ])('%j', (text, problem) => {
    expect(scanJson(text)).toEqual(problem);
  });

  test.each([
    '{"a": "a", "b": "a"}', // a value equal to a key is no key
    '{"a": "x\\\\", "b": 1}', // an escaped backslash before the closing quote
    '{"a": "}{,\\"a\\": 1", "b": {"a": 1}}', // brackets, commas and quotes inside a string
    '[["a", "a"], {"a": 1}]',
    '{"a": {}, "b": [], "c": [{}, {}]}',
    '{"a": {"k": 1}, "b": {"k": 2}}', // the same key in two objects
  ])('no problem: %s', (text) => {
    expect(scanJson(text)).toBeUndefined();
  });

  test('the depth limit: exactly MAX_JSON_DEPTH levels pass, one more is refused at its place', () => {
    const nest = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(scanJson(nest(MAX_JSON_DEPTH))).toBeUndefined();
    expect(scanJson(`{"a":\n${nest(MAX_JSON_DEPTH)}}`)).toEqual({ message: `nesting deeper than ${MAX_JSON_DEPTH} levels`, line: 2, column: MAX_JSON_DEPTH, path: `a${'[0]'.repeat(MAX_JSON_DEPTH - 1)}` });
    expect(scanJson(nest(3), 2)).toEqual({ message: 'nesting deeper than 2 levels', line: 1, column: 3, path: '[0][0]' });
    expect(scanJson('[[', 1)).toEqual({ message: 'nesting deeper than 1 levels', line: 1, column: 2, path: '[0]' });
    expect(scanJson('{"a": 1, "b": 2}', 1)).toBeUndefined();
    expect(scanJson('[1]', 0)).toEqual({ message: 'nesting deeper than 0 levels', line: 1, column: 1, path: '' });
  });
});

describe('jsonProblems: every problem, in document order', () => {
  const text = '{"a": 1, "a": 2,\n "b": {"c": [1, {"d": 1, "d": 2}]}, "a": 3}';

  test('@default max 1: the first only', () => {
    expect(jsonProblems(text)).toEqual([{ message: 'duplicate key "a"', line: 1, column: 10, path: 'a' }]);
  });

  test('max n: up to n of them, where each is', () => {
    const all = [
      { message: 'duplicate key "a"', line: 1, column: 10, path: 'a' },
      { message: 'duplicate key "d"', line: 2, column: 26, path: 'b.c[1].d' },
      { message: 'duplicate key "a"', line: 2, column: 37, path: 'a' },
    ];
    expect(jsonProblems(text, { max: 10 })).toEqual(all);
    expect(jsonProblems(text, { max: 2 })).toEqual(all.slice(0, 2));
  });

  test('maxDepth Infinity: no depth limit (the config reader), duplicates still found below it', () => {
    const deep = `${'['.repeat(300)}{"k": 1, "k": 2}${']'.repeat(300)}`;
    expect(jsonProblems(deep, { maxDepth: Infinity, max: 10 })).toEqual([{ message: 'duplicate key "k"', line: 1, column: 310, path: `${'[0]'.repeat(300)}.k` }]);
    expect(jsonProblems(deep)[0]!.message).toBe(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  });

  test('after a depth problem the scan stops (what is deeper is not read)', () => {
    expect(jsonProblems('[[{"a": 1, "a": 2}]]', { maxDepth: 1, max: 10 })).toEqual([{ message: 'nesting deeper than 1 levels', line: 1, column: 2, path: '[0]' }]);
  });
});

describe('the same places jsonc-parser reports (what config/load.ts showed for a duplicate key before this scanner)', () => {
  /** Each duplicate key as jsonc-parser's visitor sees it: `line:column` (1-based) and the dotted path config printed. */
  const jsonc = (text: string) => {
    const objects: Array<Set<string>> = [];
    const out: string[] = [];
    visit(text, {
      onObjectBegin: () => void objects.push(new Set()),
      onObjectEnd: () => void objects.pop(),
      onObjectProperty: (name, _offset, _length, line, column, pathSupplier) => {
        const keys = objects[objects.length - 1]!;
        if (keys.has(name)) out.push(`${line + 1}:${column + 1} ${[...pathSupplier(), name].join('.')}`);
        keys.add(name);
      },
    });
    return out;
  };

  test.each([
    '{"a": 1,\r\n  "a": 2}',
    '{"a": 1,\r\r  "a": 2}',
    '{"a": 1, "a": 2,\n "b": {"c": {"d": 1, "d": 2}}, "a": 3}',
    '{"é😀": 1,\n "é😀": {"x": 1,\t"x": 2}}',
    '{\n  "tpu": {\n    "topology": "4x8",\n    "topology": "2x4"\n  }\n}',
  ])('%j', (text) => {
    expect(jsonProblems(text, { maxDepth: Infinity, max: 10 }).map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual(jsonc(text));
  });
});

describe('onNumber: the number tokens outside strings, for the plan reader (review/json-scan.ts scanPlanText)', () => {
  test('each token once, in order, none inside a string or key; the scan stops at the first problem', () => {
    const text = '{"a1": -1.5e3, "b": "7 8", "c": [0, 9007199254740993], "c": 4}';
    const seen: string[] = [];
    const problems = jsonProblems(text, { onNumber: (i, j) => seen.push(text.slice(i, j)) });
    expect(seen).toEqual(['-1.5e3', '0', '9007199254740993']);
    expect(problems).toEqual([{ message: 'duplicate key "c"', line: 1, column: 56, path: 'c' }]);
  });
});
