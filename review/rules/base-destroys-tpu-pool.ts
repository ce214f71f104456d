import { forcesReplacement, leadingPath } from '../resources/container-node-pool';
import { finding, Rule } from './types';

/**
 * Through `--base` (forks and first deploys have no plan), a TPU pool the change removes, or changes in an
 * attribute that forces a new pool (the provider v6.50.0 ForceNew model in resources/container-node-pool.ts), is
 * the same error as plan-destroys-tpu-pool finds in a real plan. A stack with a `--plan` is judged by its plan.
 */
export const baseDestroysTpuPool: Rule = {
  id: 'base-destroys-tpu-pool',
  summary: 'against --base, a TPU node pool (the slice) is deleted or replaced',
  check: ({ diffs, plans }) =>
    (diffs ?? [])
      .filter((s) => !plans.some((p) => p.stack === s.stack))
      .flatMap((s) =>
        s.resources
          .filter((r) => r.tpuPool)
          .flatMap((r) => {
            const renamed = s.renamed.find((m) => m.from === r.address);
            if (r.action === 'removed') {
              const what = renamed ? `moves to ${renamed.to} without a \`moved\` block` : 'is removed';
              return [
                finding('base-destroys-tpu-pool', 'error', { stack: s.stack, address: r.address },
                  `${r.summary[0] ?? `TPU pool ${r.address}`}: the pool ${what}, so Terraform deletes the slice; running training is killed and the reservation capacity may not come back`,
                  renamed ? `add a \`moved\` block from ${r.address} to ${renamed.to}` : 'keep the pool, or drain it and accept losing the slice'),
              ];
            }
            const forcing = [...new Set(r.attributes.map((a) => a.path).filter(forcesReplacement).map(leadingPath))];
            if (r.action !== 'changed' || forcing.length === 0) return [];
            return [
              finding('base-destroys-tpu-pool', 'error', { stack: s.stack, address: r.address },
                `${r.summary[0] ?? `TPU pool ${r.address}`}: Terraform replaces the pool (${forcing.join(', ')} cannot change in place), so the slice is deleted and created again; running training is killed and the reservation capacity may not come back`,
                'keep the pool (topology, machine type, capacity and reservation changes need a new pool next to the old one), or drain it and accept losing the slice'),
            ];
          }),
      ),
};
