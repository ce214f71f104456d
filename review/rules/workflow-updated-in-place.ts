import { isObj } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/**
 * What argoproj/argo-workflows v4.1.2 does with a Workflow changed in place (workflow/controller/operator.go): the
 * controller operates on the live object at every reconcile (newWorkflowOperationCtx l.163-174: `execWf` is a copy of
 * the Workflow as it is now, not as it started), so an update is acted on, never "kept as it started".
 */
const EFFECTS: ReadonlyArray<{ readonly path: RegExp; readonly effect: string }> = [
  { path: /^manifest\.spec\.shutdown\b/, effect: 'spec.shutdown stops the run: the controller stops scheduling steps and (Terminate) kills the running ones (operator.go l.486, 592-598, 1066-1069)' },
  { path: /^manifest\.spec\.activeDeadlineSeconds\b/, effect: 'spec.activeDeadlineSeconds is counted from the run\'s start (operator.go l.665-672): a lower value can end a run that is past it at the next reconcile' },
  { path: /^manifest\.spec\.templates\b/, effect: 'spec.templates: steps not yet started run the new templates, looked up by name (operator.go l.2928 GetTemplateByName), after steps that ran the old ones' },
  { path: /^manifest\.spec\.(serviceAccountName|podSpecPatch|securityContext|hostNetwork|automountServiceAccountToken|executor)\b/, effect: 'the identity or security of the pods it creates from now on changes (their spec is built from the live Workflow)' },
  { path: /^manifest\.spec\.(onExit|entrypoint|arguments|suspend)\b/, effect: 'what runs next changes (entrypoint, arguments, exit handler or suspension are read from the live Workflow)' },
  { path: /^manifest\.metadata\.(labels|annotations|finalizers)\b/, effect: 'its labels, annotations or finalizers change (what status, cleanup and the deletion order read)' },
];

/**
 * A pipeline Workflow updated in place (a `kubernetes_manifest` of kind Workflow with action update). The pipeline's
 * Workflow name carries its spec hash (jobs/argo.ts workflowName), so a change of what the run does should make a new
 * Workflow (a replace the review shows as a new run); an in-place update acts on the run already there.
 */
export const workflowUpdatedInPlace: Rule = {
  id: 'workflow-updated-in-place',
  summary: 'a pipeline Workflow is changed in place: Argo acts on the live object (shutdown, deadline, templates by name)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.type !== 'kubernetes_manifest' || c.action !== 'update') return [];
      const kind = (v: unknown) => (isObj(v) && isObj(v.manifest) ? v.manifest.kind : undefined);
      if (kind(c.before) !== 'Workflow' && kind(c.after) !== 'Workflow') return [];
      const paths = c.attributes.map((a) => a.path).filter((p) => p.startsWith('manifest.'));
      const effects = EFFECTS.filter((e) => paths.some((p) => e.path.test(p))).map((e) => e.effect);
      const other = paths.filter((p) => !EFFECTS.some((e) => e.path.test(p)));
      const said = [...effects, ...(other.length ? [`also changed: ${other.slice(0, 6).join(', ')}${other.length > 6 ? `, ${other.length - 6} more` : ''}`] : [])];
      return [finding('workflow-updated-in-place', 'error', { stack: plan.stack, address: c.address },
        `the pipeline Workflow is updated in place, and Argo v4.1.2 acts on the live object at its next reconcile (operator.go l.163-174)${said.length ? `: ${said.join('; ')}` : ''}`,
        'change the run through a new runId (a new Workflow), or stop it on purpose with `argo stop`; never by editing a Workflow that may run')];
    }),
};
