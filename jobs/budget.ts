/**
 * What a pipeline's steps may spend, from their budgets: the one home of this computation, used by `npm run bench`
 * (bench/rehearsals.ts, on the built steps) and by the plan review's cost lines (review/pipeline-graph.ts, on the steps
 * read back from the synthesized JobSets). Pure.
 *
 * - **One attempt**: every step runs once, at most to its attempt deadline (the Jobs' `activeDeadlineSeconds`). This is
 *   what a run that passes, or fails at its first error, can spend: a step's own error fails its JobSet at once
 *   (jobs/jobset.ts FAIL_JOBSET_REASONS), only a lost host restarts it.
 * - **Worst case**: every step also uses every restart its JobSet failure policy allows (`maxRestarts`), each attempt to
 *   its deadline.
 * Queueing is counted in neither: a step waiting in Kueue's queue holds no chips.
 */

/** One step as the budget sees it. */
export interface StepBudget {
  /** How long one attempt may run, minutes (the Jobs' activeDeadlineSeconds). */
  readonly attemptMinutes: number;
  /** Restarts the JobSet's failure policy allows after the first attempt. */
  readonly maxRestarts: number;
  /** TPU chips the step holds while it runs; 0 for a CPU step. */
  readonly chips: number;
}

/** Wall minutes of the steps in sequence and the TPU chip-hours they hold. */
export interface Spend {
  readonly wallMinutes: number;
  readonly chipHours: number;
}

/** One attempt of every step, and the worst case (every restart), side by side. */
export interface SpendRange {
  readonly oneAttempt: Spend;
  readonly worstCase: Spend;
}

/** What `steps` spend: one attempt each, or (`withRestarts`) every attempt their failure policy allows. */
export function spendOf(steps: readonly StepBudget[], withRestarts = false): Spend {
  let wallMinutes = 0;
  let chipHours = 0;
  for (const s of steps) {
    const minutes = s.attemptMinutes * (withRestarts ? 1 + s.maxRestarts : 1);
    wallMinutes += minutes;
    chipHours += (minutes / 60) * s.chips;
  }
  return { wallMinutes, chipHours };
}

/** Both ends of what `steps` spend. */
export function spendRange(steps: readonly StepBudget[]): SpendRange {
  return { oneAttempt: spendOf(steps), worstCase: spendOf(steps, true) };
}

/** A built pipeline step (jobs/pipeline.ts PipelineStep) as a budget line. */
export function stepBudget(s: { readonly timeoutMinutes: number; readonly maxRestarts: number; readonly tpu?: { readonly slice: { readonly chips: number }; readonly slices: number } }): StepBudget {
  return { attemptMinutes: s.timeoutMinutes, maxRestarts: s.maxRestarts, chips: s.tpu ? s.tpu.slice.chips * s.tpu.slices : 0 };
}
