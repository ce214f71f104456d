/**
 * The program's one scanner for what `JSON.parse` hides: a key repeated in one object (JSON.parse keeps the last, so a
 * second `"actions"` in a plan could hide a replace, and a second `"topology"` in a config file would silently win: RFC
 * 8259 §4 leaves duplicate names undefined, and Terraform's encoding/json never writes one), and nesting deeper than a
 * limit; on request it also hands over every number token, so the plan reader finds the numbers a double does not keep
 * in the same pass (review/json-scan.ts `scanPlanText`). One linear pass that skips string bytes with `indexOf`, fast
 * enough for a 50 MB plan (the review, review/cli.ts) and used by the config reader (config/load.ts). Meant for text
 * JSON.parse accepts (text it refuses gives no useful problem, never a throw). Lines and columns are 1-based and count
 * CR, LF and CRLF as one line break each, as editors and jsonc-parser count them. Pure.
 */
import { jsonPath } from './json-path';

/** Deeper than any plan of this project (a JobSet manifest inside a plan is about 25 levels). */
export const MAX_JSON_DEPTH = 128;

export interface JsonProblem {
  /** `duplicate key "<key, at most 80 characters>"` or `nesting deeper than <n> levels`. */
  readonly message: string;
  readonly line: number;
  /** Column of the repeated key's opening quote, or of the bracket one level too deep. */
  readonly column: number;
  /** Where (util/json-path.ts): `resource_changes[3].change.actions` for a key (the key last), '' at the top level. */
  readonly path: string;
}

export interface JsonScanOptions {
  /** Deepest nesting accepted. @default MAX_JSON_DEPTH */
  readonly maxDepth?: number;
  /** Problems reported at the most (the scan stops at the last). @default 1 */
  readonly max?: number;
  /** Called with the start and end of each number token outside strings, in order, up to the scan's stop. @default none */
  readonly onNumber?: (start: number, end: number) => void;
}

type Frame = { kind: 'object'; keys: Set<string>; key?: string } | { kind: 'array'; index: number };

function pathOf(stack: readonly Frame[]): string {
  return jsonPath(stack.flatMap<string | number>((f) => (f.kind === 'array' ? [f.index] : f.key !== undefined ? [f.key] : [])));
}

/** The index of the quote closing the string whose opening quote is at `open` (`text.length` when there is none). */
export function stringEnd(text: string, open: number): number {
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
export function numberEnd(text: string, i: number): number {
  let j = i + 1;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (!((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)) break;
  }
  return j;
}

/** A key's text with its escapes read (text that is not JSON, which the readers refuse anyway, as it is). */
function keyText(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

const isNumberStart = (ch: number) => ch === 45 /* - */ || (ch >= 48 && ch <= 57);

/** The duplicate keys and too-deep nesting of `text`, in document order, at most `max` of them. */
export function jsonProblems(text: string, options: JsonScanOptions = {}): JsonProblem[] {
  const { maxDepth = MAX_JSON_DEPTH, max = 1, onNumber } = options;
  const out: JsonProblem[] = [];
  const stack: Frame[] = [];
  let line = 1;
  let lineStart = 0;
  let expectKey = false;
  const problem = (message: string, i: number) => out.push({ message, line, column: i - lineStart + 1, path: pathOf(stack) });
  for (let i = 0; i < text.length && out.length < max; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */ || ch === 13 /* \r */) {
      if (ch === 13 && text.charCodeAt(i + 1) === 10) i++;
      line++;
      lineStart = i + 1;
    } else if (ch === 34 /* " */) {
      const j = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const key = keyText(text.slice(i + 1, j));
        top.key = key;
        if (top.keys.has(key)) problem(`duplicate key "${key.slice(0, 80)}"`, i);
        top.keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (onNumber && isNumberStart(ch)) {
      const j = numberEnd(text, i);
      onNumber(i, j);
      i = j - 1;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (stack.length >= maxDepth) {
        problem(`nesting deeper than ${maxDepth} levels`, i);
        break;
      }
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
  return out;
}

/** The first duplicate key or too-deep nesting of `text`, or undefined. */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  return jsonProblems(text, { maxDepth })[0];
}
