/** Attribute-level differences of two Terraform values (synthesized attributes or plan before/after). Pure. */
import { ExactNumber, isObj } from './values';
import { jsonPathStep } from '../util/json-path';

export interface AttributeChange {
  readonly path: string;
  readonly before?: string;
  readonly after?: string;
}

/** Flattens a value into `a.b[0].c` -> JSON text, skipping cdktf's `//` metadata. */
export function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, '[]');
    value.forEach((v, i) => flatten(v, jsonPathStep(prefix, i), out));
  } else if (isObj(value)) {
    const entries = Object.entries(value).filter(([k]) => k !== '//');
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [k, v] of entries) flatten(v, jsonPathStep(prefix, k), out);
  } else if (value !== undefined && value !== null) {
    // An exact number shows as written, unquoted like any number (1e309 as Terraform's digits, never `null`).
    out.set(prefix, value instanceof ExactNumber ? value.text : JSON.stringify(value));
  }
  return out;
}

/** Leaf attributes that differ between two attribute objects. */
export function attributeChanges(before: unknown, after: unknown): AttributeChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.filter((k) => a.get(k) !== b.get(k)).map((k) => ({ path: k, before: a.get(k), after: b.get(k) }));
}

