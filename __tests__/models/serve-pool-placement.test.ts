/**
 * A serve stack's v6e-8 pool (sft-gemma4's server) and Kueue's 2x4 flavor (rl-llama3's training) (docs/operations.md "Querying a served model"). Kueue v0.19
 * matches a flavor on its own node labels only (jobs/kueue.ts), and the pods it admits get the flavor's nodeLabels as
 * their node selector; the kube-scheduler then places a pod on a node whose labels hold its selector and whose
 * NoSchedule taints it tolerates (Kubernetes "Taints and Tolerations", "Assigning Pods to Nodes"). Without a label and
 * taint of its own, the serving pool's node (GKE labels it with the accelerator and the topology, and taints it
 * google.com/tpu, as every TPU node) would take a pipeline's v6e-8 pod. With them (jobs/serve.ts servePoolTaint), only the
 * server lands there.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { buildApp } from '../../stacks/app';

type Json = Record<string, any>;
const deployment = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'acme-v6e-8', SERVE: 'sft-gemma4', PIPELINES: 'rl-llama3,sft-gemma4' } });
const app = buildApp(deployment, { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-serve-pool-')) });
const serve = JSON.parse(Testing.synth(app.node.findChild('serve-sft-gemma4') as TerraformStack));
const [pool] = Object.values<Json>(serve.resource.google_container_node_pool);
const server = Object.values<Json>(serve.resource.kubernetes_manifest).find((m) => m.manifest.kind === 'Deployment')!.manifest.spec.template.spec;

/** The serving pool's node as GKE makes it: the TPU labels of its machine and topology, the pool's own, and its taints. */
const node = {
  labels: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '2x4', 'cloud.google.com/gke-nodepool': pool.name, ...(pool.node_config.labels ?? {}) },
  taints: (pool.node_config.taint as Json[]).map((t) => ({ key: t.key, value: t.value, effect: t.effect === 'NO_SCHEDULE' ? 'NoSchedule' : t.effect })),
};

/** The scheduler's two checks that matter here: the node selector, and every NoSchedule taint tolerated. */
function schedulable(pod: { nodeSelector?: Json; tolerations?: Json[] }): boolean {
  const selected = Object.entries(pod.nodeSelector ?? {}).every(([k, v]) => node.labels[k] === v);
  const tolerates = (t: Json) => (pod.tolerations ?? []).some((o) => o.key === t.key && (o.operator === 'Exists' || o.value === t.value) && (!o.effect || o.effect === t.effect));
  return selected && node.taints.filter((t) => t.effect === 'NoSchedule').every(tolerates);
}

test('the serving pool is a v6e-8 2x4: the shape of Kueue\'s 2x4 flavor', () => {
  expect(pool.node_config.machine_type).toBe('ct6e-standard-8t');
  const flavor = deployment.queues.objects.find((o: Json) => o.kind === 'ResourceFlavor' && o.spec.nodeLabels?.['cloud.google.com/gke-tpu-topology'] === '2x4') as Json;
  expect(flavor).toBeDefined();
});

test("a pod Kueue admits to the 2x4 flavor cannot land on the serving pool; the server can", () => {
  const flavor = deployment.queues.objects.find((o: Json) => o.kind === 'ResourceFlavor' && o.spec.nodeLabels?.['cloud.google.com/gke-tpu-topology'] === '2x4') as Json;
  // What Kueue injects (the flavor's nodeLabels and tolerations) plus the pipeline pod's own TPU toleration.
  const llama = deployment.pipelines.find((p) => p.name === 'rl-llama3')!;
  const train = llama.steps.find((s) => s.name === 'train')!.manifest as Json;
  const podSpec = train.spec.replicatedJobs[0].template.spec.template.spec;
  const admitted = { nodeSelector: { ...(podSpec.nodeSelector ?? {}), ...flavor.spec.nodeLabels }, tolerations: [...(podSpec.tolerations ?? []), ...(flavor.spec.tolerations ?? [])] };
  expect(schedulable(admitted)).toBe(false);
  expect(schedulable(server)).toBe(true);
  // Without the pool's own taint (what earlier versions built), the admitted pod would have fit: the model can fail.
  const own = node.taints.filter((t) => t.key === 'tpu-post-training/serve');
  expect(own).toEqual([{ key: 'tpu-post-training/serve', value: 'sft-gemma4-serve', effect: 'NoSchedule' }]);
  node.taints = node.taints.filter((t) => t.key !== 'tpu-post-training/serve');
  expect(schedulable(admitted)).toBe(true);
});
