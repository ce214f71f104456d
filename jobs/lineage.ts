/**
 * The lineage line of a finished step, as `npm run status` shows it: where its output is, what it was made from (HF
 * repository and revision, dataset, reward file), and where the step's run record is (jobs/run-record.ts; the record
 * in the bucket also holds the revision the conversion actually downloaded and the step's start and end). Built from the pipeline
 * at synth and kept in the pipeline's cluster record (jobs/record.ts `RecordedStep.lineage`): status reads the
 * cluster, not the bucket. Pure; no cdktf.
 */
import { rowOf } from './methods';
import type { Pipeline, PipelineStep } from './pipeline';

/** `repo@0e9e39f`, or `repo (head when converted)` without a pinned revision. */
export function repoAt(pipeline: Pipeline): string {
  const rev = pipeline.model.hfRevision;
  return rev !== undefined ? `${pipeline.model.hfRepo}@${rev.slice(0, 7)}` : `${pipeline.model.hfRepo} (head when converted)`;
}

/** The dataset a pipeline trains on, short (`ultrachat_200k`), from its lineage or its MaxText arguments. */
export function datasetName(pipeline: Pipeline): string | undefined {
  const args = pipeline.recipe.train.args;
  const hf = pipeline.recipe.lineage?.dataset?.hf ?? args['hf_path'] ?? args['dataset_name'] ?? rowOf(pipeline.recipe).builtInDataset;
  if (typeof hf !== 'string') return undefined;
  const short = hf.split('/').pop()!;
  const rev = pipeline.recipe.lineage?.dataset?.revision;
  return rev !== undefined ? `${short}@${rev.slice(0, 7)}` : short;
}

/** The path below the model's folder in the bucket (`hf-trained/<run>/<key>/`). */
function underModel(pipeline: Pipeline, dir: string): string {
  const root = `${pipeline.paths.trainOutputDir.replace(/trained\/$/, '')}`;
  return dir.startsWith(root) ? dir.slice(root.length) : dir;
}

/** The lineage line of a completed step, or none. */
export function lineageLine(pipeline: Pipeline, step: PipelineStep): string | undefined {
  const record = pipeline.runRecords[step.name];
  if (!record) return undefined;
  const data = datasetName(pipeline);
  const reward = pipeline.recipe.lineage?.reward;
  const rewardText = reward ? `, reward ${reward.path} (${reward.sha256.slice(0, 7)})` : '';
  const scored = record.record.tasks;
  if (step.name === 'eval') {
    const own = record.record.dataset ? ` (${record.record.dataset.hf.split('/').pop()} at the commit resolved when it ran)` : '';
    return `scored ${underModel(pipeline, pipeline.paths.hfExportDir)} against ${repoAt(pipeline)} on ${(scored ?? []).join(', ')}${own}; run record ${record.path}`;
  }
  const what =
    step.name === 'to-maxtext'
      ? `converted ${underModel(pipeline, pipeline.paths.maxtextDir)} from ${repoAt(pipeline)}`
      : step.name === 'train'
        ? `trained ${underModel(pipeline, pipeline.paths.trainRunDir)} from ${repoAt(pipeline)}${data ? ` on ${data}` : ''}${rewardText}`
        : `exported ${underModel(pipeline, pipeline.paths.hfExportDir)} from ${repoAt(pipeline)}${data ? `, ${data}` : ''}${rewardText}`;
  return `${what}; run record ${record.path}`;
}

