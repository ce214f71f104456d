/**
 * MaxText command builders: `to_maxtext`, `train_rl`, `train_sft`, `to_huggingface`, the tutorials' source
 * patches as named options, and the bucket layout every step reads and writes. Pure; no cdktf.
 *
 * Module paths and the output layout follow MaxText 0.2.4 (../shared/reference/maxtext-post-training.md §0, §3):
 * to_maxtext writes `<dir>/0/items`; train_rl writes `<base>/<run_name>/checkpoints/actor/<step>/model_params`;
 * train_sft writes `<base>/<run_name>/checkpoints/<step>/model_params`; to_huggingface writes into its
 * `base_output_directory` itself (no run_name below it), so each run gets its own export directory here.
 *
 * The HF token never appears on a command line: every step exports HF_TOKEN from the mounted secret and MaxText
 * reads it from the environment (AI-Hypercomputer/maxtext maxtext-v0.2.4 src/maxtext/configs/pyconfig.py
 * `_resolve_or_infer_addl_config`: `hf_access_token` unset -> `os.environ.get("HF_TOKEN")`, and
 * `_initialize_pydantic` in the same file warns that `hf_access_token` on the command line "is deprecated and
 * insecure because it makes your token visible in 'ps'"). to_maxtext (`pyconfig.initialize`), to_huggingface
 * (`pyconfig.initialize_pydantic`), train_rl and train_sft all build their config through that function and pass
 * `config.hf_access_token` to the Hugging Face downloads (checkpoint, tokenizer, config).
 *
 * Scripts never contain `${` or `%{`: Terraform would read them as template syntax (the construct escapes them
 * anyway, see constructs/jobset-step.ts), and shell `$VAR` does the same job here.
 */
import { goodputArgs } from './goodput';
import { METHOD_TABLE, rolloutSettings, rowOf } from './methods';
import { modelRow } from './models';
import { HF_TOKEN_FILE } from './secrets';
import { specKey } from './spec-key';
import { JsonValue, Recipe, Scalar, SourcePatches } from './recipes/types';

/** A recipe's training step. */
type Train = Recipe['train'];

export const MODULES = {
  toMaxText: 'maxtext.checkpoint_conversion.to_maxtext',
  toHuggingFace: 'maxtext.checkpoint_conversion.to_huggingface',
  trainRl: METHOD_TABLE.rl.module,
  trainSft: METHOD_TABLE.sft.module,
  trainDpo: METHOD_TABLE.dpo.module,
} as const;

/** Where the image installs MaxText's sources (MAXTEXT_PKG_DIR=/deps/src/maxtext); the adafactor patch edits it. */
export const MAXTEXT_SRC = '/deps/src/maxtext';

/** A value rendered verbatim into the shell script (e.g. a reference to a variable set at run time). */
export interface ShellExpr {
  readonly shell: string;
}
/** The environment variable every step exports the token in (from the mounted secret file) and MaxText reads. */
export const HF_TOKEN_ENV = 'HF_TOKEN';

type ArgValue = JsonValue | ShellExpr;
/** One `python3 -m <module> key=value ... --flag=value` call. */
export interface Invocation {
  readonly module: string;
  readonly args: ReadonlyArray<readonly [string, ArgValue]>;
  /** argparse/absl flags rendered `--flag=value`. @default - none */
  readonly flags?: ReadonlyArray<readonly [string, Scalar | ShellExpr]>;
  /** Boolean absl flags rendered bare (`--override_model_architecture`). @default - none */
  readonly switches?: readonly string[];
}

/**
 * gs:// paths of one pipeline run (all end in `/`; derived here and nowhere else). What each step writes:
 * to-maxtext `maxtextDir` (shared by every run whose conversion is identical, see conversionKey), train
 * `trainRunDir`, to-hf `hfExportDir` (`.../hf-trained/<run_name>/<exportKey>/`).
 */
export interface PipelinePaths {
  /** to_maxtext `base_output_directory`: `gs://<bucket>/<model>/max-text-format/<conversionKey>/`. */
  readonly maxtextDir: string;
  /** The converted checkpoint training loads: `<maxtextDir>0/items/`. */
  readonly maxtextCheckpoint: string;
  /** Training `base_output_directory`: `gs://<bucket>/<model>/trained/`. */
  readonly trainOutputDir: string;
  /** Everything training writes for this run (checkpoints, metrics, tensorboard): `<trainOutputDir><run_name>/`. */
  readonly trainRunDir: string;
  /** Checkpoints of this run: `<trainRunDir>checkpoints/`. */
  readonly trainCheckpointDir: string;
  /** The last training checkpoint to_huggingface reads. */
  readonly trainedCheckpoint: string;
  /** to_huggingface output of this run: `gs://<bucket>/<model>/hf-trained/<run_name>/<exportKey>/`. */
  readonly hfExportDir: string;
  /** Pathways `--gcs_scratch_location`. @default - none (McJAX recipes) */
  readonly pathwaysScratch?: string;
}

/**
 * The step of the last checkpoint training writes (the method table row's `lastStep`: RL `num_batches x
 * rl.num_iterations x train_fraction x num_epoch`, RLConfig `train_steps`; SFT and DPO `steps`). Tunix force-saves the
 * final step on close.
 */
export function lastCheckpointStep(train: Train): number {
  return rowOf({ train }).lastStep(train.args);
}

/**
 * Checkpoints a run writes at least: a restart loses at most 1/MIN of the run. At most MAX, so the bucket holds a
 * bounded number of checkpoints per run even where MaxText passes no `max_to_keep` (train_sft: maxtext-v0.2.4
 * src/maxtext/trainers/post_train/sft/train_sft.py builds CheckpointManagerOptions from checkpoint_period and
 * async_checkpointing only). RL keeps CHECKPOINTS_TO_KEEP (train_rl.py: `max_to_keep=max_num_checkpoints_to_keep`;
 * rl.yml defaults checkpoint_period 50, max_num_checkpoints_to_keep 10; base.yml 10_000 and None).
 */
export const CHECKPOINTS_PER_RUN = { min: 4, max: 20 } as const;
/** Newest checkpoints an RL run keeps: the one a restart resumes from and the one before it. */
export const CHECKPOINTS_TO_KEEP = 2;

/**
 * `checkpoint_period` of a run of `total` steps: the largest divisor of `total` that is at most a quarter of it, so
 * the last step (the one the export reads) is a checkpoint and a restart loses at most a quarter of the run. Every
 * step for runs shorter than 4 steps. A problem when that makes more than CHECKPOINTS_PER_RUN.max checkpoints (a
 * step count with no divisor near a quarter, e.g. a prime).
 */
export function checkpointPeriod(total: number): { period: number } | { problem: string } {
  const period = largestQuarterDivisor(total);
  if (total / period > CHECKPOINTS_PER_RUN.max) {
    const fits: number[] = [];
    for (let n = total - 1; n >= 1 && fits.length < 1; n--) if (checkpointsOk(n)) fits.push(n);
    for (let n = total + 1; fits.length < 2; n++) if (checkpointsOk(n)) fits.push(n);
    return {
      problem:
        `${total} training steps have no divisor between ${Math.ceil(total / CHECKPOINTS_PER_RUN.max)} and ${Math.floor(total / CHECKPOINTS_PER_RUN.min)}: ` +
        `checkpointing every quarter of the run and on its last step would write ${total / period} checkpoints; ` +
        `use a step count such as ${fits.join(' or ')}`,
    };
  }
  return { period };
}
function largestQuarterDivisor(total: number): number {
  if (total <= CHECKPOINTS_PER_RUN.min) return 1;
  let period = Math.floor(total / CHECKPOINTS_PER_RUN.min);
  while (total % period !== 0) period -= 1;
  return period;
}
function checkpointsOk(total: number): boolean {
  return total / largestQuarterDivisor(total) <= CHECKPOINTS_PER_RUN.max;
}

/** The checkpoint arguments training passes explicitly (checkpointPeriod; RL also bounds what it keeps). */
export function checkpointArgs(train: Train): Array<readonly [string, Scalar]> {
  const r = checkpointPeriod(lastCheckpointStep(train));
  if ('problem' in r) throw new Error(r.problem);
  return [
    ['enable_checkpointing', true],
    ['checkpoint_period', r.period],
    ...(rowOf({ train }).keepsCheckpoints ? ([['max_num_checkpoints_to_keep', CHECKPOINTS_TO_KEEP]] as const) : []),
  ];
}

/**
 * Why a `run_name` is refused, or undefined: it names a directory under the bucket's output path
 * (`<base_output_directory><run_name>/checkpoints/`), so an empty one writes to the local disk (lost with the pod), and
 * `/` or `..` would climb into or across another run's directory.
 */
export function runNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'a non-empty name (it names the run\'s directory)';
  if (value.includes('/') || value.includes('..')) return "one directory name: no '/' and no '..'";
  if (!/^[A-Za-z0-9._-]+$/.test(value)) return 'letters, digits, dots, dashes or underscores only';
  return undefined;
}

/** The training `run_name` (required in practice: an empty one writes checkpoints to the local disk). */
export function runName(train: Train): string {
  const value = train.args['run_name'];
  return typeof value === 'string' ? value : train.kind;
}

/**
 * A short stable key of what a converted checkpoint is made from: the image (the MaxText version that writes it), the
 * model and the to_maxtext arguments and flags (not the token, the run id, or where the step runs). It names the
 * converted checkpoint's directory, so the to-maxtext step reuses an existing checkpoint (buildScript skipIfExists)
 * only when it was converted identically; changing one converts again into a new directory.
 */
export function conversionKey(recipe: Recipe): string {
  // The HF repository is in the key through `flags.hf_model_path` (passed whenever it is not the key's HF_IDS default);
  // a pinned revision joins it (an unpinned conversion takes the repository's head and says so, jobs/spec.ts).
  return specKey({
    image: recipe.image,
    model: recipe.model.name,
    args: recipe.toMaxText.args,
    flags: recipe.toMaxText.flags,
    hfRevision: recipe.model.hfRevision,
  });
}

/**
 * A short stable key of what training computes: the image, the model, the converted checkpoint it starts from
 * (conversionKey), every train argument (but `run_name`, which it names), env value and source patch, and the chips it
 * trains on (`trainChips`: SFT's global batch is `per_device_batch_size` x chips, and RL's meshes are cut from them, so
 * another chip count is another run; the same chips in another shape, e.g. 2 x v6e-16 for 1 x v6e-32, keep the key:
 * Orbax restores a checkpoint onto any mesh). Not the run id, the memory limit, or which pool. It ends
 * the MaxText run_name (`<run_name>-<trainKey>`), so an unchanged spec resumes its own checkpoints and a changed one
 * trains anew in its own `trained/` and `hf-trained/` directories. The checkpoint settings training derives
 * (checkpointArgs) follow from these inputs and are not hashed separately.
 */
export function trainKey(recipe: Recipe, trainChips: number): string {
  const t = recipe.train;
  const { run_name: _name, ...args } = t.args;
  return specKey({
    image: recipe.image,
    model: recipe.model.name,
    conversion: conversionKey(recipe),
    kind: t.kind,
    args,
    env: t.env,
    patches: rolloutSettings(t).patches,
    exportVllmHostIp: rolloutSettings(t).exportVllmHostIp,
    tpuVmEnv: recipe.tpuVmEnv,
    chips: trainChips,
    // A changed reward (or processor) file is another run, although its mount path is the same argument.
    files: recipe.files?.map((f) => ({ name: f.name, sha256: f.sha256 })),
  });
}

/**
 * A short stable key of how a trained run is exported: the image, the model, the to_huggingface arguments, the
 * export's model name and the architecture switch. It names the export's directory under the run's
 * (`hf-trained/<run_name>/<exportKey>/`), so an export with other settings (e.g. `weight_dtype`) of the same run writes
 * beside the earlier one, never over it.
 */
export function exportKey(recipe: Recipe): string {
  return specKey({
    image: recipe.image,
    model: recipe.model.name,
    args: recipe.toHf.args,
    modelName: recipe.toHf.modelName,
    overrideModelArchitecture: recipe.toHf.overrideModelArchitecture ?? false,
    lora: recipe.toHf.lora,
    // A merged LoRA export made before the adapters were re-rooted (LORA_REROOT) was the base model: the fixed
    // export lands in a directory of its own, never over it.
    ...(recipe.toHf.lora ? { loraMerge: LORA_MERGE_LAYOUT } : {}),
  });
}

/**
 * Derives every gs:// path of a pipeline run. `exportRun` names the export directory: the run's identity
 * (jobs/pipeline.ts runIdentity), which differs from the training run_name only when an earlier run is resumed.
 */
export function pipelinePaths(recipe: Recipe, bucket: string, pathwaysScratchPrefix: string, exportRun: string = runName(recipe.train)): PipelinePaths {
  const root = `gs://${bucket}/${recipe.model.name}`;
  const maxtextDir = `${root}/max-text-format/${conversionKey(recipe)}/`;
  const trainOutputDir = `${root}/trained/`;
  const run = runName(recipe.train);
  const trainRunDir = `${trainOutputDir}${run}/`;
  const trainCheckpointDir = `${trainRunDir}checkpoints/`;
  const actor = rowOf(recipe).checkpointSubdir;
  return {
    maxtextDir,
    maxtextCheckpoint: `${maxtextDir}0/items/`,
    trainOutputDir,
    trainRunDir,
    trainCheckpointDir,
    trainedCheckpoint: `${trainCheckpointDir}${actor}${lastCheckpointStep(recipe.train)}/model_params/`,
    // to_huggingface writes into base_output_directory itself (maxtext-v0.2.4
    // src/maxtext/checkpoint_conversion/to_huggingface.py main: `output_directory = config.base_output_directory`),
    // unlike training, which appends `<run_name>/checkpoints/` (src/maxtext/configs/types.py checkpoint_dir).
    hfExportDir: `${root}/hf-trained/${exportRun}/${exportKey(recipe)}/`,
    ...(recipe.runtime === 'pathways' ? { pathwaysScratch: `gs://${bucket}/${pathwaysScratchPrefix}` } : {}),
  };
}

/** Formats a number as the tutorials write it (`2e-5`, not `0.00002`). */
export function formatNumber(value: number): string {
  return value !== 0 && Math.abs(value) < 1e-3 ? value.toExponential() : String(value);
}

/** JSON with Python's `json.dumps` separators (`, ` and `: `), as the tutorials write dict values. */
export function pythonJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, JsonValue>).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

const SHELL_SAFE = /^[A-Za-z0-9_./:=@,+-]+$/;
/** Quotes a word for bash when it needs it (single quotes; `'` becomes `'\''`). */
export function shellQuote(word: string): string {
  return SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Renders one value for a MaxText `key=value` argument (already shell-quoted). */
export function renderValue(value: ArgValue): string {
  if (typeof value === 'object' && value !== null && 'shell' in value && Object.keys(value).length === 1) {
    return (value as ShellExpr).shell;
  }
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string') return shellQuote(value);
  return shellQuote(pythonJson(value as JsonValue));
}

/** `python3 -m module \` + one argument per line. */
export function renderInvocation(inv: Invocation): string {
  const words = [
    ...inv.args.map(([key, value]) => `${key}=${renderValue(value)}`),
    ...(inv.flags ?? []).map(([flag, value]) => `--${flag}=${renderValue(value)}`),
    ...(inv.switches ?? []).map((flag) => `--${flag}`),
  ];
  return [`python3 -m ${inv.module}`, ...words].join(' \\\n  ');
}

/** The adafactor patch (tutorials 000/001), failing the pod when MaxText's code no longer matches. */
export function adafactorPatch(): string {
  const file = `${MAXTEXT_SRC}/trainers/post_train/rl/utils_rl.py`;
  return (
    `python3 -c "import pathlib, re, sys; p = pathlib.Path('${file}'); ` +
    `s, n = re.subn('optax[.]adamw[(][^)]+[)]', 'optax.adafactor(learning_rate=learning_rate)', p.read_text()); ` +
    `sys.exit('adafactor patch: optax.adamw(...) not found in ' + str(p)) if n == 0 else p.write_text(s)"`
  );
}

/** The vLLM sampler reshard-chunk patch (tutorial 000), failing the pod when the pattern is gone. */
export function vllmReshardChunkPatch(size: number): string {
  return (
    `python3 -c "import pathlib, sys, tunix.generate.vllm_sampler as vs; p = pathlib.Path(vs.__file__); s = p.read_text(); ` +
    `t = s.replace('reshard_chunk_size: Optional[int] = None', 'reshard_chunk_size: Optional[int] = ${size}')` +
    `.replace('reshard_chunk_size=self.config.reshard_chunk_size', 'reshard_chunk_size=${size}'); ` +
    `sys.exit('vllm reshard_chunk_size patch: pattern not found in ' + str(p)) if t == s else p.write_text(t)"`
  );
}

/** Shell lines applying the enabled patches, in the tutorials' order. */
export function patchLines(patches: SourcePatches | undefined): string[] {
  const lines: string[] = [];
  if (patches?.vllmReshardChunkSize !== undefined) lines.push(vllmReshardChunkPatch(patches.vllmReshardChunkSize));
  if (patches?.adafactor) lines.push(adafactorPatch());
  return lines;
}

/**
 * What a failed conversion printed when the failure was a transient service error rather than its own: Hugging Face
 * (huggingface_hub raises requests' HTTPError, "429 Client Error: Too Many Requests", "503 Server Error") and Cloud
 * Storage (google.api_core exceptions TooManyRequests, ServiceUnavailable, InternalServerError, gcsfs HttpError), and
 * dropped connections. Extended POSIX regex (grep -E).
 */
export const TRANSIENT_ERROR_PATTERN =
  '429 Client Error|5[0-9][0-9] Server Error|TooManyRequests|ServiceUnavailable|InternalServerError|BadGateway|GatewayTimeout|' +
  'Connection reset by peer|RemoteDisconnected|ReadTimeout|ConnectTimeout';
/** How long a conversion waits before its one retry after a transient error, seconds. */
export const TRANSIENT_RETRY_DELAY_SECONDS = 60;

/**
 * Shell lines that run `command` (streaming its output to the log as usual) and, when it exits 1-127 and its output
 * matches TRANSIENT_ERROR_PATTERN, run it once more with `exec`; any other failure exits with the command's code, so
 * the pod failure policy still sees application errors (FailJobSet) and signals (restart) as before. SIGTERM is passed
 * on to the command (bash is PID 1 and would otherwise ignore it).
 */
export function retryOnceOnTransient(command: string, delaySeconds: number = TRANSIENT_RETRY_DELAY_SECONDS, onSuccess: readonly string[] = []): string[] {
  return [
    'attempt_log="$(mktemp)"',
    'exec 3> >(tee "$attempt_log"); tee_pid=$!',
    `${command} >&3 2>&3 &`,
    'child=$!',
    `trap 'kill -TERM "$child" 2>/dev/null' TERM`,
    'set +e',
    'wait "$child"; rc=$?',
    'while kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done',
    'set -e',
    'trap - TERM',
    'exec 3>&-',
    'while kill -0 "$tee_pid" 2>/dev/null; do sleep 0.1; done',
    `if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && grep -Eq '${TRANSIENT_ERROR_PATTERN}' "$attempt_log"; then`,
    `  echo "transient service error (exit $rc); retrying once in ${delaySeconds}s"`,
    `  sleep ${delaySeconds}`,
    `  exec ${command}`,
    'fi',
    ...successLines(onSuccess),
    'exit "$rc"',
  ];
}

/** `if [ "$rc" -eq 0 ]; then <lines>; fi`, or nothing. */
function successLines(lines: readonly string[]): string[] {
  return lines.length > 0 ? ['if [ "$rc" -eq 0 ]; then', ...lines.map((l) => `  ${l}`), 'fi'] : [];
}

/**
 * Runs `command` as a child (not `exec`), passing SIGTERM on, and exits with its code after `onSuccess` ran on success:
 * the same exit codes reach Kubernetes (a signal still ends in 128+n, an infrastructure exit code), as in
 * retryOnceOnTransient.
 */
export function runThen(command: string, onSuccess: readonly string[]): string[] {
  return [
    `${command} &`,
    'child=$!',
    `trap 'kill -TERM "$child" 2>/dev/null' TERM`,
    'set +e',
    'wait "$child"; rc=$?',
    'while kill -0 "$child" 2>/dev/null; do wait "$child"; rc=$?; done',
    'set -e',
    'trap - TERM',
    ...successLines(onSuccess),
    'exit "$rc"',
  ];
}

/** What a step's container script does around the MaxText call. */
export interface ScriptOptions {
  /** Exit 0 on every pod but completion index 0 (the tutorials' `[ "$JOB_COMPLETION_INDEX" != "0" ] ||`). @default false */
  readonly onlyIndexZero?: boolean;
  /** Extra shell lines run before the call (exports, patches). @default - none */
  readonly prelude?: readonly string[];
  /**
   * Exit 0 without running when this gs:// object already exists: Orbax's `commit_success.txt`, written on GCS
   * only once a checkpoint step is complete (a partial one from a preempted run does not count).
   * @default - always run
   */
  readonly skipIfExists?: string;
  /** Run the call once more after a transient service error (retryOnceOnTransient). @default false */
  readonly retryTransientOnce?: boolean;
  /**
   * Shell lines writing the step's run record (jobs/run-record.ts): `start` before the call (after the skip check),
   * `end` after it succeeded (not after a transient-error retry, which `exec`s). @default - no record
   */
  readonly record?: { readonly start: string; readonly end: string };
}

/**
 * The container script: `set -eu`, optional index-0 guard and skip check, the HF token read from the mounted
 * secret into $HF_TOKEN (every step: Hugging Face downloads read it from there, never from argv), the prelude,
 * then `exec` the MaxText call so its exit code reaches Kubernetes unchanged: the failure policy keys on that exit
 * code. (After `exec` python is PID 1; a SIGTERM it has no handler for is dropped by the kernel, and the kubelet's
 * SIGKILL after the grace period exits 137, an infrastructure exit code, so the JobSet restarts as intended.)
 */
export function buildScript(inv: Invocation, options: ScriptOptions = {}): string {
  const lines = ['set -eu'];
  if (options.onlyIndexZero) {
    lines.push('if [ "$JOB_COMPLETION_INDEX" != "0" ]; then echo "index $JOB_COMPLETION_INDEX: nothing to do"; exit 0; fi');
  }
  if (options.skipIfExists !== undefined) {
    const target = options.skipIfExists.replace(/^gs:\/\//, '');
    lines.push(
      `if python3 -c "import sys, gcsfs; sys.exit(0 if gcsfs.GCSFileSystem().exists('${target}') else 1)"; then ` +
        `echo "a complete converted checkpoint exists (${options.skipIfExists}); keeping it (delete the step directory to convert again)"; exit 0; fi`,
    );
  }
  // Assign then export, so a missing secret file fails the script (export would mask the failure).
  lines.push(`${HF_TOKEN_ENV}="$(cat ${HF_TOKEN_FILE})"`, `export ${HF_TOKEN_ENV}`);
  lines.push(...(options.prelude ?? []));
  if (options.record) lines.push(options.record.start);
  const end = options.record ? [options.record.end] : [];
  if (options.retryTransientOnce) lines.push(...retryOnceOnTransient(renderInvocation(inv), TRANSIENT_RETRY_DELAY_SECONDS, end));
  else if (options.record) lines.push(...runThen(renderInvocation(inv), end));
  else lines.push(`exec ${renderInvocation(inv)}`);
  return lines.join('\n');
}

/** Whether an argument value names a Hugging Face repository (`owner/name`), not a local or gs:// path. */
export function isHfRepoId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value);
}

/**
 * The repository training reads its tokenizer (and chat template) from: the recipe's `tokenizer_path` when it names one;
 * else, for RL, what RLConfig picks without it, `HF_IDS[model_name]` (maxtext-v0.2.4 configs/types.py line 4609-4613;
 * the table's first repository); else none (SFT keeps MaxText's own default).
 */
export function trainTokenizer(recipe: Recipe): string | undefined {
  const given = recipe.train.args['tokenizer_path'];
  if (isHfRepoId(given)) return given;
  if (given !== undefined || rowOf(recipe).configClass !== 'RLConfig') return undefined;
  const hfIds = modelRow(recipe.model.name)?.hfRepos[0];
  return isHfRepoId(hfIds) ? hfIds : undefined;
}

/** Everything a command builder needs from the pipeline. */
export interface CommandContext {
  readonly recipe: Recipe;
  readonly paths: PipelinePaths;
  /**
   * A directory holding the tokenizer files at the run's commit (jobs/hf-revision.ts), passed instead of the
   * repository name to training (`tokenizer_path`, where the recipe sets one) and the export (`--hf_model_path`), and
   * the conversion downloads at `"$HF_REVISION"` (resolved in its script). @default - the repository names, head
   */
  readonly atRevision?: { readonly tokenizerDir: string };
}

/** The variable a conversion script resolves the weights' commit into (jobs/hf-revision.ts). */
export const HF_REVISION_ENV = 'HF_REVISION';

/** `to_maxtext`: HF checkpoint -> `<maxtextDir>0/items`. */
export function toMaxTextInvocation({ recipe, paths, atRevision }: CommandContext): Invocation {
  const step = recipe.toMaxText;
  const flags: Array<readonly [string, Scalar | ShellExpr]> = [];
  if (step.flags.hf_model_path !== undefined) flags.push(['hf_model_path', step.flags.hf_model_path]);
  flags.push(['lazy_load_tensors', step.flags.lazy_load_tensors]);
  // to_maxtext's own `--revision` (maxtext-v0.2.4 to_maxtext.py argparse; passed to hf_hub_download / from_pretrained).
  // At the commit resolved once before any download (jobs/hf-revision.ts), pinned or not.
  if (atRevision) flags.push(['revision', { shell: `"$${HF_REVISION_ENV}"` }]);
  else if (recipe.model.hfRevision !== undefined) flags.push(['revision', recipe.model.hfRevision]);
  return {
    module: MODULES.toMaxText,
    args: [
      ['model_name', recipe.model.name],
      ['base_output_directory', paths.maxtextDir],
      ...Object.entries(step.args),
    ],
    flags,
  };
}

/** `train_rl` / `train_sft`: loads the converted checkpoint, writes under `<trainOutputDir><run_name>/`. */
export function trainInvocation({ recipe, paths, atRevision }: CommandContext): Invocation {
  // At a commit, the tokenizer is the downloaded directory, where the recipe names a repository or RLConfig would.
  const local = atRevision && trainTokenizer(recipe) !== undefined ? atRevision.tokenizerDir : undefined;
  const args: Array<readonly [string, ArgValue]> = Object.entries(recipe.train.args).map(([k, v]) =>
    k === 'tokenizer_path' && local !== undefined ? ([k, local] as const) : ([k, v] as const),
  );
  if (local !== undefined && !('tokenizer_path' in recipe.train.args)) args.push(['tokenizer_path', local]);
  return {
    module: rowOf(recipe).module,
    args: [
      ['model_name', recipe.model.name],
      ['base_output_directory', paths.trainOutputDir],
      ['load_parameters_path', paths.maxtextCheckpoint],
      ...args,
      ...checkpointArgs(recipe.train),
      ...goodputArgs(recipe.train.kind, recipe.train.args),
    ],
  };
}

/**
 * `to_huggingface`: the last training checkpoint -> `<hfExportDir>`. `--hf_model_path` is always the repo the model
 * was trained from: without it to_huggingface bundles the tokenizer of `HF_IDS[model_name]`
 * (maxtext-v0.2.4 src/maxtext/checkpoint_conversion/to_huggingface.py; src/maxtext/utils/globals.py), which is
 * Qwen3-30B-A3B-*Thinking*-2507 for `qwen3-30b-a3b` and the base Llama-3.1-8B for `llama3.1-8b`.
 */
export function toHfInvocation({ recipe, paths, atRevision }: CommandContext): Invocation {
  const step = recipe.toHf;
  // A LoRA run exports a merged model: to_huggingface's "Merged" mode (both `load_parameters_path`, the base, and
  // `lora.lora_restore_path`, the trained adapter) writes W + A·B·(alpha/rank) as a full Hugging Face model
  // (maxtext-v0.2.4 to_huggingface.py module docstring, _transform_weights_to_full_model). "Adapter" mode (the
  // restore path alone) would write PEFT files that neither the eval step nor the serve stack can run: the pinned
  // image serves LoRA only on its vLLM-PyTorch path (jobs/vllm.ts VLLM_IMAGES loraOnJaxPath).
  const source: Array<readonly [string, ArgValue]> = step.lora
    ? [
        ['load_parameters_path', paths.maxtextCheckpoint],
        // The adapters re-rooted where to_huggingface merges them (loraRerootLines, run first by the step's script).
        ['lora.lora_restore_path', LORA_REROOTED_DIR],
        ['lora.lora_rank', step.lora.rank],
        ['lora.lora_alpha', step.lora.alpha],
      ]
    : [['load_parameters_path', paths.trainedCheckpoint]];
  return {
    module: MODULES.toHuggingFace,
    args: [
      ['model_name', step.modelName ?? recipe.model.name],
      ...source,
      ['base_output_directory', paths.hfExportDir],
      ...Object.entries(step.args),
    ],
    // The tokenizer and chat template the export bundles: the run's tokenizer at its commit (to_huggingface.py line
    // 534-535 reads only the tokenizer/processor from hf_model_path).
    flags: [['hf_model_path', atRevision ? atRevision.tokenizerDir : recipe.model.hfRepo]],
    switches: step.overrideModelArchitecture ? ['override_model_architecture'] : [],
  };
}

/**
 * Where the to-hf step of a LoRA run writes the trained adapters re-rooted for the merge (loraRerootLines): the pod's
 * local disk (the adapters are rank x (in + out) per adapted matrix: megabytes).
 */
export const LORA_REROOTED_DIR = '/tmp/lora-params';
/** The layout the merge reads the adapters in, part of the export key (exportKey). */
export const LORA_MERGE_LAYOUT = 'params/params';

/**
 * Shell lines that copy the LoRA checkpoint training wrote (`from`) to `to` with its tree under `params/params`, so that
 * to_huggingface's "Merged" mode merges it. Why, read at maxtext-v0.2.4 (538fe7a3) and google/tunix c4ec573d and run on
 * CPU with MaxText 0.2.4 from PyPI (scripts/upstream-checks/lora_merge.py): Tunix saves a LoRA run's `model_params` as
 * `nnx.state(model, nnx.LoRAParam)` (tunix/sft/checkpoint_manager.py l.196-197; peft_trainer.py l.1021-1026
 * `save_only_lora_params=self._lora_enabled`), a tree rooted at `decoder`; the base (to_maxtext) is a Linen TrainState
 * `{"params": {"params": ...}}` (checkpoint_conversion/utils/utils.py l.1298); `load_orbax_checkpoint` puts the two
 * side by side (l.914-937 `_recursive_update`), `detect_and_extract_checkpoint` keeps only `params` (l.1078), so
 * `_get_lora_delta` (to_huggingface.py l.135) finds no `<key>_lora_a` and the "merged" export is the base model, bit for
 * bit. Under `params/params` the adapters land beside their kernels (`...-query-kernel_lora_a`), as MaxText's own test
 * lays them out (tests/unit/hf_checkpoint_conversion_test.py l.426-482). The copy is read with MaxText's own
 * `load_orbax_checkpoint` (the restore to_huggingface does), the NNX `value` wrappers dropped, and written with Orbax's
 * PyTreeCheckpointer; a checkpoint without adapters (`kernel_lora_a`) fails the step, naming the path.
 */
export function loraRerootLines(from: string, to: string): string[] {
  return [
    `python3 - ${shellQuote(from)} ${shellQuote(to)} <<'REROOT'`,
    'import sys, types',
    'import jax, orbax.checkpoint as ocp',
    'from etils import epath',
    'from maxtext.checkpoint_conversion.utils.utils import load_orbax_checkpoint',
    'src, dst = sys.argv[1], sys.argv[2]',
    'cfg = types.SimpleNamespace(load_parameters_path=src, lora=types.SimpleNamespace(lora_restore_path=""), weight_dtype=None,',
    '                            checkpoint_storage_concurrent_gb=96, checkpoint_storage_use_ocdbt=True, checkpoint_storage_use_zarr3=True)',
    'tree = load_orbax_checkpoint(cfg)',
    'def unwrap(t):',
    '    if isinstance(t, dict):',
    '        return unwrap(t["value"]) if set(t) == {"value"} else {k: unwrap(v) for k, v in t.items()}',
    '    return t',
    'tree = unwrap(tree)',
    'keys = ["/".join(str(getattr(k, "key", k)) for k in p) for p, _ in jax.tree_util.tree_leaves_with_path(tree)]',
    'n = sum(k.endswith("_lora_a") for k in keys)',
    'if n == 0:',
    '    sys.exit(f"lora: no LoRA adapters (*_lora_a) in {src}: the merged export would be the base model")',
    'if "params" in tree:',
    '    sys.exit(f"lora: {src} is already rooted at params; expected the tree Tunix saves (decoder/...)")',
    'ocp.PyTreeCheckpointer().save(epath.Path(dst), {"params": {"params": tree}})',
    'print(f"lora: {n} adapters of {src} re-rooted under params/params at {dst}")',
    'REROOT',
  ];
}

/** The lines a to-hf step runs before to_huggingface: the LoRA re-rooting for a LoRA run, else none. */
export function toHfPrelude(recipe: Recipe, paths: Pick<PipelinePaths, 'trainedCheckpoint'>): string[] {
  return recipe.toHf.lora ? loraRerootLines(paths.trainedCheckpoint, LORA_REROOTED_DIR) : [];
}

/**
 * What a MaxText step needs on a node without TPU: `hardware=cpu` (JAX on CPU devices) and
 * `skip_jax_distributed_system=true`. Without the latter MaxText calls `jax.distributed.initialize()`
 * (maxtext-v0.2.4 src/maxtext/utils/max_utils.py `maybe_initialize_jax_distributed_system`: the TPU path, or for
 * hardware=cpu `initialize_jax_for_cpu`, which waits for a coordinator no single pod has).
 */
export const CPU_RUNTIME_ARGS = { hardware: 'cpu', skip_jax_distributed_system: true } as const;

/** The invocation with CPU_RUNTIME_ARGS set (replacing the same keys in place, else appended). */
export function onCpu(inv: Invocation): Invocation {
  const args = inv.args.map(([k, v]) => [k, k in CPU_RUNTIME_ARGS ? CPU_RUNTIME_ARGS[k as keyof typeof CPU_RUNTIME_ARGS] : v] as const);
  for (const [k, v] of Object.entries(CPU_RUNTIME_ARGS)) if (!args.some(([a]) => a === k)) args.push([k, v]);
  return { ...inv, args };
}

/** Shell prelude of the training container: the tutorials' exports and patches. */
export function trainPrelude(train: Train): string[] {
  const rollout = rolloutSettings(train);
  const lines: string[] = [];
  if (rollout.exportVllmHostIp) lines.push(`VLLM_HOST_IP="$(hostname -I | awk '{print $1}')"`, 'export VLLM_HOST_IP');
  lines.push(...patchLines(rollout.patches));
  return lines;
}
