/**
 * What `npm run status` says about a finished step's lineage: the line jobs/lineage.ts built at synth and the pipeline
 * stack kept in its cluster record (`RecordedStep.lineage`), under every completed step.
 */
import type { PipelineRecord } from '../jobs/record';
import type { StepStatus } from './model';

export { lineageLine, repoAt, datasetName } from '../jobs/lineage';

/** The step statuses with the recorded lineage line under every completed step. */
export function withLineage(pipeline: PipelineRecord, steps: readonly StepStatus[]): StepStatus[] {
  return steps.map((s, i) => {
    const line = s.state === 'completed' ? pipeline.steps[i]?.lineage : undefined;
    return line === undefined ? s : { ...s, details: [...s.details, line] };
  });
}
