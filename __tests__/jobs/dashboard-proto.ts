/**
 * A strict validator of proto3 JSON against the Monitoring API's dashboard protos, derived from the protos themselves:
 * google.monitoring.dashboard.v1 at googleapis/googleapis f8291d2b89f0017ab078a4c7378069bae5686f6f (copied, with the
 * google/api and google/type files they import, under __tests__/fixtures/monitoring-dashboard-v1/), parsed by
 * protobufjs. Rules (protobuf "ProtoJSON format", https://protobuf.dev/programming-guides/json/): field names in
 * lowerCamelCase (the JSON name), enums by name, int64 as a number or a decimal string, google.protobuf.Duration as
 * `"<seconds>s"`; at most one field of a oneof; and, from the protos' annotations, every
 * `(google.api.field_behavior) = REQUIRED` field present. An unknown field is an error (the API refuses it:
 * "Invalid JSON payload received. Unknown name").
 */
import * as path from 'path';
import * as protobuf from 'protobufjs';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'monitoring-dashboard-v1');
const PROTOBUFJS = path.dirname(require.resolve('protobufjs/package.json'));

let root: protobuf.Root | undefined;

/** The parsed dashboard protos (once per process). */
export function dashboardProtos(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? path.join(PROTOBUFJS, target) : path.join(FIXTURES, target));
  r.loadSync('google/monitoring/dashboard/v1/dashboard.proto');
  r.resolveAll();
  return (root = r);
}

const INTEGER = /^-?\d+$/;

function scalarProblem(type: string, v: unknown): string | undefined {
  switch (type) {
    case 'string':
      return typeof v === 'string' ? undefined : 'not a string';
    case 'bool':
      return typeof v === 'boolean' ? undefined : 'not a boolean';
    case 'double':
    case 'float':
      return typeof v === 'number' ? undefined : 'not a number';
    case 'int32':
    case 'uint32':
    case 'sint32':
      return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? undefined : 'not an int32';
    case 'int64':
    case 'uint64':
    case 'sint64':
      return (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && INTEGER.test(v)) ? undefined : 'not an int64';
    default:
      return undefined;
  }
}

function valueProblems(field: protobuf.Field, v: unknown, at: string): string[] {
  const t = field.resolvedType;
  if (t instanceof protobuf.Enum) return typeof v === 'string' && v in t.values ? [] : [`${at}: '${String(v)}' is not one of ${Object.keys(t.values).join(', ')}`];
  if (t instanceof protobuf.Type) {
    if (t.fullName === '.google.protobuf.Duration') return typeof v === 'string' && /^-?\d+(\.\d{1,9})?s$/.test(v) ? [] : [`${at}: '${String(v)}' is not a Duration ("<seconds>s")`];
    if (t.fullName === '.google.protobuf.Empty') return v && typeof v === 'object' && Object.keys(v).length === 0 ? [] : [`${at}: not {}`];
    return messageProblems(t, v, at);
  }
  const p = scalarProblem(field.type, v);
  return p ? [`${at}: ${p} (${field.type})`] : [];
}

/** Every way `value` is not a valid proto3 JSON `type` (empty when it is). */
export function messageProblems(type: protobuf.Type, value: unknown, at = type.name): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object (${type.name})`];
  const obj = value as Record<string, unknown>;
  const out: string[] = [];
  for (const [key, v] of Object.entries(obj)) {
    const field = type.fields[key];
    if (!field) {
      out.push(`${at}.${key}: no such field in ${type.fullName.slice(1)}`);
      continue;
    }
    if (field instanceof protobuf.MapField) {
      if (!v || typeof v !== 'object' || Array.isArray(v)) out.push(`${at}.${key}: not a map`);
      else for (const [k, mv] of Object.entries(v)) out.push(...valueProblems(field, mv, `${at}.${key}[${k}]`));
    } else if (field.repeated) {
      if (!Array.isArray(v)) out.push(`${at}.${key}: not a list`);
      else v.forEach((item, i) => out.push(...valueProblems(field, item, `${at}.${key}[${i}]`)));
    } else out.push(...valueProblems(field, v, `${at}.${key}`));
  }
  for (const oneof of type.oneofsArray) {
    const set = oneof.fieldsArray.filter((f) => f.name in obj);
    if (set.length > 1) out.push(`${at}: ${set.map((f) => f.name).join(' and ')} are one oneof (${oneof.name})`);
  }
  for (const field of type.fieldsArray) {
    if (field.options?.['(google.api.field_behavior)'] === 'REQUIRED' && !(field.name in obj)) out.push(`${at}.${field.name}: required`);
  }
  return out;
}

/** Every way `dashboard` is not a valid google.monitoring.dashboard.v1.Dashboard. */
export function dashboardProblems(dashboard: unknown): string[] {
  return messageProblems(dashboardProtos().lookupType('google.monitoring.dashboard.v1.Dashboard'), dashboard, 'Dashboard');
}
