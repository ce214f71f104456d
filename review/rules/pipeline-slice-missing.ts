import { infraView, sliceKey } from './infra-view';
import { finding, Rule } from './types';

export const pipelineSliceMissing: Rule = {
  id: 'pipeline-slice-missing',
  summary: "a pipeline's TPU step selects a slice shape no TPU pool in infra provides",
  check: ({ models }) => {
    const infra = infraView(models);
    if (!infra.hasInfra) return [];
    const have = infra.pools.map((p) => `${p.name} (${p.slice!.topology}, ${p.slice!.chipsPerVm} chips/VM)`).join(', ') || 'none';
    return models
      .flatMap((m) => m.jobsets)
      .filter((j) => j.tpuChips > 0 && !infra.shapes.has(sliceKey(j.tpuTopology, j.tpuChipsPerPod)))
      .map((j) =>
        finding('pipeline-slice-missing', 'error', j,
          `JobSet ${j.name} selects a ${j.tpuTopology ?? '(no topology)'} slice with ${j.tpuChipsPerPod ?? '?'} chips per pod, ` +
            `which no TPU pool in infra provides (infra has: ${have})`,
          'add the slice to the infra config (TPU pool groups) or point the pipeline at an existing slice'),
      );
  },
};
