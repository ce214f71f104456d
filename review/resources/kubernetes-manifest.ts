/**
 * `kubernetes_manifest`: JobSets (the pipeline steps: images, TPU chips, slice, model, timeouts, gs:// paths, the
 * MaxText arguments, the converted-checkpoint reuse check) and SecretProviderClasses (which secrets pods mount).
 */
import { TPU_RESOURCE, TPU_TOPOLOGY_LABEL } from '../../jobs/tpu';
import { arrow, block, durationSeconds, humanDuration, isObj, list, num, Obj, resolveRefs, str, TfResource } from '../values';
import type { ChangeContext, ExtractContext, ResourceDescriber } from './types';

/** The facts this describer adds to a stack's model and reads of a change (review/model.ts StackFacts). */
type Facts = { readonly jobsets: readonly JobSetStep[] };

export type GcsAccess = 'read' | 'write' | 'uses';

export interface GcsPathUse {
  readonly path: string;
  readonly access: GcsAccess;
  /** The flag or env var that carries it (`load_parameters_path`), when there is one. */
  readonly key?: string;
}

export type StepKind = 'conversion' | 'training' | 'export' | 'evaluation' | 'other';

export interface JobSetStep {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly namespace?: string;
  readonly kind: StepKind;
  readonly images: ReadonlyArray<{ image: string; container: string }>;
  readonly ttlSecondsAfterFinished?: unknown;
  readonly queueName?: string;
  /** TPU chips the JobSet requests in total (replicas x parallelism x per-pod `google.com/tpu`). */
  readonly tpuChips: number;
  /** Topology and chips per VM of the slice the TPU pods select (from nodeSelector and limits). */
  readonly tpuTopology?: string;
  readonly tpuChipsPerPod?: number;
  /** Node pools selected by name (`cloud.google.com/gke-nodepool`). */
  readonly nodePools: readonly string[];
  readonly model?: string;
  /** `timeouts.create` in seconds: how long Terraform waits, an upper bound of how long the step holds its slice. */
  readonly timeoutSeconds?: number;
  readonly timeoutText?: string;
  /**
   * How long one attempt may run: the longest of its Jobs' `activeDeadlineSeconds` (jobs/jobset.ts). @default - none
   * set: the review cannot say what one attempt spends
   */
  readonly attemptSeconds?: number;
  /** Restarts the JobSet's failure policy allows (`spec.failurePolicy.maxRestarts`; none set: 0). */
  readonly maxRestarts: number;
  readonly waits: boolean;
  /** Addresses this step's resource depends on. */
  readonly dependsOn: readonly string[];
  readonly gcs: readonly GcsPathUse[];
  /** MaxText `key=value` arguments and `--flag=value` flags of the step's commands, by key (`--` kept on flags). */
  readonly args: Readonly<Record<string, string>>;
  /**
   * The gs:// object whose existence makes the step exit without running (jobs/maxtext.ts `buildScript`
   * skipIfExists: a converted checkpoint is reused). Undefined when the step always runs.
   */
  readonly skipIfExists?: string;
}

/** A SecretProviderClass: which Secret Manager secrets pods of this stack can mount. */
export interface SecretMount {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly secrets: readonly string[];
}

/** Flags whose value is a path the step writes (MaxText `key=value` and CLI `--key`). */
const WRITE_KEY = /(output|save|dest|target|write|export|upload|scratch|gcs_location|run_dir|^out)/i;
/** Flags whose value is a path the step reads. */
const READ_KEY = /(load|input|source|src|from|read|dataset|data_?path|tokenizer|checkpoint|model_path|params)/i;
const GCS = /gs:\/\/[^\s"'`,;)]+/g;
/** The skip check buildScript writes: `gcsfs.GCSFileSystem().exists('<bucket>/<path>')`. */
const SKIP_CHECK = /GCSFileSystem\(\)\.exists\('([^']+)'\)/;

/** Collects `gs://` paths from a container's command, args and env, classified by the flag that carries them. */
export function gcsUses(texts: ReadonlyArray<{ text: string; key?: string }>): GcsPathUse[] {
  const out = new Map<string, GcsPathUse>();
  const classify = (key: string | undefined): GcsAccess =>
    key === undefined ? 'uses' : WRITE_KEY.test(key) ? 'write' : READ_KEY.test(key) ? 'read' : 'uses';
  for (const { text, key } of texts) {
    for (const match of text.matchAll(GCS)) {
      const at = match.index ?? 0;
      // `key=gs://`, `--key=gs://`, `--key gs://`, `--key "gs://`
      const before = text.slice(Math.max(0, at - 80), at);
      const flag = /(?:^|[\s"'])-{0,2}([A-Za-z][\w.-]*)(?:=|\s+)["']?$/.exec(before)?.[1];
      const path = match[0].replace(/[\\]+$/, '');
      const use = { path, access: classify(flag ?? key), key: flag ?? key };
      const id = `${use.access}:${use.path}`;
      if (!out.has(id)) out.set(id, use);
    }
  }
  return [...out.values()];
}

/** `key=value` and `--flag=value` words of shell commands (quotes kept as written). */
export function commandArgs(texts: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of texts) {
    for (const m of text.matchAll(/(?:^|\s)((?:--)?[A-Za-z_][\w.]*)=('(?:[^']|'\\'')*'|"[^"]*"|[^\s\\]+)/g)) {
      out[m[1]!] = m[2]!;
    }
  }
  return out;
}

function podSpecs(manifest: Obj): Array<{ replicas: number; parallelism: number; spec: Obj; job: string; deadline?: number }> {
  const spec = block(manifest.spec) ?? {};
  return list(spec.replicatedJobs)
    .filter(isObj)
    .map((rj) => {
      const jobSpec = block(block(rj.template)?.spec) ?? {};
      const podSpec = block(block(jobSpec.template)?.spec) ?? {};
      return { job: String(rj.name ?? ''), replicas: num(rj.replicas) ?? 1, parallelism: num(jobSpec.parallelism) ?? 1, spec: podSpec, deadline: num(jobSpec.activeDeadlineSeconds) };
    });
}

/** The attempt deadline (longest Job activeDeadlineSeconds) and the restarts of a JobSet manifest. */
function attemptOf(manifest: Obj): { attemptSeconds?: number; maxRestarts: number } {
  const deadlines = podSpecs(manifest).map((p) => p.deadline).filter((d): d is number => d !== undefined);
  const restarts = num(block(block(manifest.spec)?.failurePolicy)?.maxRestarts) ?? 0;
  return { ...(deadlines.length > 0 ? { attemptSeconds: Math.max(...deadlines) } : {}), maxRestarts: restarts };
}

function containersOf(spec: Obj): Obj[] {
  return [...list(spec.initContainers), ...list(spec.containers)].filter(isObj);
}

/** Step kind: the pipeline's step label, else the step name's suffix, else the MaxText module it runs. */
export function stepKind(name: string, text: string, stepLabel?: string): StepKind {
  const label = `${stepLabel ?? ''} ${name}`.toLowerCase();
  if (/(^|[\s-])(to-hf|to-huggingface|export)\b/.test(label)) return 'export';
  // The eval step after the export (jobs/eval.ts): before the training check, its pipeline name may say `sft`.
  if (/(^|\s)eval\b/.test(label) || /-eval$/.test(name)) return 'evaluation';
  if (/(^|[\s-])(to-maxtext|convert)\b/.test(label)) return 'conversion';
  if (/(^|[\s-])(train|sft|grpo)\b/.test(label)) return 'training';
  if (/\bto_huggingface\b/.test(text)) return 'export';
  if (/\bto_maxtext\b/.test(text)) return 'conversion';
  if (/\btrain_(rl|sft)\b|\btrain\.py\b/.test(text)) return 'training';
  return 'other';
}

function jobSet(r: TfResource, { stack, json }: ExtractContext): JobSetStep | undefined {
  const manifest = block(r.attrs.manifest);
  if (!manifest || manifest.kind !== 'JobSet') return undefined;
  const metadata = block(manifest.metadata) ?? {};
  const labels = isObj(metadata.labels) ? metadata.labels : {};
  const spec = block(manifest.spec) ?? {};
  const images: Array<{ image: string; container: string }> = [];
  const texts: Array<{ text: string; key?: string }> = [];
  let tpuChips = 0;
  let tpuTopology: string | undefined;
  let tpuChipsPerPod: number | undefined;
  const nodePools = new Set<string>();
  for (const pod of podSpecs(manifest)) {
    const selector = isObj(pod.spec.nodeSelector) ? pod.spec.nodeSelector : {};
    let podTpu = 0;
    for (const c of containersOf(pod.spec)) {
      if (typeof c.image === 'string') images.push({ image: c.image, container: `${pod.job}/${String(c.name ?? '')}` });
      for (const part of [...list(c.command), ...list(c.args)]) texts.push({ text: String(part) });
      for (const env of list(c.env).filter(isObj)) {
        if (typeof env.value === 'string') texts.push({ text: env.value, key: String(env.name ?? '') });
      }
      const resources = block(c.resources) ?? {};
      const limits = block(resources.limits) ?? block(resources.requests) ?? {};
      podTpu += num(limits[TPU_RESOURCE]) ?? 0;
    }
    if (podTpu > 0) {
      tpuChips += pod.replicas * pod.parallelism * podTpu;
      tpuChipsPerPod = podTpu;
      tpuTopology = str(selector[TPU_TOPOLOGY_LABEL]) ?? tpuTopology;
    }
    const pool = str(selector['cloud.google.com/gke-nodepool']);
    if (pool) nodePools.add(pool);
  }
  const commandTexts = texts.filter((t) => t.key === undefined).map((t) => t.text);
  const allText = texts.map((t) => t.text).join(' ');
  const name = str(metadata.name) ?? r.name;
  const timeoutText = str(block(r.attrs.timeouts)?.create);
  const skip = SKIP_CHECK.exec(allText)?.[1];
  return {
    stack,
    address: r.address,
    name,
    namespace: str(metadata.namespace),
    kind: stepKind(name, allText, str(labels['tpu-post-training/step'])),
    images,
    ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished,
    queueName: str(labels['kueue.x-k8s.io/queue-name']),
    tpuChips,
    tpuTopology,
    tpuChipsPerPod,
    nodePools: [...nodePools],
    model: /\bmodel_name[=\s]+["']?([\w.-]+)/.exec(allText)?.[1],
    timeoutSeconds: durationSeconds(timeoutText),
    timeoutText: humanDuration(durationSeconds(timeoutText)) ?? timeoutText,
    ...attemptOf(manifest),
    waits: r.attrs.wait !== undefined,
    dependsOn: list(r.attrs.depends_on).map((d) => String(d).replace(/^\$\{|\}$/g, '')),
    gcs: gcsUses(texts).map((u) => ({ ...u, path: resolveRefs(u.path, json) })),
    args: commandArgs(commandTexts),
    skipIfExists: skip === undefined ? undefined : `gs://${skip}`,
  };
}

function secretMount(r: TfResource, { stack }: ExtractContext): SecretMount | undefined {
  const manifest = block(r.attrs.manifest);
  if (manifest?.kind !== 'SecretProviderClass') return undefined;
  return {
    stack,
    address: r.address,
    name: str(block(manifest.metadata)?.name) ?? r.name,
    secrets: [...new Set([...JSON.stringify(manifest).matchAll(/projects\/[^/"\s\\]+\/secrets\/[^/"\s\\]+/g)].map((m) => m[0]))],
  };
}

/** `key: old -> new` for every MaxText argument or flag that differs between two steps. */
export function argChanges(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => before[k] !== after[k]).map((k) => `${k}: ${before[k] ?? '(unset)'} -> ${after[k] ?? '(unset)'}`);
}

/**
 * What replacing a conversion step does with the converted checkpoint: reused when the new step's skip check
 * points at the checkpoint the old step wrote (same conversion arguments, same key), re-run otherwise.
 */
export function conversionOutcome(before: JobSetStep | undefined, after: JobSetStep): string | undefined {
  if (after.kind !== 'conversion') return undefined;
  const dir = (s: JobSetStep | undefined) => s?.args.base_output_directory;
  if (after.skipIfExists === undefined) return `re-runs conversion into ${dir(after) ?? '?'} (no reuse check)`;
  if (before && dir(before) !== undefined && dir(before) === dir(after)) {
    return `reuses the converted checkpoint at ${dir(after)} (same conversion arguments; the step exits at once when it is complete)`;
  }
  const changed = before ? argChanges(conversionArgs(before), conversionArgs(after)) : [];
  return `re-runs conversion into ${dir(after) ?? '?'}${changed.length ? ` (conversion arguments changed: ${changed.join('; ')})` : ''}`;
}

function conversionArgs(s: JobSetStep): Record<string, string> {
  const { base_output_directory: _dir, ...rest } = s.args;
  return rest;
}

/**
 * A pipeline Workflow that changed: its name carries the pipeline's spec hash (jobs/argo.ts workflowName), so a new
 * name replaces it and every step runs anew (a conversion may reuse its checkpoint); the same name with other content
 * is an in-place update the engine does not act on.
 */
function describeWorkflow({ b, a, verb, before, after }: ChangeContext<Facts>): string[] | undefined {
  const isWorkflow = (v: unknown) => block(isObj(v) ? v.manifest : undefined)?.kind === 'Workflow';
  if (!isWorkflow(before) && !isWorkflow(after)) return undefined;
  const nameOf = (v: unknown) => str(block(block(isObj(v) ? v.manifest : undefined)?.metadata)?.name);
  const steps = (a ?? b)?.jobsets ?? [];
  if (verb) return [`Workflow ${nameOf(after ?? before) ?? '?'} ${verb}: steps ${steps.map((j) => j.name).join(' -> ')}`];
  if (nameOf(before) === nameOf(after)) return [`Workflow ${nameOf(after)}: changed in place (the running engine keeps the spec it started with)`];
  return (a?.jobsets ?? []).map((j) => {
    const cost = j.tpuChips ? ` on ${j.tpuChips} chips${j.timeoutText ? ` (up to ${j.timeoutText})` : ''}` : '';
    const was = b?.jobsets.find((x) => x.name === j.name);
    const outcome = conversionOutcome(was, j);
    const changed = was && !outcome ? argChanges(was.args, j.args) : [];
    return `JobSet ${j.name} will be REPLACED (its spec or an earlier step changed): ${outcome ?? `re-runs ${j.kind}${cost}`}${changed.length ? ` (${changed.join('; ')})` : ''}`;
  });
}

function describe(change: ChangeContext<Facts>): string[] | undefined {
  const workflow = describeWorkflow(change);
  if (workflow) return workflow;
  const { b, a, verb, name, before, after } = change;
  const bj = b?.jobsets[0];
  const aj = a?.jobsets[0];
  if (bj || aj) {
    const j = (aj ?? bj)!;
    const slice = (x = j) => (x.tpuChips ? `${x.tpuChips} chips${x.tpuTopology ? ` (${x.tpuTopology})` : ''}` : 'CPU');
    if (verb) return [`JobSet ${j.name} (${j.kind}) ${verb}: ${slice()}, ${j.images.map((i) => i.image).join(', ')}`];
    // A JobSet on one side only: the manifest became another kind (or is unknown until apply).
    if (!bj || !aj) return [`JobSet ${j.name}: manifest ${bj ? 'JobSet' : '-'} -> ${aj ? 'JobSet' : '-'}`];
    const parts = [
      arrow('name', bj!.name, aj!.name),
      arrow('images', bj!.images.map((i) => i.image).join(','), aj!.images.map((i) => i.image).join(',')),
      arrow('slice', slice(bj!), slice(aj!)),
      arrow('model', bj!.model, aj!.model),
      arrow('timeout', bj!.timeoutText, aj!.timeoutText),
      arrow('ttlSecondsAfterFinished', bj!.ttlSecondsAfterFinished, aj!.ttlSecondsAfterFinished),
      ...argChanges(bj!.args, aj!.args),
    ].filter(Boolean);
    return [`JobSet ${j.name}: ${parts.length ? parts.join(', ') : 'command or spec changed'}`];
  }
  const m = block(isObj(after) ? after.manifest : isObj(before) ? before.manifest : undefined);
  if (!m || !verb) return undefined;
  return [`${String(m.kind ?? 'manifest')} ${String(block(m.metadata)?.name ?? name)} ${verb}`];
}

/**
 * The JobSet steps inside a pipeline Workflow (jobs/argo.ts): each create template's manifest (JSON text, Terraform
 * template escapes undone) read as a JobSet of its own at `<workflow address>#<step>`, each depending on the previous
 * step, with the step's window (its wait template's activeDeadlineSeconds) as its timeout.
 */
function workflowJobSets(r: TfResource, ctx: ExtractContext): JobSetStep[] {
  const manifest = block(r.attrs.manifest);
  if (!manifest || manifest.kind !== 'Workflow') return [];
  const templates = list(block(manifest.spec)?.templates).filter(isObj);
  // The steps are the templates the entry DAG runs: not an exit handler's (a rehearsal's verdict writer, jobs/rehearsal-record.ts).
  const entry = templates.find((t) => t.name === block(manifest.spec)?.entrypoint);
  const used = new Set(list(block(entry?.dag)?.tasks).filter(isObj).map((t) => String(t.template)));
  const steps: JobSetStep[] = [];
  for (const t of templates) {
    if (entry && !used.has(String(t.name))) continue;
    const resource = block(t.resource);
    if (resource?.action !== 'create' || typeof resource.manifest !== 'string') continue;
    let inner: unknown;
    try {
      inner = JSON.parse(resource.manifest.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{'));
    } catch {
      continue;
    }
    const wait = templates.find((x) => x.name === `${String(t.name)}-wait`);
    const window = num(wait?.activeDeadlineSeconds);
    const previous = steps[steps.length - 1];
    const step = jobSet(
      {
        ...r,
        address: `${r.address}#${String(t.name)}`,
        attrs: { manifest: inner, ...(window !== undefined ? { timeouts: { create: `${window}s` } } : {}), depends_on: previous ? [previous.address] : list(r.attrs.depends_on) },
      },
      ctx,
    );
    if (step) steps.push(step);
  }
  return steps;
}

export const kubernetesManifest: ResourceDescriber<Facts> = {
  types: ['kubernetes_manifest'],
  extract: (r, ctx) => {
    const steps = workflowJobSets(r, ctx);
    if (steps.length > 0) return { jobsets: steps };
    const j = jobSet(r, ctx);
    if (j) return { jobsets: [j] };
    const s = secretMount(r, ctx);
    return s ? { secretMounts: [s] } : {};
  },
  describe,
};
