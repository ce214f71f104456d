/**
 * A linear pass over JSON text for what `JSON.parse` hides or fails on without saying where: a key repeated in one
 * object (JSON.parse keeps the last, so a second `"actions"` could hide a replace: RFC 8259 §4 leaves duplicate names
 * undefined, and Terraform's encoding/json never writes one), nesting deeper than a plan has, and the number tokens a
 * double does not keep as written. Reports the first problem with its line and its path (`resource_changes[3].change`).
 * One pass serves the plan reader (`scanPlanText`, then `parseScanned`): a 50 MB plan is mostly string bytes, which the
 * pass skips with `indexOf` rather than character by character. Pure.
 */
import { ExactNumber } from './values';

/** Deeper than any plan of this project (a JobSet manifest inside a plan is about 25 levels). */
export const MAX_JSON_DEPTH = 128;

export interface JsonProblem {
  readonly message: string;
  readonly line: number;
  readonly path: string;
}

type Frame = { kind: 'object'; keys: Set<string>; key?: string } | { kind: 'array'; index: number };

function pathOf(stack: readonly Frame[]): string {
  let out = '';
  for (const f of stack) {
    if (f.kind === 'array') out += `[${f.index}]`;
    else if (f.key !== undefined) out += out ? `.${f.key}` : f.key;
  }
  return out || '(top level)';
}

/** The index of the quote closing the string whose opening quote is at `open` (`text.length` when there is none). */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    // Escaped when an odd number of backslashes runs up to it (the run stops at the opening quote at the latest).
    let b = q - 1;
    while (text.charCodeAt(b) === 92 /* \ */) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

/** Where a number token starting at `i` ends. */
function numberEnd(text: string, i: number): number {
  let j = i + 1;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (!((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)) break;
  }
  return j;
}

/** Whether a JSON number token reads back as the same text from a double (`31337`, `0.5`; not `9007199254740993`). */
function roundTrips(token: string): boolean {
  return String(Number(token)) === token;
}

/** Short integers always round-trip: only longer tokens, and any with a fraction or exponent, are checked. */
function inexact(text: string, i: number, j: number): boolean {
  return (j - i > 15 || text.slice(i, j).search(/[.eE]/) >= 0) && !roundTrips(text.slice(i, j));
}

/** A key's text with its escapes read (text that is not JSON, which the reader refuses anyway, as it is). */
function unescapeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

export interface ScannedJson {
  /** The first duplicate key or too-deep nesting, or undefined. */
  readonly problem?: JsonProblem;
  /** Start and end of every number token a double does not keep as written (up to the problem, when there is one). */
  readonly spans: ReadonlyArray<readonly [number, number]>;
}

/** One pass over `text`: the first problem (duplicate key, nesting deeper than `maxDepth`) and the inexact numbers. */
export function scanPlanText(text: string, maxDepth = MAX_JSON_DEPTH): ScannedJson {
  const stack: Frame[] = [];
  const spans: Array<[number, number]> = [];
  let line = 1;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) line++;
    else if (ch === 34 /* " */) {
      const j = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? unescapeKey(raw) : raw;
        top.key = key;
        if (top.keys.has(key)) return { problem: { message: `duplicate key "${key.slice(0, 80)}"`, line, path: pathOf(stack) }, spans };
        top.keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      const j = numberEnd(text, i);
      if (inexact(text, i, j)) spans.push([i, j]);
      i = j - 1;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (stack.length >= maxDepth) return { problem: { message: `nesting deeper than ${maxDepth} levels`, line, path: pathOf(stack) }, spans };
      stack.push(ch === 123 ? { kind: 'object', keys: new Set() } : { kind: 'array', index: 0 });
      expectKey = ch === 123;
    } else if (ch === 125 /* } */ || ch === 93 /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (ch === 44 /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      else expectKey = true;
    }
  }
  return { spans };
}

/** The first duplicate key or too-deep nesting of `text` (text JSON.parse accepts), or undefined. */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  return scanPlanText(text, maxDepth).problem;
}

/** Start and end of every number token of `text` a double does not keep as written (outside strings). */
export function inexactNumbers(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) i = stringEnd(text, i);
    else if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      const j = numberEnd(text, i);
      if (inexact(text, i, j)) out.push([i, j]);
      i = j - 1;
    }
  }
  return out;
}

/**
 * JSON.parse keeping exact numbers: a number a double does not keep as written becomes an ExactNumber holding its
 * text (Node 20 has no reviver `context.source`, so the tokens are found first and parsed as marked strings). Keys
 * such as `__proto__` stay own properties, as JSON.parse makes them.
 */
export function parseJsonExact(text: string): unknown {
  return parseScanned(text, inexactNumbers(text));
}

/** JSON.parse of `text` with the number tokens at `spans` (scanPlanText, inexactNumbers) kept as ExactNumbers. */
export function parseScanned(text: string, spans: ReadonlyArray<readonly [number, number]>): unknown {
  if (spans.length === 0) return JSON.parse(text) as unknown;
  const mark = `\u0000exact-${Math.random().toString(36).slice(2)}:`;
  const markJson = JSON.stringify(mark).slice(1, -1);
  let rebuilt = '';
  let at = 0;
  for (const [start, end] of spans) {
    rebuilt += `${text.slice(at, start)}"${markJson}${text.slice(start, end)}"`;
    at = end;
  }
  rebuilt += text.slice(at);
  return JSON.parse(rebuilt, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(mark) ? new ExactNumber(value.slice(mark.length)) : value) as unknown;
}
