/** Shared test fixtures for the pipeline tests: the platforms the tutorials need. */
import { Capacity, derivePlatform, Platform } from '../../jobs/platform';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice, TpuSlice } from '../../jobs/tpu';
import { ValidationContext } from '../../jobs/validate';

/**
 * 1x ct6e-standard-4t 4x8 (reservation) + 1x ct6e-standard-8t 2x4, cpu-np n4-highmem-64, namespace default; `capacity`
 * puts both slices on another capacity.
 */
export function testPlatform(overrides: { v6e32Slices?: number; cpuMachineType?: string; capacity?: Capacity } = {}): Platform {
  return derivePlatform({
    project: 'my-project',
    region: 'us-east5',
    zone: 'us-east5-b',
    clusterName: 'tpt',
    bucket: 'my-bucket',
    namespace: 'default',
    cpuMachineType: overrides.cpuMachineType ?? 'n4-highmem-64',
    tpuGroups: [
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: overrides.v6e32Slices ?? 1, capacity: overrides.capacity ?? { type: 'reservation', reservation: 'res-v6e' } },
      { slice: tpuSlice('ct6e-standard-8t', '2x4'), count: 1, capacity: overrides.capacity ?? { type: 'reservation', reservation: 'res-v6e' } },
    ],
  });
}

/** Finds a container by name anywhere in a JobSet manifest. */
export function container(manifest: Record<string, unknown>, rjob: string, name: string): Record<string, any> {
  const spec = (manifest as any).spec.replicatedJobs.find((r: any) => r.name === rjob).template.spec.template.spec;
  const all = [...(spec.initContainers ?? []), ...spec.containers];
  const found = all.find((c: any) => c.name === name);
  if (!found) throw new Error(`no container ${name} in ${rjob}`);
  return found;
}

/** The env of a container as a name -> value map (valueFrom entries map to their fieldPath). */
export function envOf(c: Record<string, any>): Record<string, string> {
  return Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e.value ?? `fieldRef:${e.valueFrom.fieldRef.fieldPath}`]));
}

/** The bash -c script of a container. */
export function scriptOf(c: Record<string, any>): string {
  return c.command[2];
}

/** The rules' context: `slices` x `slice` (default one ct6e-standard-4t 4x8), cpu-np n4-highmem-64, no CPU pods. */
export function ruleContext(slice: TpuSlice = tpuSlice('ct6e-standard-4t', '4x8'), slices = 1, extra: Partial<ValidationContext> = {}): ValidationContext {
  return { slice, slices, cpuMachineType: 'n4-highmem-64', cpuPoolName: 'cpu-np', cpuPods: {}, ...extra };
}

/** The recipe with its training args changed: each given key set, each `undefined` one removed. */
export function withTrainArgs(recipe: Recipe, args: Record<string, unknown>): Recipe {
  const merged: Record<string, unknown> = { ...recipe.train.args, ...args };
  for (const [k, v] of Object.entries(args)) if (v === undefined) delete merged[k];
  return { ...recipe, train: { ...recipe.train, args: merged } } as Recipe;
}
