/**
 * One commit per repository for a whole run: the weights, the tokenizer and its chat template all come from the same
 * commit of the Hugging Face repository, resolved once before anything is downloaded, and every step records the
 * commit it downloaded (jobs/run-record.ts). Pure; no cdktf: shell lines the step scripts run.
 *
 * - The conversion resolves the commit once (`hfRevision` when pinned, else the repository's head at that moment)
 *   with huggingface_hub `HfApi.model_info(repo, revision).sha`, exports it as HF_REVISION, passes it to to_maxtext's
 *   own `--revision` (maxtext-v0.2.4 src/maxtext/checkpoint_conversion/to_maxtext.py line 1152; handed to
 *   `hf_hub_download` line 159/197 and `from_pretrained` line 957), and its run record holds it (`hfRevisionDownloaded`).
 * - to_maxtext's lazy loader lists the repository's files at its head whatever the revision (to_maxtext.py line 142
 *   `list_repo_files(self.model_id, token=self.token)`: no `revision`), so the shard layout could be another commit's:
 *   `listingRevisionPatch` adds `revision=self.revision` to that call (failing the pod when the line is gone).
 * - Training, export and eval read the commit from the conversion's run record (a pinned one is written in the
 *   script), and download the tokenizer files (tokenizer, its config with the chat template, `chat_template.jinja`)
 *   at it into TOKENIZER_DIR, which replaces the repository name: MaxText has no tokenizer revision key at 0.2.4
 *   (configs/types.py), and to_huggingface.py line 534-535 and train_rl/train_sft load
 *   `AutoTokenizer.from_pretrained(<name>)` without one, i.e. the head. A `tokenizer` in another repository has no
 *   revision to pin: each step resolves its head once and records that commit (`tokenizerRevisionDownloaded`).
 */
import { HF_REVISION_ENV, shellQuote } from './maxtext';

export { HF_REVISION_ENV };
/** The variable holding the tokenizer's commit. */
export const TOKENIZER_REVISION_ENV = 'TOKENIZER_REVISION';
/** Where a step downloads the tokenizer files at their commit (passed instead of the repository name). */
export const TOKENIZER_DIR = '/tmp/tokenizer-at-revision';
/** The files of a repository that make its tokenizer and chat template (never the weights). */
export const TOKENIZER_FILES = ['*.json', '*.jinja', '*.model', '*.tiktoken', '*.txt'] as const;

/** Where a run's revisions come from. */
export interface RevisionSource {
  /** The weights' repository (`hfModel`). */
  readonly repo: string;
  /** `hfRevision`. @default - none: the head, resolved by the conversion */
  readonly pinned?: string;
  /** The tokenizer's repository (`tokenizer`). */
  readonly tokenizer: string;
  /** gs:// path of the conversion's run record (holds `hfRevisionDownloaded`). */
  readonly conversionRecord: string;
}

/** Python printing the commit `argv[2]` (or the head when empty) of model repository `argv[1]`; 3 tries. */
const RESOLVE = [
  'import sys, time',
  'from huggingface_hub import HfApi',
  'for attempt in range(3):',
  '    try:',
  '        print(HfApi().model_info(sys.argv[1], revision=sys.argv[2] or None).sha)',
  '        break',
  '    except Exception as e:',
  '        if attempt == 2:',
  '            sys.exit("cannot resolve " + sys.argv[1] + " at " + (sys.argv[2] or "its head") + ": " + str(e)[:300])',
  '        time.sleep(10)',
].join('\n');

/** RESOLVE for a dataset repository: the commit `argv[2]` (or the head when empty) of dataset `argv[1]`; 3 tries. */
const RESOLVE_DATASET = RESOLVE.replace('HfApi().model_info(', 'HfApi().dataset_info(');

/**
 * Python printing `hfRevisionDownloaded` of the run record at `argv[1]`, or exiting with why not. Runs in the MaxText
 * image and in the vLLM image (the eval step): gcsfs is in both; the vLLM TPU image is built by tpu-inference's
 * `docker/Dockerfile` (l.79-81 installs `requirements.txt`, which pins `gcsfs==2026.1.0`, at 11250b4, the commit our
 * image tag names).
 */
const RECORDED = [
  'import json, sys, gcsfs',
  'try:',
  '    c = json.loads(gcsfs.GCSFileSystem().cat(sys.argv[1])).get("hfRevisionDownloaded")',
  'except Exception as e:',
  '    sys.exit("cannot read the conversion record " + sys.argv[1] + ": " + str(e)[:300])',
  'if not c:',
  '    sys.exit("the conversion record " + sys.argv[1] + " holds no commit (hfRevisionDownloaded): pin hfRevision, or convert again")',
  'print(c)',
].join('\n');

/** Python downloading the tokenizer files of `argv[1]` at commit `argv[2]` into `argv[3]`. */
const DOWNLOAD = [
  'import sys',
  'from huggingface_hub import snapshot_download',
  `snapshot_download(sys.argv[1], revision=sys.argv[2], local_dir=sys.argv[3], allow_patterns=${JSON.stringify(TOKENIZER_FILES).replace(/"/g, "'")})`,
].join('\n');

const py = (code: string, ...args: string[]) => `python3 -c ${shellQuote(code)} ${args.join(' ')}`;
const set = (name: string, command: string) => [`${name}="$(${command})"`, `export ${name}`];

/** The conversion's lines: the weights' commit resolved once (HF_REVISION), before any download. */
export function resolveRevisionLines(src: RevisionSource): string[] {
  return [...set(HF_REVISION_ENV, py(RESOLVE, shellQuote(src.repo), shellQuote(src.pinned ?? '')))];
}

/** The variable holding the commit of the dataset the eval step's own task reads. */
export const EVAL_DATASET_REVISION_ENV = 'EVAL_DATASET_REVISION';

/** The eval step's lines: the commit of the dataset its own task reads, resolved once (EVAL_DATASET_REVISION). */
export function resolveDatasetLines(repo: string): string[] {
  return set(EVAL_DATASET_REVISION_ENV, py(RESOLVE_DATASET, shellQuote(repo), "''"));
}

/** Whether the tokenizer is the weights' repository (then it is read at the weights' commit). */
export function tokenizerIsModel(src: RevisionSource): boolean {
  return src.tokenizer.toLowerCase() === src.repo.toLowerCase();
}

/**
 * A later step's lines (training, export, eval): HF_REVISION the conversion's commit (the pinned one, else read from
 * the conversion's record), TOKENIZER_REVISION the tokenizer's, and the tokenizer files at it in TOKENIZER_DIR.
 */
export function tokenizerAtRevisionLines(src: RevisionSource): string[] {
  const weights = src.pinned !== undefined ? [`${HF_REVISION_ENV}=${src.pinned}`, `export ${HF_REVISION_ENV}`] : set(HF_REVISION_ENV, py(RECORDED, shellQuote(src.conversionRecord)));
  const tokenizer = tokenizerIsModel(src)
    ? [`${TOKENIZER_REVISION_ENV}="$${HF_REVISION_ENV}"`, `export ${TOKENIZER_REVISION_ENV}`]
    : set(TOKENIZER_REVISION_ENV, py(RESOLVE, shellQuote(src.tokenizer), "''"));
  return [
    ...weights,
    ...tokenizer,
    py(DOWNLOAD, shellQuote(src.tokenizer), `"$${TOKENIZER_REVISION_ENV}"`, TOKENIZER_DIR),
    `echo "tokenizer and chat template: ${src.tokenizer.replace(/[^A-Za-z0-9_./-]/g, '')} at $${TOKENIZER_REVISION_ENV} in ${TOKENIZER_DIR}"`,
  ];
}

/**
 * Makes to_maxtext's lazy loader list the repository's files at the revision it downloads (to_maxtext.py line 142),
 * idempotently (a restarted pod finds it patched); the pod fails when neither form of the line is there.
 */
export function listingRevisionPatch(maxtextSrc: string): string {
  const file = `${maxtextSrc}/checkpoint_conversion/to_maxtext.py`;
  const before = 'list_repo_files(self.model_id, token=self.token)';
  const after = 'list_repo_files(self.model_id, token=self.token, revision=self.revision)';
  return (
    `python3 -c "import pathlib, sys; p = pathlib.Path('${file}'); s = p.read_text(); ` +
    `sys.exit('revision listing patch: ${before} not found in ' + str(p)) if '${before}' not in s and '${after}' not in s ` +
    `else p.write_text(s.replace('${before}', '${after}'))"`
  );
}
