/**
 * Text from a plan, a check, a synthesis or a cluster made inert for the two places it is shown:
 * - Markdown (the pull-request comment, GitHub Flavored Markdown): no heading, block quote or list it starts, no HTML
 *   (`<details>` left open collapses the rest of the comment), no link or image (`[x](y)`, `<http://…>`, GFM's bare
 *   `https://…` and `www.` autolinks, `#123` references), no mention (`@team`), no entity that becomes one
 *   (`&#64;team`), no code span it opens and leaves open; code spans already in the text are kept (their content is literal), and a code span of any
 *   text is fenced so a backtick in it shows as a backtick;
 * - a terminal: no escape or control sequence (CSI such as clear screen, OSC such as the OSC 52 clipboard write, DCS,
 *   C1 controls), no C0 control but tab and newline.
 * Pure.
 */

/** A code span that shows `text` as written: fenced with one backtick more than its longest run, padded when needed. */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n\u2028\u2029]+/g, ' ');
  if (flat === '') return '';
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(flat) && flat.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A well-formed code span (CommonMark 6.1: a run of n backticks, content, the next run of exactly n). */
const CODE_SPAN = /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;

/** Plain text made inert in Markdown (see the module comment); newlines become spaces. */
function inertPlain(text: string): string {
  return text
    // `>` alone opens no tag once `<` is escaped (a leading `>` is handled in inert)
    .replace(/[\\`[\]<&]/g, (c) => (c === '<' ? '&lt;' : c === '&' ? '&amp;' : `\\${c}`))
    // GitHub mentions start at an `@` after a non-word character (an e-mail's `sa@proj` is none)
    .replace(/(?<![A-Za-z0-9_])@/g, '@\u200b')
    .replace(/#(?=\d)/g, '#\u200b')
    .replace(/([a-z][\w+.-]*):\/\//gi, '$1:\u200b//')
    .replace(/\bwww\./gi, 'www\u200b.');
}

/**
 * `text` inert in Markdown, its well-formed code spans kept. `lineStart`: the text may begin a block (a list item's
 * text, a paragraph), so a leading block marker (`#`, `>`, `-`, `+`, `*`, `=`, `1.`) is escaped too; a table cell
 * holds inline content only.
 */
export function inert(text: string, lineStart = true): string {
  const flat = stripControls(text).replace(/[\r\n\u2028\u2029]+/g, ' ');
  let out = '';
  let at = 0;
  for (const m of flat.matchAll(CODE_SPAN)) {
    out += inertPlain(flat.slice(at, m.index)) + m[0];
    at = m.index! + m[0].length;
  }
  out += inertPlain(flat.slice(at));
  if (!lineStart) return out;
  return out.replace(/^(\s*)([#>*+=_~-])/, '$1\\$2').replace(/^(\s*\d+)([.)])/, '$1\\$2');
}

/**
 * `text` without terminal control: escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, DCS/SOS/PM/APC
 * `ESC P|X|^|_ … ST`, two-character `ESC x`), their 8-bit C1 forms, and every other C0/C1 control and DEL; tab and
 * newline stay. A sequence cut by a chunk boundary loses its ESC here, so what is left prints as plain text.
 */
export function stripControls(text: string): string {
  return text
    .replace(/(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?/g, '')
    .replace(/(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g, '')
    .replace(/\x1b[ -~]?/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}
