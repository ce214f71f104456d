/**
 * A pipeline Workflow is never updated in place: its name hashes its whole spec (jobs/argo.ts workflowName), so each
 * change the model below (__tests__/models/argo-live-update.ts, read at argoproj/argo-workflows v4.1.2) shows Argo
 * acting on mid-run, or ignoring once the run ended, is a new Workflow name, which kubernetes_manifest plans as a
 * replacement (a new run). The test first shows what each change would do in place, then that it renames.
 */
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { pipelineWorkflow, stepTasks, workflowName } from '../../jobs/argo';
import { sha256Of } from '../../jobs/spec-key';
import { testPlatform } from '../jobs/fixtures';
import { liveUpdateEffects } from './argo-live-update';

const platform = testPlatform();
const recipe = Object.values(RECIPES)[0];
const o = { systemPool: 'system' };
const build = (extra: Partial<Parameters<typeof buildPipeline>[2]> = {}): Pipeline => buildPipeline(recipe, platform, { ...extra, runId: 'r1' });
type Wf = { metadata: { name: string }; spec: Record<string, any> };
const wf = (p: Pipeline) => pipelineWorkflow(p, o) as unknown as Wf;

const base = build();
const first = base.steps[0];
const last = base.steps[base.steps.length - 1];

test('the name is the hash of the whole spec: an unchanged pipeline keeps it, workflowName agrees with the manifest', () => {
  expect(wf(build()).metadata.name).toBe(wf(base).metadata.name);
  expect(workflowName(base, o)).toBe(wf(base).metadata.name);
  expect(wf(base).metadata.name).toMatch(new RegExp(`^${base.name}-r1-[0-9a-f]{10}$`));
});

test('a raised queueMinutes changes no JobSet but the waits\' windows: in place, a finished run ignores it; the name changes', () => {
  const raised = build({ queueMinutes: 24 * 60 });
  expect(raised.steps.map((s) => s.manifest)).toEqual(base.steps.map((s) => s.manifest));
  const before = wf(base);
  const after = wf(raised);
  // In place on the Workflow that ended on a queue timeout: nothing runs (controller.go reconciliationNeeded).
  expect(liveUpdateEffects(before, after, { completed: true, runningSeconds: 0, startedTemplates: [] })).toEqual([
    { kind: 'ignored', why: 'completed Workflows are not reconciled (controller.go reconciliationNeeded)' },
  ]);
  // On a running one the new windows would apply to the steps not started yet (templates looked up by name).
  const running = liveUpdateEffects(before, after, { completed: false, runningSeconds: 60, startedTemplates: [stepTasks(first.name).wait] });
  expect(running).toContainEqual({ kind: 'template', name: stepTasks(first.name).wait, when: 'already-ran' });
  expect(running).toContainEqual({ kind: 'template', name: stepTasks(last.name).wait, when: 'next-start' });
  expect(after.metadata.name).not.toBe(before.metadata.name);
});

test('a deadline cut in place terminates a run already past it; the spec hash renames the Workflow instead', () => {
  const before = wf(base);
  const after: Wf = { ...before, spec: { ...before.spec, activeDeadlineSeconds: 60 } };
  expect(liveUpdateEffects(before, after, { completed: false, runningSeconds: 3600, startedTemplates: [] })).toEqual([
    { kind: 'deadline', deadlineSeconds: 60, terminatesNow: true },
  ]);
  expect(workflowNameOfSpec(after)).not.toBe(before.metadata.name);
});

test.each([
  ['shutdown: Terminate', (s: Record<string, any>) => ({ ...s, shutdown: 'Terminate' }), { kind: 'shutdown', strategy: 'Terminate' }],
  ['the steps run as the controller\'s account', (s: Record<string, any>) => ({ ...s, serviceAccountName: 'argo-workflows-workflow-controller' }), { kind: 'service-account', account: 'argo-workflows-workflow-controller' }],
  [
    'a hostPID JobSet in a step not started yet',
    (s: Record<string, any>) => ({
      ...s,
      templates: s.templates.map((t: any) =>
        t.name === stepTasks(last.name).create ? { ...t, resource: { ...t.resource, manifest: t.resource.manifest.replace('"spec":{', '"spec":{"hostPID":true,') } } : t,
      ),
    }),
    { kind: 'template', name: stepTasks(last.name).create, when: 'next-start' },
  ],
] as const)('in place, %s acts on the running Workflow; as a spec change it is a new name', (_label, edit, effect) => {
  const before = wf(base);
  const after: Wf = { ...before, spec: edit(before.spec) };
  expect(liveUpdateEffects(before, after, { completed: false, runningSeconds: 60, startedTemplates: [] })).toContainEqual(effect);
  expect(workflowNameOfSpec(after)).not.toBe(before.metadata.name);
});

/** The name jobs/argo.ts gives a Workflow whose spec is `w.spec` (same hash as workflowName). */
function workflowNameOfSpec(w: Wf): string {
  return `${base.name}-r1-${sha256Of(w.spec).slice(0, 10)}`;
}
