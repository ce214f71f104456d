/**
 * Reads `terraform show -json <planfile>` output for one stack: the real actions (create / update / replace /
 * delete / forget, deposed objects apart), worded like the synthesis diff. The rules in review/rules/plan-*.ts turn
 * them into findings.
 *
 * Field names follow Terraform's JSON plan format as hashicorp/terraform v1.11.4 writes it
 * (`internal/command/jsonplan/plan.go` and `resource.go`): top-level `format_version`, `terraform_version`,
 * `resource_changes` (omitempty: absent when nothing changes), `errored`, `complete`, `applyable`; per change
 * `address`, `previous_address` (a `moved` block's source; marshalResourceChange sets it when PrevRunAddr differs),
 * `mode`, `type`, `name`, `deposed` (the deposed object's key), `action_reason` (`replace_because_tainted`,
 * `replace_because_cannot_update`, `replace_by_request`, `replace_by_triggers`, `delete_because_no_resource_config`,
 * ...), and `change.{actions, before, after, after_unknown, replace_paths, importing}` (`importing.id`: an `import`
 * block adopts that object; the entry is then an import in addition to its actions, often `no-op`). `actions` is one of ["no-op"],
 * ["create"], ["read"], ["update"], ["delete","create"], ["create","delete"], ["delete"], ["forget"],
 * ["create","forget"] (`actionString`). Values unknown until apply are absent from `after` and `true` at the same
 * path of `after_unknown`. Pure.
 */
import { describeResource } from './describe';
import { AttributeChange, attributeChangeOf, Leaf, leafChanges, leafText } from './attributes';
import { z } from 'zod';
import { capText, collectStrings, maskSensitive, REDACTED, Redactor } from '../util/redact';
import { canonical, isObj, KNOWN_AFTER_APPLY } from './values';
import { jsonPath, jsonPathStep } from '../util/json-path';
import { REHEARSAL_OUTPUT } from '../jobs/names';
import { stripControls } from '../util/inert';

export type PlanAction = 'create' | 'update' | 'replace' | 'delete' | 'read' | 'no-op' | 'forget';

export { KNOWN_AFTER_APPLY } from './values';

export interface PlannedChange {
  readonly address: string;
  readonly type: string;
  readonly name: string;
  readonly action: PlanAction;
  /** For replace: Terraform's order (`delete-first` leaves a gap; `create-first` needs room for both). */
  readonly replaceOrder?: 'delete-first' | 'create-first';
  /** Terraform's `action_reason`. @default - none */
  readonly reason?: string;
  /** The deposed object's key: this change is about a leftover of a failed create_before_destroy. */
  readonly deposed?: string;
  /** An `import` block adopts an existing object with this ID (Terraform's `change.importing.id`). @default - no import */
  readonly importing?: string;
  /** A `moved` block moves the object from this address (Terraform's `previous_address`). @default - no move */
  readonly previousAddress?: string;
  /** Attribute paths that force the replacement (`placement_policy[0].tpu_topology`). */
  readonly replacePaths: readonly string[];
  readonly summary: readonly string[];
  readonly attributes: readonly AttributeChange[];
  readonly before?: unknown;
  /** `after` with every value unknown until apply set to KNOWN_AFTER_APPLY. */
  readonly after?: unknown;
}

export interface PlanReview {
  readonly stack: string;
  readonly file: string;
  readonly terraformVersion?: string;
  /** Terraform stopped planning part way (`errored: true`): the actions are incomplete. */
  readonly errored: boolean;
  readonly changes: readonly PlannedChange[];
  /** Per action; `import` and `move` count entries with `importing` / `previous_address` whatever their action. */
  readonly counts: Readonly<Record<PlanAction | 'deposed' | 'import' | 'move', number>>;
  /** Managed-resource addresses of the plan that the stack does not synthesize (checked only when given). */
  readonly foreign: readonly string[];
  /** The synthesized stack whose addresses the plan matches best, when that is another stack. */
  readonly likelyStack?: string;
  /**
   * Another synthesized stack whose resource names (`name`, a manifest's `metadata.name`) the plan's planned values
   * carry more of than this stack's: the plan of one pipeline given as another's (the same addresses). @default - none
   */
  readonly namesOf?: string;
  /** Where Terraform runs for this stack (`cdktf.out/stacks/<stack>`), for commands the report shows. */
  readonly workingDir: string;
  /** The plan's condition checks that did not pass (`check` blocks, pre/postconditions): failed, errored or unknown. */
  readonly checks: readonly PlanCheck[];
  /**
   * A pipeline stack's `rehearsal` output as planned (constructs/rehearsal-check.ts: `passed (...)`, `stale: ...`,
   * `none: ...`), or that it is known only after apply. @default - the plan has no such output
   */
  readonly rehearsal?: string;
  /**
   * Changes made outside Terraform since the last apply (`resource_drift`, hashicorp/terraform v1.11.4
   * internal/command/jsonplan/plan.go l.67, 222, 276: the same ResourceChange shape as resource_changes). @default - none
   */
  readonly drift?: readonly DriftEntry[];
  /** Root module outputs the plan changes (`output_changes`, actions other than no-op). @default - none */
  readonly outputs?: readonly OutputChange[];
  /**
   * Terraform's own verdict (plan.go l.76-78, 245-247): `applyable` false means nothing can be applied, `complete`
   * false that applying leaves changes for another plan (deferred or targeted). @default - true (older plans omit them)
   */
  readonly applyable?: boolean;
  readonly complete?: boolean;
  /** `deferred_changes` (plan.go l.69, 294-295, 586-640): changes Terraform could not plan yet, with the reason. @default - none */
  readonly deferred?: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
  /**
   * Provisioners in the plan's configuration (`configuration.*.resources[].provisioners`, jsonconfig/config.go): they run
   * commands at apply, whatever file of the stack folder declared them (an `*_override.tf.json` too). @default - none
   */
  readonly provisioners?: ReadonlyArray<{ readonly address: string; readonly type: string }>;
}

/** A change Terraform found made outside Terraform (a `resource_drift` entry). */
export interface DriftEntry {
  readonly address: string;
  readonly type: string;
  readonly action: PlanAction;
  /** The attribute paths that differ between the last applied state and the object as refreshed (values not shown). */
  readonly paths: readonly string[];
}

/** A root output's change. Values are shown cut and redacted; a sensitive one not at all. */
export interface OutputChange {
  readonly name: string;
  readonly action: PlanAction;
  readonly sensitive: boolean;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly afterUnknown: boolean;
}

/** A condition check of the plan that did not pass. */
export interface PlanCheck {
  /** `check.reservation`, `terraform_data.pool`. */
  readonly address: string;
  readonly status: 'fail' | 'error' | 'unknown';
  /** The error messages of the failing assertions. */
  readonly problems: readonly string[];
}

export interface PlanReviewOptions {
  /**
   * Receives the text of every value Terraform marks sensitive (resource values, outputs, `sensitive = true`
   * variables), so the report redacts it wherever it appears. @default - a redactor of this plan alone
   */
  readonly redactor?: Redactor;
  /** Managed-resource addresses each synthesized stack declares, to check the plan belongs to `stack`. @default - not checked */
  readonly stackAddresses?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Literal resource names (address -> `name` or manifest `metadata.name`) per synthesized stack. @default - not checked */
  readonly stackNames?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** @default `cdktf.out/stacks/<stack>` */
  readonly workingDir?: string;
}

/** A sensitivity marker (before_sensitive, after_sensitive, sensitive_values): `true`, or an object/array of markers. */
const Marks: z.ZodType<unknown> = z.lazy(() => MarksShapes);
// Built once: z.lazy calls its getter on every parse, and building the union there made one per value checked.
const MarksShapes = z.union([z.boolean(), z.array(Marks), z.record(Marks)]);
const Values = z.record(z.unknown()).nullable().optional();

/**
 * One `resource_changes` entry as Terraform v1.11.4 writes it (internal/command/jsonplan/resource.go
 * `ResourceChange`, `Change`): what the review reads must have this shape, or the plan is refused (exit 2) rather
 * than read as "no changes".
 */
export const RawChangeSchema = z
  .object({
    address: z.string().min(1),
    mode: z.enum(['managed', 'data']),
    type: z.string().min(1),
    name: z.string(),
    deposed: z.string().optional(),
    action_reason: z.string().optional(),
    previous_address: z.string().min(1).optional(),
    change: z
      .object({
        actions: z.array(z.enum(['no-op', 'create', 'read', 'update', 'delete', 'forget'])).min(1),
        before: Values,
        after: Values,
        after_unknown: Marks.optional(),
        before_sensitive: Marks.optional(),
        after_sensitive: Marks.optional(),
        replace_paths: z.array(z.array(z.union([z.string(), z.number()]))).optional(),
        // hashicorp/terraform v1.11.4 internal/command/jsonplan/plan.go `Importing`: `id`, and `unknown` when the ID was
        // not known at plan time (a deferred change)
        importing: z.object({ id: z.string().optional(), unknown: z.boolean().optional() }).passthrough().optional(),
      })
      .passthrough(),
  })
  .passthrough();
type RawChange = z.infer<typeof RawChangeSchema>;

/** The top level of `terraform show -json <planfile>` (internal/command/jsonplan/plan.go `Plan`), as much as is read. */
const PlanSchema = z
  .object({
    format_version: z.string(),
    terraform_version: z.string().optional(),
    resource_changes: z.array(z.unknown()).optional(),
    errored: z.boolean().optional(),
    applyable: z.boolean().optional(),
    complete: z.boolean().optional(),
    resource_drift: z.array(z.unknown()).optional(),
    deferred_changes: z.array(z.object({ reason: z.string(), resource_change: z.object({ address: z.string() }).passthrough() }).passthrough()).optional(),
    variables: z.record(z.object({ value: z.unknown() }).passthrough()).optional(),
    output_changes: z
      .record(z.object({ before: z.unknown(), after: z.unknown(), before_sensitive: Marks.optional(), after_sensitive: Marks.optional() }).passthrough())
      .optional(),
    checks: z.array(z.unknown()).optional(),
    configuration: z.unknown().optional(),
    prior_state: z.unknown().optional(),
    planned_values: z.unknown().optional(),
  })
  .passthrough();

type PlanJson = z.infer<typeof PlanSchema>;

/**
 * One `checks` entry (hashicorp/terraform v1.11.4 internal/command/jsonchecks/checks.go `checkResultStatic`, statuses
 * in status.go: pass, fail, error, unknown): the config object (`check` block, resource or output with conditions), its
 * status and its instances' `problems[].message` (the error_message of each failing assertion).
 */
const CheckSchema = z
  .object({
    address: z.object({ to_display: z.string().min(1) }).passthrough(),
    status: z.enum(['pass', 'fail', 'error', 'unknown']),
    instances: z
      .array(
        z
          .object({
            address: z.object({ to_display: z.string() }).passthrough().optional(),
            status: z.enum(['pass', 'fail', 'error', 'unknown']),
            problems: z.array(z.object({ message: z.string() }).passthrough()).optional(),
          })
          .passthrough(),
      )
      .optional(),
  })
  .passthrough();


/**
 * zod's issues in words that never quote the input: an invalid enum value is named by the values allowed, not by what
 * was given (zod's own message echoes it, and a hand-edited plan's value would reach stderr and the CI log raw); the
 * path's keys come from the input too, so they are cut and stripped of control characters.
 */
function issueText(i: z.ZodIssue): string {
  if (i.code === 'invalid_enum_value') return `Invalid enum value: must be one of ${i.options.map((o) => `'${String(o)}'`).join(', ')}`;
  if (i.code === 'invalid_type') return i.received === 'undefined' ? 'Required' : `Expected ${i.expected}, received ${i.received}`;
  if (i.code === 'invalid_literal') return 'not the value Terraform writes';
  return oneLine(i.message);
}

/** Text read from a plan, shown on one line: no control characters, no newline (a `::error::` line in a CI log), cut. */
export function oneLine(text: string, max = 120): string {
  return capText(stripControls(text).replace(/\s+/g, ' '), max);
}

function issuesText(error: z.ZodError, max = 4): string {
  const shown = error.issues.slice(0, max).map((i) => `${oneLine(jsonPath(i.path)) || '(the entry)'}: ${issueText(i)}`);
  return shown.join('; ') + (error.issues.length > max ? `; ${error.issues.length - max} more` : '');
}

/** Registers every sensitive value a plan holds outside resource_changes (variables, outputs, state values). */
function registerPlanSecrets(plan: PlanJson, redactor: Redactor): void {
  const found = (v: string) => redactor.add(v);
  // `variables` carries a sensitive variable's value in clear text; its sensitivity is in the configuration.
  const configVars = (plan.configuration as { root_module?: { variables?: Record<string, { sensitive?: boolean }> } } | undefined)?.root_module?.variables ?? {};
  for (const [name, v] of Object.entries(plan.variables ?? {})) if (configVars[name]?.sensitive === true) collectStrings(v.value, found);
  for (const o of Object.values(plan.output_changes ?? {})) {
    maskSensitive(o.before, o.before_sensitive, found);
    maskSensitive(o.after, o.after_sensitive, found);
  }
  // prior_state / planned_values: outputs with `sensitive`, resources with `sensitive_values` (jsonplan/values.go).
  const walkModule = (m: unknown): void => {
    if (!isObj(m)) return;
    for (const r of Array.isArray(m.resources) ? m.resources : []) if (isObj(r)) maskSensitive(r.values, pairedMarks(String(r.type), r.sensitive_values), found);
    for (const c of Array.isArray(m.child_modules) ? m.child_modules : []) walkModule(c);
  };
  for (const values of [plan.planned_values, isObj(plan.prior_state) ? plan.prior_state.values : undefined]) {
    if (!isObj(values)) continue;
    for (const o of Object.values(isObj(values.outputs) ? values.outputs : {})) if (isObj(o) && o.sensitive === true) collectStrings(o.value, found);
    walkModule(values.root_module);
  }
}

/** Maps a Terraform actions list to one action. */
export function planAction(actions: readonly string[]): PlanAction {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.includes('forget')) return 'forget';
  const [first] = actions;
  if (first === 'create' || first === 'update' || first === 'delete' || first === 'read') return first;
  return 'no-op';
}

function hasUnknownMark(marks: unknown): boolean {
  if (marks === true) return true;
  if (Array.isArray(marks)) return marks.some(hasUnknownMark);
  return isObj(marks) && Object.values(marks).some(hasUnknownMark);
}

/** `after` with the paths `after_unknown` marks `true` set to KNOWN_AFTER_APPLY. */
export function withUnknowns(after: unknown, unknown: unknown): unknown {
  if (unknown === true) return KNOWN_AFTER_APPLY;
  if (Array.isArray(unknown)) {
    const base = Array.isArray(after) ? [...after] : [];
    unknown.forEach((u, i) => {
      if (u !== false && u !== undefined) base[i] = withUnknowns(base[i], u);
    });
    return base;
  }
  // An unknown-shape with no `true` in it says nothing is unknown: a known value (a redacted one too) stays as it is.
  if (!hasUnknownMark(unknown)) return after;
  if (isObj(unknown)) {
    const base: Record<string, unknown> = isObj(after) ? { ...after } : {};
    for (const [k, u] of Object.entries(unknown)) {
      if (u !== false) base[k] = withUnknowns(base[k], u);
    }
    return base;
  }
  return after;
}

/** The value at a flattened path (`a.b[0].c`). */
function valueAt(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (Array.isArray(v)) v = v[Number(part)];
    else if (isObj(v)) v = v[part];
    else return undefined;
  }
  return v;
}

/**
 * Attribute changes of a plan change; a value known only after apply is one change at its own path
 * (`output: {"batch_size":40} -> (known after apply)`), not a removal of everything under it.
 */
export function planAttributeChanges(before: unknown, after: unknown): AttributeChange[] {
  const all = leafChanges(before, after);
  const unknownText = JSON.stringify(KNOWN_AFTER_APPLY);
  const isUnknown = (leaf: Leaf | undefined) => leaf !== undefined && (typeof leaf === 'string' ? leaf === KNOWN_AFTER_APPLY : leafText(leaf) === unknownText);
  const unknown = all.filter((c) => isUnknown(c.after)).map((c) => c.path);
  const under = (path: string, parent: string) => path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
  return all
    .filter((c) => !(c.after === undefined && unknown.some((u) => under(c.path, u))))
    .map((c): AttributeChange => {
      const change = attributeChangeOf(c.path, c.before, c.after);
      if (!unknown.includes(c.path) || c.before !== undefined) return change;
      const old = valueAt(before, c.path);
      if (old === undefined || old === null) return change;
      const text = JSON.stringify(old);
      return {
        path: c.path,
        before: text,
        get after() {
          return change.after;
        },
      };
    });
}

/** Paths Terraform marks sensitive (on either side) whose raw values differ: a change shown without its values. */
export function sensitiveChangePaths(before: unknown, after: unknown, beforeMarks: unknown, afterMarks: unknown, prefix = ''): string[] {
  if (beforeMarks === true || afterMarks === true) return canonical(before) === canonical(after) ? [] : [prefix || '(the value)'];
  const at = (v: unknown, k: string | number) => (Array.isArray(v) && typeof k === 'number' ? v[k] : isObj(v) ? v[String(k)] : undefined);
  const keys = (m: unknown): Array<string | number> => (Array.isArray(m) ? m.map((_, i) => i) : isObj(m) ? Object.keys(m) : []);
  return [...new Set([...keys(beforeMarks), ...keys(afterMarks)])].flatMap((k) =>
    sensitiveChangePaths(at(before, k), at(after, k), at(beforeMarks, k), at(afterMarks, k), jsonPathStep(prefix, k)),
  );
}

/** What a changed sensitive value shows as: that it changed, nothing of it. */
export const SENSITIVE_CHANGED = '(sensitive value, changed)';

/** `attributes` plus a line for every sensitive value that changed (masked on both sides, so the diff misses it). */
function withSensitiveChanges(attributes: AttributeChange[], raw: RawChange): AttributeChange[] {
  const c = raw.change;
  const shown = (p: string) => attributes.some((a) => a.path === p || a.path.startsWith(`${p}.`) || a.path.startsWith(`${p}[`));
  const extra = sensitiveChangePaths(c.before ?? undefined, c.after ?? undefined, c.before_sensitive, c.after_sensitive)
    .filter((p) => !shown(p))
    .map((p) => ({ path: p, before: JSON.stringify(REDACTED), after: JSON.stringify(SENSITIVE_CHANGED) }));
  return [...attributes, ...extra];
}

/**
 * `terraform_data` copies `input` into `output` (hashicorp/terraform v1.11.4 internal/builtin/providers/terraform/
 * resource_data.go: `output` is planned as the new `input`, applied from it), but the plan marks only `input`: a
 * genuine 1.11.4 plan of a changed sensitive input has `before.output` holding the old value in clear text with
 * `before_sensitive.output` `{}`. The input's marks are registered for the output too.
 */
export function pairedMarks(type: string, marks: unknown): unknown {
  if (type !== 'terraform_data' || !isObj(marks) || marks.input === undefined || marks.input === false) return marks;
  const out: Record<string, unknown> = { ...marks };
  Object.defineProperty(out, 'output', { value: mergeMarks(marks.output, marks.input), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Marks that mark what either of `a` and `b` marks. */
function mergeMarks(a: unknown, b: unknown): unknown {
  if (a === true || b === true) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    const x = Array.isArray(a) ? a : [];
    const y = Array.isArray(b) ? b : [];
    return Array.from({ length: Math.max(x.length, y.length) }, (_, i) => mergeMarks(x[i], y[i]));
  }
  if (isObj(a) || isObj(b)) {
    const x = isObj(a) ? a : {};
    const y = isObj(b) ? b : {};
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      Object.defineProperty(out, k, { value: mergeMarks(x[k], y[k]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return a ?? b;
}

/** The name a planned object carries: its `name`, or a Kubernetes manifest's `metadata.name`. */
export function identityName(values: unknown): string | undefined {
  if (!isObj(values)) return undefined;
  const manifest = isObj(values.manifest) && isObj(values.manifest.metadata) ? values.manifest.metadata.name : undefined;
  const name = typeof manifest === 'string' ? manifest : values.name;
  return typeof name === 'string' && name !== REDACTED && name !== KNOWN_AFTER_APPLY ? name : undefined;
}

/** Another stack whose names the plan's planned objects match more often than `stack`'s (see PlanReview.namesOf). */
function nameMatch(stack: string, entries: readonly RawChange[], names: ReadonlyMap<string, ReadonlyMap<string, string>>): string | undefined {
  const planned = entries.flatMap((e) => {
    const name = e.mode === 'managed' ? identityName(e.change.after) : undefined;
    return name === undefined ? [] : [[e.address, name] as const];
  });
  const score = (s: string) => planned.filter(([a, n]) => names.get(s)?.get(a) === n).length;
  const mine = score(stack);
  const best = [...names.keys()].filter((s) => s !== stack).map((s) => [s, score(s)] as const).sort((x, y) => y[1] - x[1])[0];
  return best && best[1] > mine ? best[0] : undefined;
}

/** What an `import` or `moved` block does to an entry, in words. */
function stateChangeLines(address: string, importing: string | undefined, previousAddress: string | undefined): string[] {
  return [
    ...(importing !== undefined ? [`imports the existing object ${importing} into ${address}: Terraform manages it from now on (a later destroy deletes it)`] : []),
    ...(previousAddress !== undefined ? [`moves ${previousAddress} to ${address} in state (the object itself is not touched)`] : []),
  ];
}

/** A resource address without its instance key (`a.b[0]`, `a.b["x"]` -> `a.b`). */
export function baseAddress(address: string): string {
  return address.replace(/\[[^\]]*\]$/, '');
}

/** Why `input` is not a Terraform JSON plan of format 1.x (the checks before any part of it is read), or undefined. */
function notAPlan(file: string, input: unknown): string | undefined {
  if (!isObj(input) || typeof input.format_version !== 'string') {
    const got = Array.isArray(input) ? 'a list' : isObj(input) ? 'an object without format_version' : input === null ? 'null' : `a ${typeof input}`;
    return `${file}: not a Terraform JSON plan (got ${got}, no format_version); produce it with \`terraform show -json <planfile>\``;
  }
  // `terraform show -json` of a STATE has `values` and no plan parts; a plan always has `planned_values`
  // (hashicorp/terraform v1.11.4 internal/command/jsonplan/plan.go marshals it for every plan, even one without changes).
  if ('values' in input && input.planned_values === undefined && input.resource_changes === undefined) {
    return `${file}: this is Terraform state (\`terraform show -json\` without a plan file), not a plan: produce the plan with \`terraform plan -out=<planfile>\` and \`terraform show -json <planfile>\``;
  }
  if (input.planned_values !== undefined && !isObj(input.planned_values)) {
    return `${file}: planned_values must be an object, got ${input.planned_values === null ? 'null' : Array.isArray(input.planned_values) ? 'a list' : typeof input.planned_values}: not a plan Terraform writes`;
  }
  if (input.planned_values === undefined && input.resource_changes === undefined) {
    return `${file}: not a Terraform JSON plan (neither resource_changes nor planned_values): the review cannot tell what it does; produce it with \`terraform show -json <planfile>\``;
  }
  if (input.resource_changes !== undefined && !Array.isArray(input.resource_changes)) {
    return `${file}: resource_changes must be a list, got ${input.resource_changes === null ? 'null' : typeof input.resource_changes}`;
  }
  // Format 1.x only (jsonplan/plan.go FormatVersion: "1.2" in v1.11.4; a major change is one "that requires changes to
  // a consuming parser"): a format this review does not know is refused, not read as if it were 1.x.
  if (!/^1\.\d+$/.test(input.format_version)) {
    return `${file}: format_version '${capText(input.format_version, 40)}' is not 1.x: this review reads Terraform's JSON plan format 1.x (Terraform 1.x writes 1.0-1.2)`;
  }
  const top = PlanSchema.safeParse(input);
  return top.success ? undefined : `${file}: not a plan this review can read: ${issuesText(top.error)}`;
}

const ACTIONS: ReadonlySet<unknown> = new Set(['no-op', 'create', 'read', 'update', 'delete', 'forget']);
const optionalString = (v: unknown, min = 0) => v === undefined || (typeof v === 'string' && v.length >= min);
const isMarks = (m: unknown): boolean => typeof m === 'boolean' || (Array.isArray(m) ? m.every(isMarks) : isObj(m) && Object.values(m).every(isMarks));
const optionalMarks = (m: unknown) => m === undefined || isMarks(m);
const isPathStep = (p: unknown) => typeof p === 'string' || (typeof p === 'number' && !Number.isNaN(p));

/**
 * A quick check that implies RawChangeSchema accepts `entry` (each test is as strict as the schema's, or stricter): a
 * 50 MB plan's 4,000 entries pass here without a zod parse each. An entry it does not pass goes to the schema, which
 * decides, and whose issues name the field.
 */
export function plainTerraformChange(entry: unknown): boolean {
  if (!isObj(entry) || !isObj(entry.change)) return false;
  const c = entry.change;
  return (
    typeof entry.address === 'string' && entry.address.length >= 1 && (entry.mode === 'managed' || entry.mode === 'data') &&
    typeof entry.type === 'string' && entry.type.length >= 1 && typeof entry.name === 'string' &&
    optionalString(entry.deposed) && optionalString(entry.action_reason) && optionalString(entry.previous_address, 1) &&
    Array.isArray(c.actions) && c.actions.length >= 1 && c.actions.every((a) => ACTIONS.has(a)) &&
    [c.before, c.after].every((v) => v === undefined || v === null || isObj(v)) &&
    optionalMarks(c.after_unknown) && optionalMarks(c.before_sensitive) && optionalMarks(c.after_sensitive) &&
    (c.replace_paths === undefined || (Array.isArray(c.replace_paths) && c.replace_paths.every((p) => Array.isArray(p) && p.every(isPathStep)))) &&
    (c.importing === undefined || (isObj(c.importing) && optionalString(c.importing.id) && (c.importing.unknown === undefined || typeof c.importing.unknown === 'boolean')))
  );
}

/** Every `resource_changes` entry, each of the shape Terraform writes (else an error naming the entry and the field). */
function planEntries(file: string, plan: PlanJson): RawChange[] {
  return (plan.resource_changes ?? []).map((entry, i) => {
    // The entry itself, not zod's copy: zod leaves out keys named `__proto__` (its objects and records skip them), and a
    // sensitivity mark under that key must mask the value under it.
    if (plainTerraformChange(entry)) return entry as RawChange;
    const parsed = RawChangeSchema.safeParse(entry);
    if (parsed.success) return entry as RawChange;
    const address = isObj(entry) && typeof entry.address === 'string' ? ` (${capText(entry.address, 120)})` : '';
    throw new Error(
      `${file}: resource_changes[${i}]${address} is not a change Terraform writes: ${issuesText(parsed.error)}; ` +
        'the review cannot tell what this plan does (regenerate it with `terraform show -json <planfile>`)',
    );
  });
}

/** The plan's condition checks that did not pass. */
function planChecks(file: string, plan: PlanJson): PlanCheck[] {
  return (plan.checks ?? []).flatMap((entry, i): PlanCheck[] => {
    const parsed = CheckSchema.safeParse(entry);
    if (!parsed.success) throw new Error(`${file}: checks[${i}] is not a check result Terraform writes: ${issuesText(parsed.error)}`);
    const c = parsed.data;
    if (c.status === 'pass') return [];
    const problems = (c.instances ?? []).flatMap((x) => (x.problems ?? []).map((p) => p.message));
    return [{ address: c.address.to_display, status: c.status, problems: [...new Set(problems)] }];
  });
}

/**
 * Terraform plans a data source as read (or no-op; a data source gone from the configuration just leaves the state):
 * an entry that says delete or create is not from Terraform, and skipping it as "data" would hide what it claims.
 */
function refuseDataWrites(file: string, entries: readonly RawChange[]): void {
  entries.forEach((raw, i) => {
    if (raw.mode === 'data' && raw.change.actions.some((a) => a !== 'read' && a !== 'no-op')) {
      throw new Error(`${file}: resource_changes[${i}] (${capText(raw.address, 120)}) is a data source with actions [${raw.change.actions.join(', ')}]: Terraform only reads data sources; the review cannot tell what this plan does`);
    }
  });
}

type Counts = Record<PlanAction | 'deposed' | 'import' | 'move', number>;

/** An entry's import ID and former address, when an `import` or `moved` block changes it. */
function stateChangeOf(raw: RawChange): { importing?: string; previousAddress?: string } {
  const importing = raw.change.importing ? (raw.change.importing.id ?? '(an ID known only during apply)') : undefined;
  const previousAddress = raw.previous_address !== undefined && raw.previous_address !== raw.address ? raw.previous_address : undefined;
  return { importing, previousAddress };
}

/** Counts one managed entry (deposed objects apart; a create+forget counts as a create too, imports and moves on top). */
function countEntry(counts: Counts, raw: RawChange, action: PlanAction): void {
  const { importing, previousAddress } = stateChangeOf(raw);
  if (raw.deposed) counts.deposed += 1;
  else counts[action] += 1;
  if (raw.change.actions.includes('create') && raw.change.actions.includes('forget')) counts.create += 1;
  if (importing !== undefined) counts.import += 1;
  if (previousAddress !== undefined) counts.move += 1;
}

/** The describer's lines for one change; a value of another shape than its type has is an error naming the change. */
function changeSummary(file: string, raw: RawChange, action: PlanAction, before: unknown, after: unknown): string[] {
  const { importing, previousAddress } = stateChangeOf(raw);
  try {
    return raw.deposed
      ? [`deposed object ${raw.deposed} of ${raw.address} (left by a create-before-destroy replacement that did not finish) is deleted`]
      : [...stateChangeLines(raw.address, importing, previousAddress), ...(action === 'no-op' ? [] : describeResource(raw.type, raw.name, before, after))];
  } catch (error) {
    throw new Error(`${file}: ${raw.address}: its values do not have the shape of a ${raw.type} (${(error as Error).message}); the review cannot tell what this change does`);
  }
}

/**
 * One managed entry as a PlannedChange, or undefined when it changes nothing (no-op or read without an import or a
 * move). Its sensitive values are masked and registered first, for unchanged resources too: their text must not show
 * up unredacted elsewhere in the report.
 */
function plannedChange(file: string, raw: RawChange, action: PlanAction, redactor: Redactor): PlannedChange | undefined {
  const found = (v: string) => redactor.add(v);
  // Both sides are masked with the marks of either: a value marked on one side only (a variable newly declared
  // sensitive, or no longer) is masked on both, so an unchanged one is no change and a changed one reads as changed
  // (withSensitiveChanges), its clear side never shown. A whole-object mark (`true`) keeps the object's shape.
  const marks = mergeMarks(
    pairedMarks(raw.type, wholeMarks(raw.change.before, raw.change.before_sensitive)),
    pairedMarks(raw.type, wholeMarks(raw.change.after, raw.change.after_sensitive)),
  );
  const beforeMasked = maskSensitive(raw.change.before ?? undefined, marks, found);
  const afterMasked = maskSensitive(raw.change.after ?? undefined, marks, found);
  const { importing, previousAddress } = stateChangeOf(raw);
  // An import or a move is a change even when Terraform's action is no-op: state adopts or re-addresses an object.
  if ((action === 'no-op' || action === 'read') && importing === undefined && previousAddress === undefined) return undefined;
  const actions = raw.change.actions;
  const before = action === 'create' ? undefined : beforeMasked;
  const gone = action === 'delete' || (action === 'forget' && !actions.includes('create'));
  const after = gone ? undefined : withUnknowns(afterMasked, raw.change.after_unknown);
  return {
    address: raw.address,
    type: raw.type,
    name: raw.name,
    action,
    replaceOrder: action === 'replace' ? (actions[0] === 'delete' ? 'delete-first' : 'create-first') : undefined,
    reason: raw.action_reason,
    deposed: raw.deposed,
    ...(importing !== undefined ? { importing } : {}),
    ...(previousAddress !== undefined ? { previousAddress } : {}),
    replacePaths: (raw.change.replace_paths ?? []).map((p) => jsonPath(p)),
    summary: changeSummary(file, raw, action, before, after),
    attributes: action === 'update' || action === 'replace' ? withSensitiveChanges(planAttributeChanges(before, after), raw) : [],
    before,
    after,
  };
}

/** The changes of the managed entries, the counts, and the addresses the plan manages outside modules. */
function plannedChanges(file: string, entries: readonly RawChange[], redactor: Redactor): { changes: PlannedChange[]; counts: Counts; seen: Set<string> } {
  const counts: Counts = { create: 0, update: 0, replace: 0, delete: 0, read: 0, 'no-op': 0, forget: 0, deposed: 0, import: 0, move: 0 };
  const changes: PlannedChange[] = [];
  const seen = new Set<string>();
  for (const raw of entries) {
    if (raw.mode === 'data') continue;
    const action = planAction(raw.change.actions);
    if (!raw.address.startsWith('module.')) seen.add(baseAddress(raw.address));
    countEntry(counts, raw, action);
    const change = plannedChange(file, raw, action, redactor);
    if (change) changes.push(change);
  }
  return { changes, counts, seen };
}

/** Addresses the plan manages that `stack` does not declare (deletes of removed resources are expected), and the stack they fit best. */
function foreignAddresses(
  stack: string,
  seen: ReadonlySet<string>,
  changes: readonly PlannedChange[],
  stackAddresses: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): { foreign: string[]; likelyStack?: string } {
  const mine = stackAddresses?.get(stack);
  if (!stackAddresses || !mine) return { foreign: [] };
  const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => baseAddress(c.address)));
  const foreign = [...seen].filter((a) => !mine.has(a) && !deleted.has(a));
  if (!foreign.length) return { foreign };
  const score = (set: ReadonlySet<string>) => [...seen].filter((a) => set.has(a)).length;
  const best = [...stackAddresses.entries()].filter(([s]) => s !== stack).sort((x, y) => score(y[1]) - score(x[1]))[0];
  return { foreign, likelyStack: best && score(best[1]) > score(mine) ? best[0] : undefined };
}

/**
 * Reviews one stack's plan JSON. Throws naming the file (and the entry) when it is not a Terraform plan or an entry
 * does not have the shape Terraform writes: what cannot be read is never "no changes". Values Terraform marks
 * sensitive are replaced by REDACTED before anything reads them, and their text goes to `options.redactor`.
 */
export function reviewPlan(stack: string, file: string, input: unknown, options: PlanReviewOptions = {}): PlanReview {
  const refused = notAPlan(file, input);
  if (refused !== undefined) throw new Error(refused);
  const plan = input as PlanJson; // not zod's copy, which drops `__proto__` keys
  const redactor = options.redactor ?? new Redactor();
  registerPlanSecrets(plan, redactor);
  const entries = planEntries(file, plan);
  const checks = planChecks(file, plan);
  refuseDataWrites(file, entries);
  const { changes, counts, seen } = plannedChanges(file, entries, redactor);
  const { foreign, likelyStack } = foreignAddresses(stack, seen, changes, options.stackAddresses);
  const namesOf = options.stackNames ? nameMatch(stack, entries, options.stackNames) : undefined;
  return {
    stack,
    file,
    ...(namesOf ? { namesOf } : {}),
    terraformVersion: plan.terraform_version,
    errored: plan.errored === true,
    changes,
    counts,
    foreign,
    likelyStack,
    workingDir: options.workingDir ?? `cdktf.out/stacks/${stack}`,
    checks,
    ...plannedRehearsal(plan),
    ...planVerdict(file, plan, redactor),
  };
}

/** Drift, output changes, Terraform's applyable/complete/deferred verdict and the configuration's provisioners. */
function planVerdict(file: string, plan: PlanJson, redactor: Redactor): Pick<PlanReview, 'drift' | 'outputs' | 'applyable' | 'complete' | 'deferred' | 'provisioners'> {
  const drift = (plan.resource_drift ?? []).map((entry, i): DriftEntry => {
    if (!plainTerraformChange(entry)) {
      const parsed = RawChangeSchema.safeParse(entry);
      if (!parsed.success) throw new Error(`${file}: resource_drift[${i}] is not a change Terraform writes: ${issuesText(parsed.error)}`);
    }
    const raw = entry as RawChange;
    const found = (v: string) => redactor.add(v);
    const before = maskSensitive(raw.change.before ?? undefined, wholeMarks(raw.change.before, raw.change.before_sensitive), found);
    const after = maskSensitive(raw.change.after ?? undefined, wholeMarks(raw.change.after, raw.change.after_sensitive), found);
    return { address: raw.address, type: raw.type, action: planAction(raw.change.actions), paths: leafChanges(before, after).map((c) => c.path) };
  });
  const outputs = Object.entries(plan.output_changes ?? {}).flatMap(([name, o]): OutputChange[] => {
    const actions = Array.isArray(o.actions) ? o.actions.map(String) : [];
    const action = planAction(actions);
    if (action === 'no-op' || action === 'read') return [];
    const sensitive = o.before_sensitive === true || o.after_sensitive === true || hasUnknownMark(o.before_sensitive) || hasUnknownMark(o.after_sensitive);
    return [{ name, action, sensitive, before: sensitive ? REDACTED : o.before, after: sensitive ? REDACTED : o.after, afterUnknown: o.after_unknown === true }];
  });
  const deferred = (plan.deferred_changes ?? []).map((d) => ({ address: d.resource_change.address, reason: d.reason }));
  return {
    ...(drift.length ? { drift } : {}),
    ...(outputs.length ? { outputs } : {}),
    ...(plan.applyable !== undefined ? { applyable: plan.applyable } : {}),
    ...(plan.complete !== undefined ? { complete: plan.complete } : {}),
    ...(deferred.length ? { deferred } : {}),
    ...provisionersOf(plan.configuration),
  };
}

/** Every resource of the configuration (root and module calls) that declares a provisioner. */
function provisionersOf(configuration: unknown): Pick<PlanReview, 'provisioners'> {
  const out: Array<{ address: string; type: string }> = [];
  const walk = (module: unknown, prefix: string, depth: number): void => {
    if (!isObj(module) || depth > 32) return;
    for (const r of Array.isArray(module.resources) ? module.resources : []) {
      if (!isObj(r) || !Array.isArray(r.provisioners)) continue;
      for (const p of r.provisioners) out.push({ address: `${prefix}${String(r.address)}`, type: isObj(p) ? String(p.type) : '?' });
    }
    for (const [name, call] of Object.entries(isObj(module.module_calls) ? module.module_calls : {})) {
      if (isObj(call)) walk(call.module, `${prefix}module.${name}.`, depth + 1);
    }
  };
  walk(isObj(configuration) ? configuration.root_module : undefined, '', 0);
  return out.length ? { provisioners: out } : {};
}

/**
 * Marks for a value: `true` over a whole object (a resource whose every attribute is sensitive, or a hand-written plan)
 * becomes `true` on each of its keys, so the object keeps its shape (the describers read its keys) and every value
 * in it is masked.
 */
export function wholeMarks(value: unknown, marks: unknown): unknown {
  if (marks !== true || !isObj(value)) return marks;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) Object.defineProperty(out, k, { value: true, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The `rehearsal` output's planned value (jobs/rehearsal.ts REHEARSAL_OUTPUT): `planned_values.outputs`, else
 * `output_changes.<name>.after` (hashicorp/terraform v1.11.4: an output not wholly known has no value in
 * planned_values, internal/command/jsonplan/values.go:73-89 `marshalPlannedOutputs`, and `after_unknown: true` in
 * output_changes, plan.go:695-718).
 */
function plannedRehearsal(plan: z.infer<typeof PlanSchema>): { rehearsal?: string } {
  const planned = isObj(plan.planned_values) && isObj(plan.planned_values.outputs) ? plan.planned_values.outputs[REHEARSAL_OUTPUT] : undefined;
  if (isObj(planned) && typeof planned.value === 'string') return { rehearsal: planned.value };
  const change = plan.output_changes?.[REHEARSAL_OUTPUT];
  if (change && typeof change.after === 'string') return { rehearsal: change.after };
  if (change && change.after_unknown === true) return { rehearsal: 'known only after apply (the proofs could not be listed at plan time)' };
  return {};
}
