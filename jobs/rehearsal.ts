/**
 * A rehearsal: the same pipeline made small enough for one host, so the image x model x method combination is proven
 * in minutes before a slice is spent (`npm run deploy -- rehearse-<pipeline>`). A pure transformation of a recipe and
 * its options into another recipe and options that jobs/pipeline.ts `buildPipeline` builds, and the existing pipeline
 * stack synthesizes unchanged as the stack `rehearse-<pipeline>`. Pure; no cdktf.
 *
 * What stays: the images, the Hugging Face repository and revision, the dataset, template, processor and reward files,
 * every command line and environment. What changes, and only this:
 * - the model is cut to REHEARSAL_LAYERS decoder layers with MaxText's own config override: `override_model_config=true
 *   base_num_decoder_layers=N` on every MaxText call (AI-Hypercomputer/maxtext maxtext-v0.2.4
 *   src/maxtext/configs/base.yml:24 `override_model_config`; src/maxtext/configs/pyconfig.py:479-486: with it a CLI key
 *   replaces the model YAML's, without it `validate_no_keys_overridden_twice` (pyconfig.py:128) raises;
 *   src/maxtext/configs/types.py:3399 `num_decoder_layers = 2**layer_scale * base_num_decoder_layers`). The conversion
 *   reads only what the cut model needs: to_maxtext builds the MaxText tree from the cut config and keeps only mapping
 *   keys present in it (to_maxtext.py:1016-1031, checkpoint_conversion/utils/utils.py:79
 *   `validate_and_filter_param_map_keys`), and its lazy loader reads only those tensors; with `scan_layers=true` the
 *   stacked mapping lists every HF layer (to_maxtext.py:434), so a rehearsal converts, trains and exports unscanned;
 * - to_huggingface rewrites the exported HF config with the cut dimensions (`--override_model_architecture`,
 *   to_huggingface.py:45-48), so vLLM loads the cut export in the eval step; the RL sampler gets the same cut
 *   (`maxtext_config` of `vllm_additional_config`, or `num_hidden_layers` in `vllm_hf_overrides`);
 * - REHEARSAL_STEPS training steps (checkpointed: jobs/maxtext.ts checkpointPeriod), the eval step on
 *   REHEARSAL_EVAL_SAMPLES samples of its real tasks with no gate, short timeouts (REHEARSAL_TIMEOUTS);
 * - training on the smallest single-host pool of the pipeline's TPU generation that infra has (Pathways included where
 *   the pipeline uses it; conversions stay on the CPU pool).
 * What it cannot show: REHEARSAL_CANNOT_SHOW (docs/pipelines.md "Rehearse before a slice").
 */
import { Spend, spendOf, stepBudget } from './budget';
import { RehearsalFacts, rehearsalRecordPath, VerdictStepInput, VerdictWriter, verdictWriter } from './rehearsal-record';

export type { RehearsalFacts } from './rehearsal-record';
import { rowOf } from './methods';
import type { PipelineOptions } from './pipeline-options';
import type { Platform, TpuPoolGroup } from './platform';
import type { JsonValue, MaxTextArgs, Recipe } from './recipes/types';
import { cutModelSize, modelSize } from './models';
import { sha256Of, specKey } from './spec-key';
import { generationOf, sliceShapeName, TpuSlice } from './tpu';
import { singleHostSlices } from './vllm';

/** Stack name prefix of a rehearsal: `rehearse-rl-qwen3`. */
export const REHEARSE_STACK_PREFIX = 'rehearse-';
/** The rehearsal stack of a pipeline. */
export function rehearsalName(pipeline: string): string {
  return `${REHEARSE_STACK_PREFIX}${pipeline}`;
}

/**
 * Prefix of a rehearsal's JobSet names: `rh-rl-qwen3-r1-train`. Short because a Pathways JobSet's coordinator label
 * repeats its name twice within 63 characters (jobs/names.ts); the stack, labels and record are `rehearse-<name>`.
 */
export const REHEARSAL_JOBSET_PREFIX = 'rh-';

/**
 * Decoder layers of the cut model: 6 covers one whole attention cycle of the Gemma 3/4 models (five sliding-window
 * layers then one global one: maxtext-v0.2.4 src/maxtext/models/gemma3.py:37-43 GEMMA3_ATTENTION_PATTERN,
 * models/gemma4.py:42-49 GEMMA4_ATTENTION_PATTERN, taken per layer as `layer_id % 6`) and more than one MoE layer;
 * small enough that every model of the table fits one v6e-8 host.
 */
export const REHEARSAL_LAYERS = 6;
/**
 * Training steps of a rehearsal (RL: batches; SFT: steps): the fewest that jobs/maxtext.ts checkpointPeriod checkpoints
 * at most every quarter of (every step), so a rehearsal writes and exports a real checkpoint.
 */
export const REHEARSAL_STEPS = 4;
/** Examples per eval task. */
export const REHEARSAL_EVAL_SAMPLES = 8;
/** One attempt per step, minutes: the budget `npm run bench` checks against REHEARSAL_TARGETS. */
export const REHEARSAL_TIMEOUTS = { 'to-maxtext': 15, train: 12, 'to-hf': 10, eval: 13 } as const;
/** What a rehearsal must stay under (issue 36): wall time of every step's budget, chip-hours on v6e. */
export const REHEARSAL_TARGETS = { wallMinutes: 60, chipHours: 4 } as const;
/** What a passing rehearsal does not prove (docs/pipelines.md; the fit check of the real pipeline still runs). */
export const REHEARSAL_CANNOT_SHOW = [
  'HBM at full size (the cut model is a few layers; the full pipeline keeps its own HBM fit check)',
  'collectives across more than one host (the rehearsal runs on one host)',
  'throughput and step time at full size',
  'scanned layers, where the pipeline scans them (a rehearsal converts, trains and exports unscanned)',
] as const;

/**
 * The rehearsal key: a hash of what a rehearsal proves, the same for a pipeline and its rehearsal: every image as the
 * pipeline names it (`tag@sha256:...` where post-training.lock.json pins it, else the tag: imagesPinnedBy; a tag pushed again hashes the same), the model (key and HF
 * repository), the method, the revision, the dataset and every file the pods read.
 */
export function rehearsalKey(recipe: Recipe, images: readonly string[]): string {
  return specKey({
    images: [...images].sort(),
    model: recipe.model.name,
    hfRepo: recipe.model.hfRepo,
    revision: recipe.model.hfRevision ?? null,
    method: recipe.train.kind,
    dataset: recipe.lineage?.dataset ?? null,
    files: (recipe.files ?? []).map((f) => ({ name: f.name, sha256: f.sha256 })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  });
}

/** The smallest single-host pool of `generation` in infra (fewest chips), or undefined. */
export function rehearsalGroup(platform: Platform, machineType: string): TpuPoolGroup | undefined {
  const generation = generationOf(machineType);
  return platform.tpuGroups
    .filter((g) => !g.slice.multiHost && g.slice.generation === generation)
    .sort((a, b) => a.slice.chips - b.slice.chips)[0];
}

/**
 * The sampler's model, cut. MaxText-on-vLLM passes `maxtext_config` to `pyconfig.initialize(argv, **overrides)`
 * (maxtext-v0.2.4 src/maxtext/integration/vllm/maxtext_vllm_adapter/adapter.py:82-83, 160), where kwargs override the
 * model YAML as the command line does; vLLM's own model reads the HF config, changed by `vllm_hf_overrides` (deduced:
 * not run).
 */
function cutSampler(args: MaxTextArgs, layers: number): MaxTextArgs {
  const extra = args['vllm_additional_config'] as { [k: string]: JsonValue } | undefined;
  const maxtext = extra?.['maxtext_config'] as { [k: string]: JsonValue } | undefined;
  if (maxtext) {
    return { ...args, vllm_additional_config: { ...extra, maxtext_config: { ...maxtext, override_model_config: true, base_num_decoder_layers: layers } } };
  }
  const hf = (args['vllm_hf_overrides'] as { [k: string]: JsonValue } | undefined) ?? {};
  return { ...args, vllm_hf_overrides: { ...hf, num_hidden_layers: layers } };
}

/** `keys` of `args` above 1 shrunk, in order, to the largest divisor of the devices left that is not larger. */
function shrinkMesh(args: MaxTextArgs, keys: readonly string[], devices: number): MaxTextArgs {
  const out: Record<string, JsonValue> = { ...args };
  let left = devices;
  for (const key of keys) {
    const v = args[key];
    if (typeof v !== 'number' || v <= 1) continue;
    let d = Math.min(v, left);
    while (left % d !== 0) d -= 1;
    out[key] = d;
    left /= d;
  }
  return out;
}

/**
 * RL on one host: `chips_per_vm` is the host's, and MaxText does not split trainer and sampler devices below two VMs
 * (jobs/validate.ts rlDevices: both use every chip), so the fractions go; the mesh shrinks to the host's chips.
 */
function oneHostRl(args: MaxTextArgs, chips: number): MaxTextArgs {
  const { trainer_devices_fraction: _t, sampler_devices_fraction: _s, ...rest } = args;
  void _t;
  void _s;
  const trainer = shrinkMesh({ ...rest, chips_per_vm: chips }, ['ici_tensor_parallelism', 'ici_expert_parallelism', 'ici_fsdp_parallelism'], chips);
  return shrinkMesh(trainer, ['rollout_tensor_parallelism', 'rollout_expert_parallelism', 'rollout_data_parallelism'], chips);
}

/** Training arguments of the rehearsal: the cut, a few steps, unscanned, its own run name. */
function rehearsalTrainArgs(recipe: Recipe, layers: number, chips: number): MaxTextArgs {
  const args = recipe.train.args;
  const runName = typeof args['run_name'] === 'string' && args['run_name'] !== '' ? args['run_name'] : recipe.train.kind;
  const base: MaxTextArgs = {
    ...args,
    run_name: `rehearse-${runName}`,
    override_model_config: true,
    base_num_decoder_layers: layers,
    scan_layers: false,
  };
  // A trainer without a rollout (SFT, DPO: jobs/methods/) shrinks its mesh and trains its steps key; RL also cuts the sampler.
  const row = rowOf(recipe);
  if (!row.rollout) return { ...shrinkMesh(base, ['ici_tensor_parallelism', 'ici_expert_parallelism', 'ici_fsdp_parallelism'], chips), [row.stepsKey]: REHEARSAL_STEPS };
  const test: MaxTextArgs = typeof args['num_test_batches'] === 'number' && args['num_test_batches'] > 0 ? { num_test_batches: 1 } : {};
  return cutSampler(oneHostRl({ ...base, num_batches: REHEARSAL_STEPS, ...test }, chips), layers);
}

/**
 * The rehearsal of `recipe` run with `options` on `platform`: a recipe named `rehearse-<name>` and its options. Throws
 * one Error listing every reason it cannot be rehearsed (no single host of the generation in infra, a model too large
 * for one host even when cut), each naming `source`.
 */
export function rehearsalOf(recipe: Recipe, options: PipelineOptions, platform: Platform, source: string): { recipe: Recipe; options: PipelineOptions } {
  const stack = rehearsalName(recipe.name);
  const machineType = options.machineType ?? recipe.slice.machineType;
  const group = rehearsalGroup(platform, machineType);
  const problems: string[] = [];
  if (!group) {
    problems.push(
      `${source}: ${stack} trains on one host of ${generationOf(machineType) ?? machineType}, and infra has no single-host pool of it: ` +
        'set SINGLE_HOST_RESERVATION=<reservation> or SINGLE_HOST_CAPACITY=spot|flex-start (the singleHost block) and run `npm run deploy -- infra` first',
    );
  }
  const size = modelSize(recipe.model.name);
  const layers = size ? Math.min(REHEARSAL_LAYERS, size.layers) : REHEARSAL_LAYERS;
  if (group && size) {
    const cut = cutModelSize(size, layers);
    // Weights, gradients and optimizer state in the worst case: 16 bytes per parameter (bf16 weights and gradients,
    // fp32 master and two moments) must fit a host's usable HBM.
    const needGib = (cut.params * 16) / 2 ** 30;
    const fits = (slice: TpuSlice) => needGib <= slice.usableHbmGibPerChip * slice.chips;
    if (!fits(group.slice)) {
      const generation = group.slice.generation;
      const larger = singleHostSlices(generation).find(fits);
      const what = `${recipe.model.name} cut to ${layers} layers still holds ${(cut.params / 1e9).toFixed(1)}B parameters (${needGib.toFixed(0)} GiB of weights, gradients and optimizer state)`;
      problems.push(
        larger
          ? `${source}: ${stack}: ${what}, more than infra's single host ${sliceShapeName(group.slice)} (${(group.slice.usableHbmGibPerChip * group.slice.chips).toFixed(0)} GiB usable HBM): ` +
              `it needs a single-host ${larger.acceleratorType} pool (${larger.machineType} ${larger.topology})`
          : `${source}: ${stack}: ${what}, more than any single ${generation} host holds (the largest, ${singleHostSlices(generation).map((x) => x.acceleratorType).pop()}, ` +
              `${(Math.max(...singleHostSlices(generation).map((x) => x.usableHbmGibPerChip * x.chips))).toFixed(0)} GiB usable HBM): a rehearsal needs a model whose embedding and a few layers fit one host`,
      );
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const g = group!;
  const unscanned = { scan_layers: false, override_model_config: true, base_num_decoder_layers: layers };
  const rehearsed: Recipe = {
    ...recipe,
    name: stack,
    description: `rehearsal of ${recipe.name}: ${recipe.model.name} cut to ${layers} layers, ${REHEARSAL_STEPS} steps, one ${sliceShapeName(g.slice)} host`,
    slice: { machineType: g.slice.machineType, topology: g.slice.topology },
    timeoutMinutes: { 'to-maxtext': REHEARSAL_TIMEOUTS['to-maxtext'], train: REHEARSAL_TIMEOUTS.train, 'to-hf': REHEARSAL_TIMEOUTS['to-hf'] },
    toMaxText: { ...recipe.toMaxText, args: { ...recipe.toMaxText.args, ...unscanned }, reuseExisting: false },
    train: { ...recipe.train, args: rehearsalTrainArgs(recipe, layers, g.slice.chips) } as Recipe['train'],
    toHf: { ...recipe.toHf, args: { ...recipe.toHf.args, ...unscanned }, overrideModelArchitecture: true },
    ...(rowOf(recipe).rollout && recipe.tpuVmEnv ? { tpuVmEnv: g.slice.vms === 1 } : {}),
  };
  const o = options;
  const eval_ = o.eval?.enabled === false ? { enabled: false } : { ...(o.eval?.tasks ? { tasks: o.eval.tasks } : {}), samples: REHEARSAL_EVAL_SAMPLES, timeoutMinutes: REHEARSAL_TIMEOUTS.eval };
  return {
    recipe: rehearsed,
    options: {
      runId: o.runId,
      ...(o.runIdSource ? { runIdSource: o.runIdSource } : {}),
      ...(o.image ? { image: o.image, ...(o.imageSource ? { imageSource: o.imageSource } : {}) } : {}),
      ...(o.conversionOn ? { conversionOn: o.conversionOn } : {}),
      ...(o.queueMinutes !== undefined ? { queueMinutes: o.queueMinutes } : {}),
      ...(o.overrides ? { overrides: withoutRehearsalKeys(o.overrides) } : {}),
      // Restarts stay the pipeline's defaults: only a lost host restarts a step, its own error fails it at once.
      eval: eval_,
      configSource: source,
      jobSetPrefix: `${REHEARSAL_JOBSET_PREFIX}${recipe.name}`,
    },
  };
}


/**
 * A built rehearsal (named `rehearse-<pipeline>`; its JobSets `rh-<pipeline>-...`) with its facts and the verdict
 * writer its Workflow's exit handler runs (jobs/rehearsal-record.ts).
 */
export function asRehearsal<
  P extends {
    readonly name: string;
    readonly runId: string;
    readonly namespace: string;
    readonly image: string;
    readonly recipe: Recipe;
    readonly images: readonly string[];
    readonly steps: ReadonlyArray<VerdictStepInput>;
    readonly paths: { readonly hfExportDir: string };
    readonly eval?: { readonly image: string };
  },
>(
  built: P,
  pipeline: string,
  versions: RehearsalFacts['versions'],
  platform: Pick<Platform, 'verdictServiceAccountName' | 'localQueue' | 'cpuPool'>,
): P & { readonly rehearsal: RehearsalFacts; readonly verdictWriter: VerdictWriter } {
  const r = built.recipe;
  const layers = r.train.args['base_num_decoder_layers'];
  const rehearsal: RehearsalFacts = {
    of: pipeline,
    key: rehearsalKey(r, built.images),
    model: r.model.name,
    hfRepo: r.model.hfRepo,
    ...(r.model.hfRevision !== undefined ? { revision: r.model.hfRevision } : {}),
    method: r.train.kind,
    images: [...built.images],
    imagesPinnedBy: imagesPinnedBy(built.images),
    versions: { ...versions, ...(built.eval ? { vllm: built.eval.image } : {}) },
    hashes: inputHashes(r),
    layers: typeof layers === 'number' ? layers : REHEARSAL_LAYERS,
    steps: REHEARSAL_STEPS,
    cannotShow: [...REHEARSAL_CANNOT_SHOW],
    recordPath: rehearsalRecordPath(built.paths.hfExportDir),
  };
  const verdict = verdictWriter(built, rehearsal, `${REHEARSAL_JOBSET_PREFIX}${pipeline}`, built.runId, platform);
  return { ...built, rehearsal, verdictWriter: verdict };
}

/**
 * How the images are pinned: `tag` unless every one names a digest (`@sha256:`), which they do once
 * post-training.lock.json (jobs/lock.ts, `npm run lock`) holds each; by tag, a tag that moved since the rehearsal is
 * not detected.
 */
export function imagesPinnedBy(images: readonly string[]): 'tag' | 'digest' {
  return images.length > 0 && images.every((i) => i.includes('@sha256:')) ? 'digest' : 'tag';
}

/** The pipeline's overrides minus the keys the rehearsal sets itself (steps, layers, scan, run name). */
function withoutRehearsalKeys(overrides: Readonly<Record<string, string | number | boolean>>): Record<string, string | number | boolean> {
  const own = ['steps', 'num_batches', 'num_test_batches', 'scan_layers', 'run_name', 'override_model_config', 'base_num_decoder_layers'];
  return Object.fromEntries(Object.entries(overrides).filter(([k]) => !own.includes(k)));
}

/**
 * Budget of a built rehearsal from its steps' timeouts: wall minutes and TPU chip-hours of one attempt of every step
 * (what a rehearsal that passes, or fails at its first error, can spend), or with every restart a lost host allows
 * (`withRestarts`). The computation is jobs/budget.ts spendOf, the one the plan review's cost lines use.
 */
export function rehearsalBudget(
  steps: ReadonlyArray<{ timeoutMinutes: number; maxRestarts: number; tpu?: { slice: { chips: number }; slices: number } }>,
  withRestarts = false,
): Spend {
  return spendOf(steps.map(stepBudget), withRestarts);
}

/** sha256 of a recipe's files and dataset, for the rehearsal record. */
export function inputHashes(recipe: Recipe): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of recipe.files ?? []) out[f.path] = f.sha256;
  if (recipe.lineage?.dataset) out[`dataset:${recipe.lineage.dataset.hf}`] = sha256Of(recipe.lineage.dataset);
  return out;
}

/**
 * What the real deploy reads to know a passing rehearsal of exactly this combination exists (`requireRehearsal`):
 * the object the rehearsal's last step writes only when it succeeds (the eval step's `eval.json` next to the export,
 * else the export's `config.json`, which to_huggingface writes last), at a path that carries the rehearsal's run
 * identity (jobs/pipeline.ts runIdentity: a key of everything training computes, the image included), so another
 * image, model, revision or file is another path. `glob` lists every rehearsal export of the pipeline's run name: one
 * there but not `exact` is a stale rehearsal (another combination).
 */
export interface RehearsalProof {
  readonly pipeline: string;
  readonly key: string;
  readonly bucket: string;
  /** Object name (in the bucket) a passing rehearsal leaves. */
  readonly exact: string;
  /** GCS match_glob of any rehearsal's proof object of this pipeline. */
  readonly glob: string;
  /** The command that runs the rehearsal. */
  readonly command: string;
  /** What the key compares the images by (imagesPinnedBy): `digest` once the lock pins every image; by `tag`, a moved tag is not detected. */
  readonly imagesPinnedBy: 'tag' | 'digest';
}

/**
 * What a pipeline's plan checks about its rehearsal: the proof (every pipeline that can be rehearsed on this infra;
 * `required` with `requireRehearsal: true`: the plan fails without it), or why it cannot be rehearsed here.
 */
export type RehearsalCheckPlan = { readonly proof: RehearsalProof; readonly required: boolean } | { readonly unavailable: string };

export { REHEARSAL_OUTPUT } from './names';

/**
 * The `rehearsal` output's three answers for one proof. Images are compared as the pipeline names them: by digest
 * where the lock pins every one, else by tag, so a tag that moved since the rehearsal is not detected, and the texts
 * say which.
 */
export function rehearsalVerdictTexts(proof: Pick<RehearsalProof, 'pipeline' | 'key' | 'command' | 'imagesPinnedBy'>): { passed: string; stale: string; none: string } {
  const byTag = proof.imagesPinnedBy === 'tag';
  return {
    passed:
      `passed (key ${proof.key}): a rehearsal of ${proof.pipeline} passed for exactly this combination ` +
      (byTag ? '(the same image tags, model, method, revision, dataset and files; a tag moved since is not detected)' : '(the same image digests, model, method, revision, dataset and files)'),
    stale:
      `stale: a rehearsal of ${proof.pipeline} exists for another combination (another image ${byTag ? 'tag' : 'digest'}, model, revision, method or file), ` +
      `not for this one (key ${proof.key}); run \`${proof.command}\``,
    none: `none: no passing rehearsal of ${proof.pipeline} for this combination (key ${proof.key}); run \`${proof.command}\``,
  };
}

/**
 * The `rehearsal` output's answer from the names the proof's listing found: the Terraform expression
 * constructs/rehearsal-check.ts proofExpressions writes, in TypeScript (what the deploy says before the apply).
 */
export function rehearsalVerdictOf(proof: RehearsalProof, names: readonly string[]): string {
  const t = rehearsalVerdictTexts(proof);
  return names.includes(proof.exact) ? t.passed : names.length > 0 ? t.stale : t.none;
}

/** The `rehearsal` output of a pipeline that cannot be rehearsed on this infra. */
export function rehearsalUnavailableText(pipeline: string, why: string): string {
  return `none: ${pipeline} cannot be rehearsed on this infra: ${why}`;
}

/** The proof a built rehearsal leaves when it passes (see RehearsalProof). */
export function rehearsalProof(
  rehearsal: { readonly recipe: Recipe; readonly images: readonly string[]; readonly paths: { readonly hfExportDir: string }; readonly eval?: { readonly evalJson: string } },
  pipeline: string,
  bucket: string,
): RehearsalProof {
  const prefix = `gs://${bucket}/`;
  const full = rehearsal.eval ? rehearsal.eval.evalJson : `${rehearsal.paths.hfExportDir}config.json`;
  const exact = full.startsWith(prefix) ? full.slice(prefix.length) : full;
  // <model>/hf-trained/<run name>/<export key>/<file>: any run name of this rehearsal's prefix, any export key.
  const parts = exact.split('/');
  const runName = String(rehearsal.recipe.train.args['run_name'] ?? '');
  const runPrefix = runName.replace(/-[0-9a-f]{12}$/, '');
  const glob = [...parts.slice(0, -3), `${runPrefix}-*`, '*', parts[parts.length - 1]].join('/');
  return {
    pipeline,
    key: rehearsalKey(rehearsal.recipe, rehearsal.images),
    bucket,
    exact,
    glob,
    command: `npm run deploy -- ${rehearsalName(pipeline)}`,
    imagesPinnedBy: imagesPinnedBy(rehearsal.images),
  };
}
