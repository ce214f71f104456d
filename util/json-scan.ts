/**
 * The program's one scanner for what `JSON.parse` hides: a key repeated in one object (JSON.parse keeps the last, so a
 * second `"actions"` in a plan could hide a replace, and a second `"topology"` in a config file would silently win: RFC
 * 8259 §4 leaves duplicate names undefined, and Terraform's encoding/json never writes one), and nesting deeper than a
 * limit. One linear pass, fast enough for a 50 MB plan (the review, review/cli.ts) and used by the config reader
 * (config/load.ts). Assumes text that JSON.parse accepts (call it after). Lines and columns are 1-based and count
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
}

type Frame = { kind: 'object'; keys: Set<string>; key?: string } | { kind: 'array'; index: number };

function pathOf(stack: readonly Frame[]): string {
  return jsonPath(stack.flatMap<string | number>((f) => (f.kind === 'array' ? [f.index] : f.key !== undefined ? [f.key] : [])));
}

/** The duplicate keys and too-deep nesting of `text`, in document order, at most `max` of them. */
export function jsonProblems(text: string, options: JsonScanOptions = {}): JsonProblem[] {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const max = options.max ?? 1;
  const out: JsonProblem[] = [];
  const stack: Frame[] = [];
  let line = 1;
  let lineStart = 0;
  let expectKey = false;
  for (let i = 0; i < text.length && out.length < max; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */ || ch === 13 /* \r */) {
      if (ch === 13 && text.charCodeAt(i + 1) === 10) i++;
      line++;
      lineStart = i + 1;
    } else if (ch === 34 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        top.key = key;
        if (top.keys.has(key)) out.push({ message: `duplicate key "${key.slice(0, 80)}"`, line, column: i - lineStart + 1, path: pathOf(stack) });
        top.keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (stack.length >= maxDepth) {
        out.push({ message: `nesting deeper than ${maxDepth} levels`, line, column: i - lineStart + 1, path: pathOf(stack) });
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
