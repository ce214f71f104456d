/**
 * Exact numbers of a plan's JSON text: the tokens a double does not keep as written, and a JSON.parse that keeps them.
 * The duplicate-key and depth scan the review runs first is util/json-scan.ts (the config reader's too). Pure.
 */
import { ExactNumber } from './values';

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
