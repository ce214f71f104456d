/**
 * Lineage: every step writes a small run record, a JSON file next to its output in the bucket (never inside it, so a
 * converted checkpoint or an export directory holds only what MaxText wrote): what the step was made from (model key,
 * HF repository and the revision actually downloaded, dataset and its revision, reward file hash, conversion key, run
 * name, image, chips and slices), when it started and ended, and where its checkpoint and export are. The start record
 * is written before the MaxText call, the end time after it succeeded; a failure to write is reported in the log and
 * never fails the step. Pure; no cdktf.
 */
import { isHfRepoId, PipelinePaths, trainTokenizer } from './maxtext';
import { Recipe, StepName } from './recipes/types';

/** Suffix of a step's record: `<output dir without its trailing slash>.run-record.json`. */
export const RUN_RECORD_SUFFIX = '.run-record.json';

/**
 * A step's run record (the fields known at synth; the step adds startedAt, endedAt, and the commits it downloaded:
 * hfRevisionDownloaded, tokenizerRevisionDownloaded). Each step's
 * record holds only what its own spec depends on, so a change of a later step never changes (and so never replaces) an
 * earlier one: the conversion's record has no run name, training's no export path.
 */
export interface RunRecord {
  readonly version: 1;
  readonly pipeline: string;
  readonly runId: string;
  readonly step: StepName;
  readonly model: string;
  readonly hfRepo: string;
  /** The revision asked for. @default - none: the repository's head (the step records what it downloaded) */
  readonly hfRevision?: string;
  /** Training and export only. @default - none (the method's built-in dataset, or the preset's arguments) */
  readonly dataset?: { readonly hf: string; readonly config?: string; readonly split?: string; readonly revision?: string };
  /** Training and export only. @default - none (MaxText's built-in rewards) */
  readonly reward?: { readonly path: string; readonly sha256: string };
  /**
   * The tokenizer repository the step reads at its commit (`tokenizerRevisionDownloaded`, added by the step):
   * training's `tokenizer_path`, the export's bundled tokenizer. @default - none (MaxText's default tokenizer)
   */
  readonly tokenizer?: string;
  readonly conversionKey: string;
  readonly image: string;
  /** The converted checkpoint training starts from. */
  readonly convertedCheckpoint: string;
  /** Training and export only: the training run's name, and the chips and slices it trains on. @default - none */
  readonly runName?: string;
  readonly chips?: number;
  readonly slices?: number;
  /** Training and export only: the last training checkpoint (what the export reads). @default - none */
  readonly checkpoint?: string;
  /** Export: the export directory; eval: the export it scores. @default - none */
  readonly export?: string;
  /** Eval only: the lm-eval tasks scored and the scores file. @default - none */
  readonly tasks?: readonly string[];
  readonly evalJson?: string;
}

/** The output directory of each step, whose sibling the record is. */
export function stepOutput(paths: PipelinePaths, step: StepName): string {
  return step === 'to-maxtext' ? paths.maxtextDir : step === 'train' ? paths.trainRunDir : paths.hfExportDir;
}

/** The eval step's record file name, beside eval.json in the export directory (the only place its pod writes, by its mount). */
export const EVAL_RUN_RECORD_FILE = `eval${RUN_RECORD_SUFFIX}`;

/** gs:// path of a step's run record (eval's: in the export directory, beside eval.json). */
export function runRecordPath(paths: PipelinePaths, step: StepName): string {
  if (step === 'eval') return `${paths.hfExportDir.replace(/\/?$/, '/')}${EVAL_RUN_RECORD_FILE}`;
  return `${stepOutput(paths, step).replace(/\/$/, '')}${RUN_RECORD_SUFFIX}`;
}

/** What the eval step reads beside the recipe: its image, tasks, the dataset of its own task and its scores file. */
export interface EvalRecordInput {
  readonly image: string;
  readonly tasks: readonly string[];
  readonly evalJson: string;
  /** The tokenizer repository both models are scored with (at TOKENIZER_REVISION when the run reads the Hub). */
  readonly tokenizer: string;
  /** The dataset the project's own task reads (heldout, gsm8k_reasoning). @default - none (lm-eval's built-in tasks) */
  readonly dataset?: { readonly hf: string; readonly config?: string; readonly split?: string };
}

/**
 * The eval step's synth-time record: the base model (repository and the revision asked; the step adds the commit it
 * served, `hfRevisionDownloaded`), the tokenizer (`tokenizerRevisionDownloaded`), the dataset of its own task
 * (`datasetRevisionDownloaded`), the export it scores, the tasks and the scores file.
 */
export function evalRunRecord(recipe: Recipe, paths: PipelinePaths, run: { readonly runId: string; readonly conversionKey: string }, e: EvalRecordInput): RunRecord {
  const runName = recipe.train.args['run_name'];
  return {
    version: 1,
    pipeline: recipe.name,
    runId: run.runId,
    step: 'eval',
    model: recipe.model.name,
    hfRepo: recipe.toMaxText.flags.hf_model_path ?? recipe.model.hfRepo,
    ...(recipe.model.hfRevision !== undefined ? { hfRevision: recipe.model.hfRevision } : {}),
    ...(e.dataset ? { dataset: e.dataset } : {}),
    tokenizer: e.tokenizer,
    conversionKey: run.conversionKey,
    image: e.image,
    convertedCheckpoint: paths.maxtextCheckpoint,
    runName: typeof runName === 'string' ? runName : recipe.train.kind,
    export: paths.hfExportDir,
    tasks: [...e.tasks],
    evalJson: e.evalJson,
  };
}

/** The synth-time record of one step. */
export function runRecord(
  recipe: Recipe,
  paths: PipelinePaths,
  step: StepName,
  run: { readonly runId: string; readonly conversionKey: string; readonly chips: number; readonly slices: number },
): RunRecord {
  const runName = recipe.train.args['run_name'];
  const trained = step !== 'to-maxtext';
  const tokenizerPath = recipe.train.args['tokenizer_path'];
  const weights = recipe.toMaxText.flags.hf_model_path ?? recipe.model.hfRepo;
  const exported = isHfRepoId(tokenizerPath) ? tokenizerPath : isHfRepoId(weights) ? weights : undefined;
  const tokenizer = step === 'train' ? trainTokenizer(recipe) : step === 'to-hf' ? exported : undefined;
  return {
    version: 1,
    pipeline: recipe.name,
    runId: run.runId,
    step,
    model: recipe.model.name,
    hfRepo: recipe.model.hfRepo,
    ...(recipe.model.hfRevision !== undefined ? { hfRevision: recipe.model.hfRevision } : {}),
    conversionKey: run.conversionKey,
    image: recipe.image,
    convertedCheckpoint: paths.maxtextCheckpoint,
    ...(trained
      ? {
          ...(recipe.lineage?.dataset ? { dataset: recipe.lineage.dataset } : {}),
          ...(recipe.lineage?.reward ? { reward: recipe.lineage.reward } : {}),
          ...(tokenizer !== undefined ? { tokenizer } : {}),
          runName: typeof runName === 'string' ? runName : recipe.train.kind,
          chips: run.chips,
          slices: run.slices,
          checkpoint: paths.trainedCheckpoint,
        }
      : {}),
    ...(step === 'to-hf' ? { export: paths.hfExportDir } : {}),
  };
}

/**
 * The Python that writes a record: argv[1] the record JSON, argv[2] its gs:// path, argv[3] `start` or `end`. At the
 * start it adds the commits the step downloads, resolved once before any download by the step's own lines
 * (jobs/hf-revision.ts): HF_REVISION (`hfRevisionDownloaded`: the weights' commit, which the conversion passes to
 * to_maxtext `--revision` and later steps read from its record) and TOKENIZER_REVISION (`tokenizerRevisionDownloaded`).
 * Only the pod of completion index 0 writes (every pod of a multi-host step runs the script). Double quotes only: it
 * is shell-quoted as one word.
 */
const WRITER = [
  'import datetime, json, os, sys',
  'if os.environ.get("JOB_COMPLETION_INDEX", "0") != "0":',
  '    sys.exit(0)',
  'import gcsfs',
  'r, p, phase = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]',
  'fs = gcsfs.GCSFileSystem()',
  'now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")',
  'if phase == "end":',
  '    try:',
  '        r = json.loads(fs.cat(p))',
  '    except Exception:',
  '        pass',
  '    r["endedAt"] = now',
  'else:',
  '    r["startedAt"] = now',
  '    for k, e in (("hfRevisionDownloaded", "HF_REVISION"), ("tokenizerRevisionDownloaded", "TOKENIZER_REVISION")):',
  '        if os.environ.get(e):',
  '            r[k] = os.environ[e]',
  'fs.pipe(p, (json.dumps(r, indent=1, sort_keys=True) + chr(10)).encode())',
].join('\n');

/**
 * The eval step's writer: WRITER for a file of the pod's export mount (the eval image reads no bucket by library), also
 * recording EVAL_DATASET_REVISION (`datasetRevisionDownloaded`). argv as WRITER's, argv[2] a local path.
 */
const FILE_WRITER = [
  'import datetime, json, os, sys',
  'r, p, phase = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]',
  'now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")',
  'if phase == "end":',
  '    try:',
  '        with open(p) as f:',
  '            r = json.load(f)',
  '    except Exception:',
  '        pass',
  '    r["endedAt"] = now',
  'else:',
  '    r["startedAt"] = now',
  '    for k, e in (("hfRevisionDownloaded", "HF_REVISION"), ("tokenizerRevisionDownloaded", "TOKENIZER_REVISION"), ("datasetRevisionDownloaded", "EVAL_DATASET_REVISION")):',
  '        if os.environ.get(e):',
  '            r[k] = os.environ[e]',
  'with open(p, "w") as f:',
  '    f.write(json.dumps(r, indent=1, sort_keys=True) + chr(10))',
].join('\n');

/** One shell line writing the eval step's record to a mounted file (start or end), never failing the step. */
export function recordFileLine(record: RunRecord, file: string, shownAs: string, phase: 'start' | 'end', quote: (w: string) => string): string {
  return (
    `python3 -c ${quote(FILE_WRITER)} ${quote(JSON.stringify(record))} ${quote(file)} ${phase} ` +
    `|| echo "run record ${shownAs} not written (the step goes on)"`
  );
}

/** One shell line writing the record (start or end), never failing the step. */
export function recordLine(record: RunRecord, path: string, phase: 'start' | 'end', quote: (w: string) => string): string {
  return (
    `python3 -c ${quote(WRITER)} ${quote(JSON.stringify(record))} ${quote(path)} ${phase} ` +
    `|| echo "run record ${path} not written (the step goes on)"`
  );
}
