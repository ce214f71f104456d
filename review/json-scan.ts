/**
 * Exact numbers of a plan's JSON text: the tokens a double does not keep as written, and a JSON.parse that keeps them.
 * One pass serves the plan reader (`scanPlanText`, then `parseScanned`): the duplicate-key and depth scan of
 * util/json-scan.ts (the config reader's too) hands over every number token on its way. Pure.
 */
import { jsonProblems, JsonProblem, MAX_JSON_DEPTH, numberEnd, stringEnd } from '../util/json-scan';
import { ExactNumber } from './values';

/** Whether a JSON number token reads back as the same text from a double (`31337`, `0.5`; not `9007199254740993`). */
function roundTrips(token: string): boolean {
  return String(Number(token)) === token;
}

/** Short integers always round-trip: only longer tokens, and any with a fraction or exponent, are checked. */
function inexact(text: string, i: number, j: number): boolean {
  return (j - i > 15 || text.slice(i, j).search(/[.eE]/) >= 0) && !roundTrips(text.slice(i, j));
}

export interface ScannedJson {
  /** The first duplicate key or too-deep nesting, or undefined. */
  readonly problem?: JsonProblem;
  /** Start and end of every number token a double does not keep as written (up to the problem, when there is one). */
  readonly spans: ReadonlyArray<readonly [number, number]>;
}

/** One pass over `text`: the first problem (duplicate key, nesting deeper than `maxDepth`) and the inexact numbers. */
export function scanPlanText(text: string, maxDepth = MAX_JSON_DEPTH): ScannedJson {
  const spans: Array<[number, number]> = [];
  const onNumber = (i: number, j: number) => {
    if (inexact(text, i, j)) spans.push([i, j]);
  };
  const [problem] = jsonProblems(text, { maxDepth, onNumber });
  return problem ? { problem, spans } : { spans };
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
