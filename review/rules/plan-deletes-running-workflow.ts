import { liveChanges, why, workflowStepsOf } from './plan-facts';
import { finding, Rule } from './types';

/**
 * A plan that deletes or replaces a pipeline's Workflow (a destroy, or a changed spec) while it runs: deleting it
 * deletes the JobSets it created (they carry its ownerReference, and its foregroundDeletion finalizer waits for them),
 * so the step in progress is stopped. Read from the Workflow Terraform refreshed (`before.object.status`: phase and the
 * nodes of argoproj/argo-workflows v4.1.2 pkg/apis/workflow/v1alpha1/workflow_types.go; a step's wait task is
 * `<step>-wait`, jobs/argo.ts). A finished Workflow (Succeeded, Failed, Error) is a warning only.
 */
export const planDeletesRunningWorkflow: Rule = {
  id: 'plan-deletes-running-workflow',
  summary: 'a plan deletes or replaces a pipeline Workflow while its steps run',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'delete' && c.action !== 'replace') return [];
      const steps = workflowStepsOf(c, 'before');
      if (steps.length === 0) return [];
      const status = (c.before as { object?: { status?: { phase?: unknown; nodes?: unknown } } }).object?.status;
      const phase = typeof status?.phase === 'string' ? status.phase : '';
      const running = phase === 'Running' || phase === 'Pending';
      const nodes = status?.nodes && typeof status.nodes === 'object' ? Object.values(status.nodes as Record<string, { displayName?: string; phase?: string }>) : [];
      const active = nodes.filter((n) => n.phase === 'Running' && typeof n.displayName === 'string' && n.displayName.endsWith('-wait')).map((n) => n.displayName!.replace(/-wait$/, ''));
      const what = c.action === 'delete' ? 'deleted (the pipeline is destroyed)' : 'replaced (its spec changed)';
      const where = active.length ? `, step ${active.join(', ')} running` : '';
      const jobSets = steps.map((s) => s.name).join(', ');
      if (!running && phase) {
        return [finding('plan-deletes-running-workflow', 'warning', { stack: plan.stack, address: c.address },
          `the pipeline Workflow (${phase}) is ${what}${why(c)}: its JobSets ${jobSets} leave the cluster`, 'their outputs in GCS stay')];
      }
      return [finding('plan-deletes-running-workflow', 'error', { stack: plan.stack, address: c.address },
        `the pipeline Workflow is ${what}${why(c)} while it runs${where || (phase ? '' : ' (no status in the plan: assume it runs)')}: its JobSets ${jobSets} are deleted with it, stopping the run`,
        'wait for the run to end (npm run status), or deploy a new runId instead of changing this run')];
    }),
};
