/**
 * What a rehearsal may spend (`npm run bench -- rehearsals`; also part of the full run): for the four presets and each
 * example of config/examples, the rehearsal (jobs/rehearsal.ts) as the app builds it, with its budget from the
 * synthesized steps' attempt deadlines (jobs/budget.ts spendOf, the computation the plan review's cost lines use): wall minutes of one attempt of every step (a step's own error fails it at
 * once; only a lost host restarts one) and TPU chip-hours. Targets (issue 36): under REHEARSAL_TARGETS.wallMinutes and
 * REHEARSAL_TARGETS.chipHours on v6e. Queueing is not counted: it holds no chips. Pure arithmetic; no cluster.
 */
import { loadDeployment } from '../config/deployment';
import { REHEARSAL_TARGETS } from '../jobs/rehearsal';
import { spendOf, stepBudget } from '../jobs/budget';

/** The rehearsals measured: each preset on the single-host pool, each example on its own v6e-8. */
export const REHEARSAL_CASES: ReadonlyArray<{ readonly env: Readonly<Record<string, string>>; readonly names: readonly string[] }> = [
  { env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' }, names: ['rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'] },
  { env: { CONFIG_FILE: 'config/examples/sft-llama3-8b.json' }, names: ['sft-llama3-support'] },
  { env: { CONFIG_FILE: 'config/examples/grpo-qwen3-8b.json' }, names: ['grpo-qwen3-math'] },
  { env: { CONFIG_FILE: 'config/examples/lora-sft-gemma3-12b.json' }, names: ['lora-gemma3-support'] },
];

export interface RehearsalRow {
  readonly pipeline: string;
  readonly host: string;
  readonly wallMinutes: number;
  readonly chipHours: number;
  /** With every restart a lost host allows. */
  readonly worstWallMinutes: number;
  readonly worstChipHours: number;
}

/** One row per rehearsal of REHEARSAL_CASES. */
export function rehearsalRows(): RehearsalRow[] {
  return REHEARSAL_CASES.flatMap(({ env, names }) => {
    const d = loadDeployment({ env: { ...env, REHEARSE: names.join(',') } });
    return names.map((name) => {
      const p = d.pipelines.find((x) => x.name === `rehearse-${name}`)!;
      const one = spendOf(p.steps.map(stepBudget));
      const worst = spendOf(p.steps.map(stepBudget), true);
      return { pipeline: name, host: p.slice.acceleratorType, wallMinutes: one.wallMinutes, chipHours: one.chipHours, worstWallMinutes: worst.wallMinutes, worstChipHours: worst.chipHours };
    });
  });
}

/** Prints the table and returns the checks against the targets. */
export function rehearsalChecks(): Array<[string, boolean]> {
  console.log('\nrehearsal budgets (one attempt of every step; worst case with every restart a lost host allows):');
  const rows = rehearsalRows();
  for (const r of rows) {
    console.log(
      `  rehearse-${r.pipeline.padEnd(20)} ${r.host.padEnd(7)} ${String(r.wallMinutes).padStart(3)} min ${r.chipHours.toFixed(2).padStart(5)} chip-h` +
        `   (worst ${r.worstWallMinutes} min, ${r.worstChipHours.toFixed(2)} chip-h)`,
    );
  }
  return rows.flatMap((r): Array<[string, boolean]> => [
    [`rehearse-${r.pipeline} wall < ${REHEARSAL_TARGETS.wallMinutes} min (${r.wallMinutes} min)`, r.wallMinutes < REHEARSAL_TARGETS.wallMinutes],
    [`rehearse-${r.pipeline} < ${REHEARSAL_TARGETS.chipHours} chip-hours on ${r.host} (${r.chipHours.toFixed(2)})`, r.chipHours < REHEARSAL_TARGETS.chipHours],
  ]);
}
