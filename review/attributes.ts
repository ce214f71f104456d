/** Attribute-level differences of two Terraform values (synthesized attributes or plan before/after). Pure. */
import { ExactNumber, isObj } from './values';
import { jsonPathStep } from '../util/json-path';

export interface AttributeChange {
  readonly path: string;
  readonly before?: string;
  readonly after?: string;
}

/** A leaf of a flattened value: a primitive, an exact number, or an empty array / object. */
export type Leaf = string | number | boolean | ExactNumber | typeof EMPTY_ARRAY | typeof EMPTY_OBJECT;
const EMPTY_ARRAY = Symbol('[]');
const EMPTY_OBJECT = Symbol('{}');

/** Flattens a value into `a.b[0].c` -> leaf, skipping cdktf's `//` metadata and null leaves. */
export function leaves(value: unknown, prefix = '', out = new Map<string, Leaf>()): Map<string, Leaf> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, EMPTY_ARRAY);
    value.forEach((v, i) => leaves(v, jsonPathStep(prefix, i), out));
  } else if (isObj(value)) {
    const entries = Object.entries(value).filter(([k]) => k !== '//');
    if (entries.length === 0) out.set(prefix, EMPTY_OBJECT);
    for (const [k, v] of entries) leaves(v, jsonPathStep(prefix, k), out);
  } else if (value !== undefined && value !== null) {
    out.set(prefix, value as Leaf);
  }
  return out;
}

/** A leaf as JSON text: an exact number as written, unquoted like any number (1e309 as Terraform's digits, never `null`). */
export function leafText(leaf: Leaf): string;
export function leafText(leaf: Leaf | undefined): string | undefined;
export function leafText(leaf: Leaf | undefined): string | undefined {
  if (leaf === undefined) return undefined;
  if (leaf === EMPTY_ARRAY) return '[]';
  if (leaf === EMPTY_OBJECT) return '{}';
  return leaf instanceof ExactNumber ? leaf.text : JSON.stringify(leaf);
}

/**
 * Whether two leaves have the same text (leafText), without writing a long string as JSON: two strings are the same
 * text exactly when they are equal, and a string's text (quoted) is never that of another kind of leaf unless the
 * other's text starts with a quote.
 */
function sameLeaf(x: Leaf | undefined, y: Leaf | undefined): boolean {
  if (x === undefined || y === undefined) return x === y;
  if (typeof x === 'string' && typeof y === 'string') return x === y;
  if (typeof x === 'string' || typeof y === 'string') {
    const other = leafText(typeof x === 'string' ? y : x);
    return other.startsWith('"') && other === leafText(typeof x === 'string' ? x : y);
  }
  return leafText(x) === leafText(y);
}

/** Flattens a value into `a.b[0].c` -> JSON text, skipping cdktf's `//` metadata. */
export function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [path, leaf] of leaves(value, prefix)) out.set(path, leafText(leaf));
  return out;
}

/** A leaf that differs: its path and both sides (undefined where the path is absent). */
export interface LeafChange {
  readonly path: string;
  readonly before?: Leaf;
  readonly after?: Leaf;
}

/** Leaves that differ between two attribute objects, by path. */
export function leafChanges(before: unknown, after: unknown): LeafChange[] {
  const a = leaves(before);
  const b = leaves(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.filter((k) => !sameLeaf(a.get(k), b.get(k))).map((k) => ({ path: k, before: a.get(k), after: b.get(k) }));
}

/**
 * An AttributeChange whose sides are written as JSON when first read (each once): a plan's rows show a few of its
 * thousands of changes, and writing every long value of every change as JSON was a fifth of a 50 MB plan's review.
 * The sides are own enumerable properties, as in a plain object (spread, Object.entries and JSON see them).
 */
export function attributeChangeOf(path: string, before: Leaf | undefined, after: Leaf | undefined): AttributeChange {
  let b: string | undefined | null = null;
  let a: string | undefined | null = null;
  return {
    path,
    get before() {
      return b === null ? (b = leafText(before)) : b;
    },
    get after() {
      return a === null ? (a = leafText(after)) : a;
    },
  };
}

/** Leaf attributes that differ between two attribute objects. */
export function attributeChanges(before: unknown, after: unknown): AttributeChange[] {
  return leafChanges(before, after).map((c) => attributeChangeOf(c.path, c.before, c.after));
}
