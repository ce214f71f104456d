/**
 * status/workflow.ts: the pipeline's Workflow and each step's create and wait tasks, as argoproj/argo-workflows v4.1.2
 * writes its status (nodes by id; a task with a retryStrategy is a Retry node whose children are the attempts;
 * compressedNodes when the object outgrows MAX_WORKFLOW_SIZE), and the line `npm run status` prints from it.
 */
import { gzipSync } from 'zlib';
import { engineLines, engineView, pipelineWorkflowOf, WorkflowObject } from '../../status/workflow';

const node = (displayName: string, phase: string, type = 'Retry', children: string[] = [], message?: string) => ({ displayName, phase, type, children, ...(message ? { message } : {}) });

function wf(nodes: Record<string, unknown>, phase = 'Running', extra: Record<string, unknown> = {}): WorkflowObject {
  return { metadata: { name: 'rl-qwen3-r1-0123456789', labels: { 'tpu-post-training/pipeline': 'rl-qwen3' }, creationTimestamp: '2026-12-01T00:00:00Z' }, status: { phase, nodes: nodes as never, ...extra } };
}
const STEPS = ['to-maxtext', 'train', 'to-hf', 'eval'];

test('training watched after a lost wait pod: conversion done, train on its second attempt, the rest not started', () => {
  const v = engineView(wf({
    a: node('to-maxtext', 'Succeeded'), b: node('to-maxtext-wait', 'Succeeded', 'Retry', ['b0']), b0: node('to-maxtext-wait(0)', 'Succeeded', 'Pod'),
    c: node('train', 'Succeeded'), d: node('train-wait', 'Running', 'Retry', ['d0', 'd1']), d0: node('train-wait(0)', 'Error', 'Pod', [], 'pod deleted'), d1: node('train-wait(1)', 'Running', 'Pod'),
  }), STEPS);
  expect(v.steps.map((s) => [s.step, s.create, s.wait, s.waitAttempts])).toEqual([
    ['to-maxtext', 'Succeeded', 'Succeeded', 1], ['train', 'Succeeded', 'Running', 2], ['to-hf', '', '', 0], ['eval', '', '', 0],
  ]);
  expect(engineLines(v)).toEqual(['engine: Workflow rl-qwen3-r1-0123456789 Running: to-maxtext ✓ → train watching (attempt 2) → to-hf · → eval ·']);
});

test('a failed step: the Workflow Failed, the step marked, the attempt\'s message shown', () => {
  const msg = "main: Error (exit code 64): failure condition 'status.terminalState == Failed' evaluated true";
  const v = engineView(wf({
    a: node('to-maxtext', 'Failed', 'Retry', [], 'AlreadyExists'), b: node('to-maxtext-wait', 'Succeeded'),
    c: node('train', 'Succeeded'), d: node('train-wait', 'Failed', 'Retry', ['d0'], 'retryStrategy.expression evaluated to false'), d0: node('train-wait(0)', 'Failed', 'Pod', [], msg),
  }, 'Failed', { message: 'child failed' }), STEPS);
  expect(engineLines(v)).toEqual([
    'engine: Workflow rl-qwen3-r1-0123456789 Failed: to-maxtext ✓ (JobSet was already there) → train ✗ → to-hf · → eval ·',
    `engine: train: ${msg}`,
  ]);
});

test('a flex-start step whose lost-host watcher spent the restart budget: its message, not the wait\'s "deleted", is shown', () => {
  const budget = 'main: Error (exit code 1): step train: 8 pod(s) of JobSet rl-qwen3-r1-train have had no node for 20 minutes on a flex-start slice, and its restart budget spent (3 JobSet restarts + 1 re-requested slices of maxRestarts 4): JobSet rl-qwen3-r1-train deleted, the step ends Failed; raise maxRestarts or deploy again';
  const gone = 'main: Error (exit code 64): The resource has been deleted while its status was still being checked. Will not be retried';
  const v = engineView(wf({
    a: node('to-maxtext', 'Succeeded'), b: node('to-maxtext-wait', 'Succeeded'),
    c: node('train', 'Succeeded'), d: node('train-wait', 'Failed', 'Retry', ['d0'], 'x'), d0: node('train-wait(0)', 'Failed', 'Pod', [], gone),
    e: node('train-watch', 'Failed', 'Retry', ['e0'], 'y'), e0: node('train-watch(0)', 'Failed', 'Pod', [], budget),
  }, 'Failed'), STEPS);
  expect(engineLines(v)).toEqual(['engine: Workflow rl-qwen3-r1-0123456789 Failed: to-maxtext ✓ → train ✗ → to-hf · → eval ·', `engine: train: ${budget}`]);
  // A watcher that is still running or succeeded changes nothing.
  const running = engineView(wf({ c: node('train', 'Succeeded'), d: node('train-wait', 'Running', 'Retry', ['d0']), d0: node('train-wait(0)', 'Running', 'Pod'), e: node('train-watch', 'Running') }), STEPS);
  expect(engineLines(running)).toEqual(['engine: Workflow rl-qwen3-r1-0123456789 Running: to-maxtext · → train watching → to-hf · → eval ·']);
});

test('compressed nodes are inflated; unreadable ones are said to be', () => {
  const nodes = { a: node('to-maxtext', 'Running', 'Retry') };
  const compressed = wf({}, 'Running', { nodes: undefined, compressedNodes: gzipSync(Buffer.from(JSON.stringify(nodes))).toString('base64') });
  expect(engineView(compressed, STEPS).steps[0]).toMatchObject({ create: 'Running' });
  const broken = engineView(wf({}, 'Running', { nodes: undefined, compressedNodes: 'not-gzip' }), STEPS);
  expect(engineLines(broken)[1]).toMatch(/^engine: compressedNodes could not be read/);
  expect(engineLines(engineView(wf({}, 'Running', { nodes: undefined, offloadNodeStatusVersion: 'x' }), STEPS))[1]).toBe("engine: the node status is offloaded to the controller's database");
});

test('the pipeline\'s newest Workflow is the one shown (a changed spec made a new one)', () => {
  const old = wf({});
  const newer = { ...wf({}), metadata: { ...old.metadata, name: 'rl-qwen3-r1-ffffffffff', creationTimestamp: '2026-12-02T00:00:00Z' } };
  const other = { ...wf({}), metadata: { name: 'x', labels: { 'tpu-post-training/pipeline': 'rl-gemma4' }, creationTimestamp: '2026-12-03T00:00:00Z' } };
  expect(pipelineWorkflowOf([old, newer, other], 'rl-qwen3')!.metadata.name).toBe('rl-qwen3-r1-ffffffffff');
  expect(pipelineWorkflowOf([other], 'rl-qwen3')).toBeUndefined();
});

test('a Workflow not started yet shows Pending', () => {
  const v = engineView({ metadata: { name: 'w' } }, STEPS);
  expect(engineLines(v)).toEqual(['engine: Workflow w Pending: to-maxtext · → train · → to-hf · → eval ·']);
});

test('a create the API server refused (a webhook unreachable past the retries): the create is the failure, not the wait\'s NotFound', () => {
  const refusal = 'main: Error (exit code 64): no more retries Error from server (InternalError): error when creating "/tmp/manifest.yaml": Internal error occurred: failed calling webhook "mjobset.kb.io": failed to call webhook: no endpoints available for service "jobset-webhook-service"';
  const notFound = 'main: Error (exit code 64): no more retries Error from server (NotFound): jobsets.jobset.x-k8s.io "rl-qwen3-r1-train" not found';
  const v = engineView(wf({
    a: node('to-maxtext', 'Succeeded'), b: node('to-maxtext-wait', 'Succeeded'),
    c: node('train', 'Failed', 'Retry', ['c0', 'c1']), c0: node('train(0)', 'Failed', 'Pod', [], refusal), c1: node('train(1)', 'Failed', 'Pod', [], refusal),
    d: node('train-wait', 'Failed', 'Retry', ['d0']), d0: node('train-wait(0)', 'Failed', 'Pod', [], notFound),
  }, 'Failed'), STEPS);
  expect(v.steps[1]).toMatchObject({ createRefused: true, message: refusal });
  expect(engineLines(v)).toEqual(['engine: Workflow rl-qwen3-r1-0123456789 Failed: to-maxtext ✓ → train ✗ → to-hf · → eval ·', `engine: train: ${refusal}`]);
  expect(engineLines(v).join('\n')).not.toContain('NotFound');
});
