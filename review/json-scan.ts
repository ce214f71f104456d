/**
 * A linear pass over JSON text for what `JSON.parse` hides or fails on without saying where: a key repeated in one
 * object (JSON.parse keeps the last, so a second `"actions"` could hide a replace: RFC 8259 §4 leaves duplicate names
 * undefined, and Terraform's encoding/json never writes one) and nesting deeper than a plan has. Assumes text that
 * JSON.parse accepts (call it after); reports the first problem with its line and its path (`resource_changes[3].change`).
 * Pure.
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

/** The first duplicate key or too-deep nesting of `text`, or undefined. */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  const stack: Frame[] = [];
  let line = 1;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) line++;
    else if (ch === 34 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) {
          top.key = key;
          return { message: `duplicate key "${key.slice(0, 80)}"`, line, path: pathOf(stack) };
        }
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (stack.length >= maxDepth) return { message: `nesting deeper than ${maxDepth} levels`, line, path: pathOf(stack) };
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
  return undefined;
}

/** Whether a JSON number token reads back as the same text from a double (`31337`, `0.5`; not `9007199254740993`). */
function roundTrips(token: string): boolean {
  return String(Number(token)) === token;
}

/** Start and end of every number token of `text` a double does not keep as written (outside strings). */
export function inexactNumbers(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
    } else if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      let j = i + 1;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        if (!((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)) break;
      }
      // Short integers always round-trip: only longer tokens, and any with a fraction or exponent, are checked.
      if ((j - i > 15 || text.slice(i, j).search(/[.eE]/) >= 0) && !roundTrips(text.slice(i, j))) out.push([i, j]);
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
  const spans = inexactNumbers(text);
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
