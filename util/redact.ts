/**
 * The one redaction step of the review, `status` and `logs`: every string they print passes through a Redactor.
 *
 * Two sources of secrets:
 * - shapes: the secret patterns below (a Hugging Face token, a private key, a service-account key id, GitHub and AWS
 *   keys, a Google OAuth access token), wherever they appear;
 * - Terraform's own markers in a plan (hashicorp/terraform v1.11.4 `internal/command/jsonplan/plan.go`:
 *   `before_sensitive`/`after_sensitive` per change, `true` for a sensitive value or an object/array of the same
 *   shape; sensitive outputs in `output_changes`; `variables` holds even a `sensitive = true` variable's value in
 *   clear text, its sensitivity is only in `configuration.root_module.variables`). plan.ts masks the marked values
 *   and registers their text here, so the same text is redacted wherever else it shows up (a provider that copies
 *   an input into an unmarked computed attribute, a diff of the synthesis, an error message).
 *
 * Pure.
 */
import { ExactNumber } from './exact-number';

/** What a redacted value is shown as. */
export const REDACTED = '(sensitive value)';

/** The longest single value a report or status line shows; longer values are cut with a note of their length. */
export const MAX_VALUE_CHARS = 300;

export interface SecretPattern {
  readonly what: string;
  /** What is left of a match in printed text: the kind of secret, never a character of it. */
  readonly shown: string;
  readonly pattern: RegExp;
}

/** Secret shapes (global regexes: every match is replaced). */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // No word boundaries: a token glued to `_` or a letter (`file_hf_…`, `hf_…_backup`) is still a token.
  { what: 'a Hugging Face token', shown: 'hf_…(redacted)', pattern: /hf_[A-Za-z0-9]{20,}/g },
  {
    what: 'a private key',
    shown: '-----BEGIN PRIVATE KEY-----…(redacted)',
    // The whole block when its end is there (a key split over lines or words is one secret), else the rest of the text.
    pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY-----|[\s\S]*)/g,
  },
  { what: 'a service account key', shown: '"private_key_id": (redacted)', pattern: /\\?"private_key_id\\?"\s*:\s*\\?"[0-9a-f]{20,}\\?"/g },
  { what: 'a GitHub token', shown: 'gh…(redacted)', pattern: /gh[pousr]_[A-Za-z0-9]{30,}/g },
  { what: 'an AWS access key', shown: 'AKIA…(redacted)', pattern: /(?<![0-9A-Z])AKIA[0-9A-Z]{16}(?![0-9A-Z])/g },
  { what: 'a Google OAuth access token', shown: 'ya29.…(redacted)', pattern: /\bya29\.[A-Za-z0-9_.-]{20,}/g },
  { what: 'a bearer token', shown: 'Bearer (redacted)', pattern: /\bBearer [A-Za-z0-9._~+/=-]{16,}/g },
];

/** The first secret shape found in `text`, without the secret. */
export function findSecret(text: string): { what: string; index: number; match: string } | undefined {
  for (const { what, pattern } of SECRET_PATTERNS) {
    pattern.lastIndex = 0;
    const m = pattern.exec(text);
    pattern.lastIndex = 0;
    if (m) return { what, index: m.index, match: m[0] };
  }
  return undefined;
}

/**
 * Sensitive values shorter than this (a 5-digit pin, a port) are searched for in free text as whole tokens only (not
 * inside a longer word or number: `48213` is redacted in `pin 48213` and `{"pin":"48213"}`, not in `148213`), so that
 * a one-character secret does not blank every digit of the report; longer values wherever they appear.
 */
const MIN_SUBSTRING = 6;

/** Replaces secrets in text: known sensitive values (from a plan's markers) and the secret shapes. */
export class Redactor {
  private readonly literals = new Set<string>();
  private readonly short = new Set<string>();
  private sorted: string[] | undefined;
  private shortPattern: RegExp | undefined;

  constructor(literals: Iterable<string> = []) {
    for (const l of literals) this.add(l);
  }

  /** Registers a sensitive value (and its JSON-escaped form) so it is redacted wherever it appears. */
  add(value: string): void {
    if (value.length === 0) return;
    const escaped = JSON.stringify(value).slice(1, -1);
    for (const v of escaped === value ? [value] : [value, escaped]) {
      if (v.length < MIN_SUBSTRING) this.short.add(v);
      else this.literals.add(v);
    }
    this.sorted = undefined;
    this.shortPattern = undefined;
  }

  get size(): number {
    return this.literals.size + this.short.size;
  }

  /** `text` with every registered value and every secret shape replaced. */
  text(text: string): string {
    let out = text;
    this.sorted ??= [...this.literals].sort((a, b) => b.length - a.length);
    for (const l of this.sorted) if (out.includes(l)) out = out.split(l).join(REDACTED);
    if (this.short.size) {
      const escape = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      // Not inside a longer word or number: no letter, digit, `_` or `.`+digit either side.
      this.shortPattern ??= new RegExp(`(?<![\\p{L}\\p{N}_])(?:${[...this.short].sort((a, b) => b.length - a.length).map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
      out = out.replace(this.shortPattern, REDACTED);
    }
    for (const { shown, pattern } of SECRET_PATTERNS) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, shown);
    }
    return out;
  }
}

/** The secret shapes alone (status, logs, and text with no plan behind it). */
export function redact(text: string): string {
  return new Redactor().text(text);
}

/** `text` cut to `max` characters with a note of how much was left out. */
export function capText(text: string, max = MAX_VALUE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

type Marks = unknown;

/**
 * `value` with every part that `marks` (a before_sensitive/after_sensitive shape) marks `true` replaced by REDACTED;
 * the string leaves of what was replaced go to `found`.
 */
export function maskSensitive(value: unknown, marks: Marks, found?: (secret: string) => void): unknown {
  if (marks === true) {
    if (value === undefined || value === null) return value;
    collectStrings(value, found);
    return REDACTED;
  }
  if (Array.isArray(marks) && Array.isArray(value)) return value.map((v, i) => maskSensitive(v, marks[i], found));
  if (isRecord(marks) && isRecord(value)) {
    const out: Record<string, unknown> = { ...value };
    // Own keys only, set as own properties: a key named `__proto__` is a key like any other here.
    for (const [k, m] of Object.entries(marks)) {
      if (Object.hasOwn(out, k)) Object.defineProperty(out, k, { value: maskSensitive(out[k], m, found), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/**
 * A key shaped like an attribute name (`name`, `secret_objects`, `hf-token`): the shape of an object, which the report's
 * own structures share. A sensitive object `{name, value}` must not make `name` a secret: the report's `name` fields
 * would be renamed by redactDeep and every word `name` blanked (issue 45: the review crashed with exit 2).
 */
const SHAPE_KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * Every string (and number) leaf of a sensitive value, and its object keys that are not shaped like attribute names
 * (SHAPE_KEY): a sensitive map's keys are as secret as its values (Terraform marks the elements, and a key is printed
 * wherever the map is); a key shaped like a secret (a token) is still redacted by its shape.
 */
export function collectStrings(value: unknown, found?: (secret: string) => void): void {
  if (!found) return;
  if (typeof value === 'string') found(value);
  else if (typeof value === 'number' || value instanceof ExactNumber) found(String(value));
  else if (Array.isArray(value)) value.forEach((v) => collectStrings(v, found));
  else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (!SHAPE_KEY.test(k)) found(k);
      collectStrings(v, found);
    }
  }
}

/**
 * `value` with every string in it, object keys included, through `redact`: the report input is redacted on the raw
 * values, before anything shortens, escapes or joins them (a cut or escaped secret no longer matches its text).
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
    if (v instanceof ExactNumber) return redact(v.text) === v.text ? v : REDACTED;
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (v instanceof Set) return new Set([...v].map(walk));
    // A key shaped like an attribute name is the report's structure: only a secret shape (a token as a key) replaces it.
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [SHAPE_KEY.test(k) && !findSecret(k) ? k : redact(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ExactNumber);
}
