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
  /** Export only: the export directory. @default - none */
  readonly export?: string;
}

/** The output directory of each step, whose sibling the record is. */
export function stepOutput(paths: PipelinePaths, step: StepName): string {
  return step === 'to-maxtext' ? paths.maxtextDir : step === 'train' ? paths.trainRunDir : paths.hfExportDir;
}

/** gs:// path of a step's run record. */
export function runRecordPath(paths: PipelinePaths, step: StepName): string {
  return `${stepOutput(paths, step).replace(/\/$/, '')}${RUN_RECORD_SUFFIX}`;
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

/** One shell line writing the record (start or end), never failing the step. */
export function recordLine(record: RunRecord, path: string, phase: 'start' | 'end', quote: (w: string) => string): string {
  return (
    `python3 -c ${quote(WRITER)} ${quote(JSON.stringify(record))} ${quote(path)} ${phase} ` +
    `|| echo "run record ${path} not written (the step goes on)"`
  );
}
