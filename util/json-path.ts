/**
 * The program's one JSON path printer: `resource_changes[3].change.actions[0]`, as the review's messages, its
 * attribute lists and the config's duplicate-key message show a place in a JSON document (jq and Terraform print it
 * so). Keys are printed as they are (not quoted: a key holding `.` or `[` reads ambiguously, as in every copy this
 * replaced). Pure.
 */

/** `prefix` one step down: `a` + `b` -> `a.b`, `a` + 0 -> `a[0]`, '' + `b` -> `b`, '' + 0 -> `[0]`. */
export function jsonPathStep(prefix: string, part: string | number): string {
  if (typeof part === 'number') return `${prefix}[${part}]`;
  return prefix ? `${prefix}.${part}` : part;
}

/** Path parts as one path: `['a', 'b', 0, 'c']` -> `a.b[0].c`; '' for none (the caller names the top level its way). */
export function jsonPath(parts: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of parts) out = jsonPathStep(out, p);
  return out;
}
