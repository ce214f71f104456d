/**
 * What Argo Workflows v4.1.2 does when a Workflow object it already runs (or ran) is updated in place, read at
 * argoproj/argo-workflows@v4.1.2 (16a52d67daf2f4a8a76fa8bec02a76a46aa46257):
 * - workflow/controller/controller.go l.1113-1114 `reconciliationNeeded`: a Workflow labelled
 *   `workflows.argoproj.io/completed: "true"` (and without the artifact-GC finalizer) is not reconciled again: an update
 *   of a finished Workflow changes the object and runs nothing.
 * - workflow/controller/operator.go l.163-174 `newWorkflowOperationCtx`: every reconciliation works on a deep copy of
 *   the object in the informer's store, i.e. the live spec as last written, not the spec the run started with.
 * - operator.go l.486 (and `shutdownWorkflow`): `spec.shutdown` (Stop/Terminate) is read from that live spec.
 * - operator.go l.665-672 `getWorkflowDeadline`: the deadline is `status.startedAt + spec.activeDeadlineSeconds` of the
 *   live spec: a cut deadline already past terminates the run at the next reconciliation.
 * - operator.go l.2928: a node's template is looked up by name in the live spec (`GetTemplateByName`): a step that has
 *   not started yet runs the template as updated (its JobSet manifest, its pod's service account via
 *   `spec.serviceAccountName`); nodes already started are not re-run.
 * The model takes the Workflow before and after the update and the run's state and returns what the controller does.
 */

export interface LiveState {
  /** The completed label is "true" (the run ended). */
  readonly completed: boolean;
  /** Seconds since `status.startedAt`. */
  readonly runningSeconds: number;
  /** Template names whose nodes already started. */
  readonly startedTemplates: readonly string[];
}

export type LiveEffect =
  | { readonly kind: 'ignored'; readonly why: string }
  | { readonly kind: 'shutdown'; readonly strategy: string }
  | { readonly kind: 'deadline'; readonly terminatesNow: boolean; readonly deadlineSeconds: number | undefined }
  | { readonly kind: 'template'; readonly name: string; readonly when: 'next-start' | 'already-ran' }
  | { readonly kind: 'service-account'; readonly account: string };

type Wf = { spec?: Record<string, any> };

/** The effects of replacing `before` by `after` on the live object, in the order the controller meets them. */
export function liveUpdateEffects(before: Wf, after: Wf, state: LiveState): LiveEffect[] {
  if (state.completed) return [{ kind: 'ignored', why: 'completed Workflows are not reconciled (controller.go reconciliationNeeded)' }];
  const b = before.spec ?? {};
  const a = after.spec ?? {};
  const effects: LiveEffect[] = [];
  if (a.shutdown && a.shutdown !== b.shutdown) effects.push({ kind: 'shutdown', strategy: a.shutdown });
  if (a.activeDeadlineSeconds !== b.activeDeadlineSeconds) {
    const d = a.activeDeadlineSeconds as number | undefined;
    effects.push({ kind: 'deadline', deadlineSeconds: d, terminatesNow: d !== undefined && state.runningSeconds >= d });
  }
  if (a.serviceAccountName !== b.serviceAccountName) effects.push({ kind: 'service-account', account: a.serviceAccountName });
  const byName = (s: Record<string, any>) => new Map<string, string>((s.templates ?? []).map((t: any) => [t.name, JSON.stringify(t)]));
  const old = byName(b);
  for (const [name, text] of byName(a)) {
    if (old.get(name) === text) continue;
    effects.push({ kind: 'template', name, when: state.startedTemplates.includes(name) ? 'already-ran' : 'next-start' });
  }
  return effects;
}
