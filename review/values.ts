/**
 * Small readers for Terraform JSON values (cdktf's synthesized attributes and plan `before`/`after` alike):
 * single nested blocks that come as an object or a one-element list, numbers as strings, `${type.name.attr}`
 * references, Terraform durations. Pure.
 */
import type { TerraformJson } from './load';

export type Obj = Record<string, unknown>;

/** How a plan value unknown until apply is shown (plan.ts puts it where `after_unknown` marks a value). */
export const KNOWN_AFTER_APPLY = '(known after apply)';

/** Whether a value holds a part unknown until apply. */
export function hasUnknown(value: unknown): boolean {
  if (value === KNOWN_AFTER_APPLY) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  return isObj(value) && Object.values(value).some(hasUnknown);
}

/** A Terraform resource as it appears in the JSON: `type.name` plus its attributes. */
export interface TfResource {
  readonly address: string;
  readonly type: string;
  readonly name: string;
  readonly attrs: Obj;
}

export { ExactNumber } from '../util/exact-number';
import { ExactNumber } from '../util/exact-number';

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ExactNumber);
}

/** The program's one canonical JSON (jobs/spec-key.ts canonicalJson): keys sorted, exact numbers as written. */
export { canonicalJson as canonical } from '../jobs/spec-key';

/** Terraform JSON renders a single nested block as an object, sometimes as a one-element list. */
export function block(value: unknown): Obj | undefined {
  if (Array.isArray(value)) return isObj(value[0]) ? value[0] : undefined;
  return isObj(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' || value instanceof ExactNumber ? String(value) : undefined;
}

export function num(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value instanceof ExactNumber) return Number(value.text);
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

export function bool(value: unknown): boolean {
  return value === true || value === 'true';
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** Every resource of a Terraform JSON document, in file order. */
export function resources(json: TerraformJson): TfResource[] {
  const out: TfResource[] = [];
  for (const [type, byName] of Object.entries(json.resource ?? {})) {
    for (const [name, attrs] of Object.entries(byName ?? {})) {
      out.push({ address: `${type}.${name}`, type, name, attrs: attrs as Obj });
    }
  }
  return out;
}

/** The google provider's project, which resources without `project` inherit. */
function providerProject(json: TerraformJson): string {
  const google = (json.provider as Record<string, unknown> | undefined)?.google;
  const project = block(google)?.project;
  return typeof project === 'string' && !project.includes('${') ? project : 'PROJECT';
}

/**
 * Replaces `${type.name.attr}` references to resources of the same stack with the literal value when the
 * referenced attribute is a literal input (or a service account's email/member, derived from account_id).
 * Unresolvable references are shown as `type.name.attr`.
 */
export function resolveRefs(value: string, json: TerraformJson): string {
  return value.replace(/\$\{([^}]+)\}/g, (_match, expr: string) => {
    const parts = expr.trim().split('.');
    const isData = parts[0] === 'data';
    const [type, name, attr] = isData ? parts.slice(1) : parts;
    const attrs = (isData ? json.data : json.resource)?.[type ?? '']?.[name ?? ''];
    const literal = (v: unknown) => (typeof v === 'string' && !v.includes('${')) || typeof v === 'number';
    if (attrs && attr) {
      if (literal(attrs[attr])) return String(attrs[attr]);
      if (type === 'google_service_account' && literal(attrs.account_id)) {
        const email = `${String(attrs.account_id)}@${literal(attrs.project) ? String(attrs.project) : providerProject(json)}.iam.gserviceaccount.com`;
        return attr === 'member' ? `serviceAccount:${email}` : email;
      }
      if (type === 'google_secret_manager_secret' && literal(attrs.secret_id)) return String(attrs.secret_id);
      if ((attr === 'id' || attr === 'name') && literal(attrs.name)) return String(attrs.name);
    }
    return expr.trim();
  });
}

/** The `name` attribute when it is a literal, else the resource name. */
export function nameOf(r: TfResource): string {
  const name = str(r.attrs.name);
  return name && !name.includes('${') ? name : r.name;
}

/** Formats seconds the way a reviewer reads them: `12h`, `1h30m`, `45m`, `90s`. */
export function humanDuration(seconds: number | undefined): string | undefined {
  if (seconds === undefined) return undefined;
  if (seconds % 60 !== 0 || seconds < 60) return `${seconds}s`;
  const h = Math.floor(seconds / 3600);
  const m = (seconds % 3600) / 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}`;
}

/** Parses a Terraform/Go duration (`24h`, `1h30m`, `90m`, `3600s`) into seconds. */
export function durationSeconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1), 0);
}

/** `before -> after` when the shown values differ. */
export function arrow<T>(label: string, a: T, b: T, show: (v: T) => string = (v) => String(v ?? '-')): string | undefined {
  return show(a) === show(b) ? undefined : `${label} ${show(a)} -> ${show(b)}`;
}
