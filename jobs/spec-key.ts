/**
 * The one hashing helper of what a step computes: canonical JSON (object keys sorted, undefined members dropped) and
 * sha256 over it. `specKey` names directories by their inputs (jobs/maxtext.ts conversionKey, trainKey); chainHash
 * (jobs/pipeline.ts) chains whole manifests. Pure; no cdktf.
 */
import { ExactNumber } from '../util/exact-number';
import { createHash } from 'crypto';

/**
 * JSON with object keys sorted at every level and undefined object members left out (as JSON.stringify does);
 * undefined itself reads as null. Equal for equal values whatever their key order: the spec keys here, and the
 * review's comparisons of plan values (review/values.ts `canonical`).
 */
export function canonicalJson(value: unknown): string {
  // A plan number a double cannot hold (the review's reader keeps it as written): compared as written.
  if (value instanceof ExactNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Full sha256 hex of the parts, each canonical JSON (strings as they are), separated by newlines. */
export function sha256Of(...parts: unknown[]): string {
  const h = createHash('sha256');
  parts.forEach((p, i) => {
    if (i > 0) h.update('\n');
    h.update(typeof p === 'string' ? p : canonicalJson(p));
  });
  return h.digest('hex');
}

/** Length of a spec key: 12 hex digits (48 bits), short enough for a path segment, collision-free in practice. */
export const SPEC_KEY_LENGTH = 12;

/** A short stable key of `inputs` (sha256 of their canonical JSON). */
export function specKey(inputs: unknown): string {
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex').slice(0, SPEC_KEY_LENGTH);
}
