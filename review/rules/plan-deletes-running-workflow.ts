import { isObj } from '../values';
import { liveChanges, why, workflowStepsOf } from './plan-facts';
import { finding, Rule } from './types';

/** Argo's labels on a Workflow (argoproj/argo-workflows v4.1.2 workflow/common/common.go l.92, 106; set by operator.go l.2775). */
const PHASE = 'workflows.argoproj.io/phase';
const COMPLETED = 'workflows.argoproj.io/completed';

/**
 * A plan that deletes or replaces a pipeline's Workflow: deleting it deletes the JobSets it created (they carry its
 * ownerReference, and its foregroundDeletion finalizer waits for them), so a step in progress is stopped.
 *
 * Whether it runs is read from what hashicorp/terraform-provider-kubernetes v2.38.0 stores for a kubernetes_manifest:
 * never `object.status` (manifest/provider/resource.go l.119-124 drops `status` from the type, RemoveServerSideFields
 * l.184-185 from the object), but `object.metadata.labels` in full (labels are a computed field by default,
 * provider.go l.210), where Argo keeps `workflows.argoproj.io/phase` and `/completed`. As of the plan's refresh:
 * completed is a warning; Running, Pending or no label (a Workflow the controller has not seen, or a plan made
 * with -refresh=false) is an error.
 */
export const planDeletesRunningWorkflow: Rule = {
  id: 'plan-deletes-running-workflow',
  summary: 'a plan deletes or replaces a pipeline Workflow that runs (or whose phase it cannot tell)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'delete' && c.action !== 'replace') return [];
      const steps = workflowStepsOf(c, 'before');
      if (steps.length === 0) return [];
      const object = isObj(c.before) && isObj(c.before.object) ? c.before.object : undefined;
      const labels = object && isObj(object.metadata) && isObj(object.metadata.labels) ? object.metadata.labels : {};
      const phase = typeof labels[PHASE] === 'string' ? String(labels[PHASE]).slice(0, 20).replace(/[^A-Za-z]/g, '') : '';
      const done = labels[COMPLETED] === 'true' || ['Succeeded', 'Failed', 'Error'].includes(phase);
      const what = c.action === 'delete' ? 'deleted (the pipeline is destroyed)' : 'replaced (its spec changed)';
      const jobSets = steps.map((s) => s.name).join(', ');
      if (done) {
        return [finding('plan-deletes-running-workflow', 'warning', { stack: plan.stack, address: c.address },
          `the pipeline Workflow (${phase || 'completed'} at the plan's refresh) is ${what}${why(c)}: its JobSets ${jobSets} leave the cluster`, 'their outputs in GCS stay')];
      }
      const state = phase ? `while it runs (Argo's phase label at the plan's refresh: ${phase})` : "and the plan cannot tell whether it runs (no Argo phase label in the stored object: assume it does)";
      return [finding('plan-deletes-running-workflow', 'error', { stack: plan.stack, address: c.address },
        `the pipeline Workflow is ${what}${why(c)} ${state}: its JobSets ${jobSets} are deleted with it, stopping the run`,
        'wait for the run to end (npm run status), or deploy a new runId instead of changing this run')];
    }),
};
