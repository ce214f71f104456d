/** What the pipeline stacks can count on from infra: its TPU slices by shape, its pool names, its Kueue TPU quotas. */
import type { StackModel, TpuPool } from '../model';

export function sliceKey(topology: string | undefined, chipsPerVm: number | undefined): string {
  return `${topology ?? '?'}/${chipsPerVm ?? '?'}`;
}

export interface InfraView {
  /** TPU pools that form a known slice. */
  readonly pools: readonly TpuPool[];
  readonly shapes: ReadonlyMap<string, TpuPool>;
  readonly poolNames: ReadonlySet<string>;
  readonly quotas: ReadonlyArray<{ stack: string; address: string; tpuChips: number }>;
  /** False when no stack holds a cluster or a TPU pool (a pipeline reviewed alone). */
  readonly hasInfra: boolean;
  readonly chips: number;
}

export function infraView(models: readonly StackModel[]): InfraView {
  const pools = models.flatMap((m) => m.tpuPools).filter((p) => p.slice);
  return {
    pools,
    shapes: new Map(pools.map((p) => [sliceKey(p.slice!.topology, p.slice!.chipsPerVm), p])),
    poolNames: new Set(models.flatMap((m) => [...m.tpuPools, ...m.cpuPools]).map((p) => p.name)),
    quotas: models.flatMap((m) => m.kueue).flatMap((q) => (q.tpuChips === undefined ? [] : [{ stack: q.stack, address: q.address, tpuChips: q.tpuChips }])),
    hasInfra: pools.length > 0 || models.some((m) => m.controlPlanes.length > 0),
    chips: pools.reduce((sum, p) => sum + p.slice!.chips, 0),
  };
}
