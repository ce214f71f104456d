import { jobSetOf, liveChanges, runningNow } from './plan-facts';
import { finding, Rule } from './types';

/** Single-quoted for a POSIX shell (addresses with `["key"]` instance keys stay intact). */
function quoted(address: string): string {
  return `'${address.replace(/'/g, `'\\''`)}'`;
}

export const planTaintedJobset: Rule = {
  id: 'plan-tainted-jobset',
  summary: 'a plan replaces a JobSet because it is tainted (a wait that timed out taints it), which re-runs the step (an error for training)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.reason !== 'replace_because_tainted') return [];
      const j = jobSetOf(c, 'before') ?? jobSetOf(c, 'after');
      if (!j) return [];
      return [
        // Re-running training holds the slice again: an error; a CPU step (conversion, export) re-run is a warning.
        finding('plan-tainted-jobset', j.tpuChips > 0 || j.kind === 'training' ? 'error' : 'warning', { stack: plan.stack, address: c.address },
          `JobSet ${j.name} (${j.kind}${j.tpuChips ? `, ${j.tpuChips} chips` : ''}) is tainted, so Terraform deletes and re-creates it: ` +
            `the step runs again from the start.${runningNow(c) ? ` It is ${runningNow(c)}.` : ''} A wait that times out (timeouts.create${j.timeoutText ? ` ${j.timeoutText}` : ''}) taints the JobSet even when it is still running or finished later`,
          `if the JobSet is still running or completed, keep it: \`cd ${plan.workingDir} && terraform untaint ${quoted(c.address)}\`, then plan again`),
      ];
    }),
};
