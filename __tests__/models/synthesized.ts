/**
 * Everything the app synthesizes, as the systems it drives would see it: the infra stack's node pools (with the
 * labels and taints GKE puts on their nodes, a queued pool's included), the Kueue objects and chart values, and every pipeline stack's
 * JobSets, for the configurations the behavioural models run over. Synthesized once per configuration per jest run
 * (the JSON through __tests__/util.ts's cache); each test file builds its own objects from it.
 */
import { Testing, TerraformStack } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { buildApp } from '../../stacks/app';
import { TPU_ACCELERATOR_LABEL, TPU_TOPOLOGY_LABEL, isTpuMachineType, supportedTopologies, tpuSlice } from '../../jobs/tpu';
import { cachedSynth, defaultOutdir } from '../util';

export type Obj = Record<string, any>;

/** The configurations every model runs over (env on top of config/example.json). */
export const CONFIGURATIONS: Readonly<Record<string, Record<string, string>>> = {
  example: {},
  'two slices': { CLUSTER_NODEPOOL_COUNT: '2' },
  'single host asked for': { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' },
  spot: { TPU_CAPACITY: 'spot', RESERVATION: '' },
  // The example configurations of docs/pipelines.md "Your own pipeline" (config/examples/), each on a v6e-8.
  'example sft-llama3-8b': { CONFIG_FILE: 'config/examples/sft-llama3-8b.json' },
  'example grpo-qwen3-8b': { CONFIG_FILE: 'config/examples/grpo-qwen3-8b.json' },
  'example lora-sft-gemma3-12b': { CONFIG_FILE: 'config/examples/lora-sft-gemma3-12b.json' },
  'example dpo-llama3-8b': { CONFIG_FILE: 'config/examples/dpo-llama3-8b.json' },
  'example grpo-own-data': { CONFIG_FILE: 'config/examples/grpo-own-data.json' },
  // Rehearsals (jobs/rehearsal.ts) of the four presets on the single-host pool, and of each example on its v6e-8.
  'rehearsals of the presets': { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: 'rl-qwen3,rl-gemma4,sft-gemma4,rl-llama3' },
  'rehearsal sft-llama3-8b': { CONFIG_FILE: 'config/examples/sft-llama3-8b.json', REHEARSE: 'sft-llama3-support' },
  'rehearsal grpo-qwen3-8b': { CONFIG_FILE: 'config/examples/grpo-qwen3-8b.json', REHEARSE: 'grpo-qwen3-math' },
  'rehearsal lora-sft-gemma3-12b': { CONFIG_FILE: 'config/examples/lora-sft-gemma3-12b.json', REHEARSE: 'lora-gemma3-support' },
  'rehearsal dpo-llama3-8b': { CONFIG_FILE: 'config/examples/dpo-llama3-8b.json', REHEARSE: 'dpo-llama3-orca' },
  'rehearsal grpo-own-data': { CONFIG_FILE: 'config/examples/grpo-own-data.json', REHEARSE: 'grpo-qwen3-metamath' },
};

export interface NodePoolModel {
  readonly name: string;
  readonly machineType: string;
  /** Labels every node of the pool carries (GKE's node pool, TPU accelerator and topology labels). */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: ReadonlyArray<{ key: string; value?: string; effect: string }>;
  readonly serviceAccount: string;
  readonly raw: Obj;
}

export interface JobSetModel {
  readonly stack: string;
  /** The Workflow's address, then `#<step>`: the JobSet is the manifest of the step's create template. */
  readonly address: string;
  readonly manifest: Obj;
  /** The step's create template in the Workflow. */
  readonly raw: Obj;
  /** How long the Workflow watches the step's JobSet, seconds (its wait template's activeDeadlineSeconds). */
  readonly waitSeconds: number;
}

export interface Synthesized {
  readonly stacks: Readonly<Record<string, Obj>>;
  readonly infra: Obj;
  readonly nodePools: readonly NodePoolModel[];
  readonly kueueObjects: readonly Obj[];
  readonly kueueManagerConfig: Obj;
  readonly jobSets: readonly JobSetModel[];
}

const EFFECTS: Record<string, string> = { NO_SCHEDULE: 'NoSchedule', NO_EXECUTE: 'NoExecute', PREFER_NO_SCHEDULE: 'PreferNoSchedule' };

function nodePool(raw: Obj): NodePoolModel {
  const machineType = raw.node_config.machine_type as string;
  const labels: Record<string, string> = { 'cloud.google.com/gke-nodepool': raw.name, ...(raw.node_config.labels ?? {}) };
  if (isTpuMachineType(machineType)) {
    const topology = raw.placement_policy?.tpu_topology ?? supportedTopologies(machineType)[0];
    const slice = tpuSlice(machineType, topology);
    labels[TPU_ACCELERATOR_LABEL] = slice.nodeSelector[TPU_ACCELERATOR_LABEL];
    labels[TPU_TOPOLOGY_LABEL] = topology;
  }
  const taints = (raw.node_config.taint ?? []).map((t: Obj) => ({ key: t.key, value: t.value, effect: EFFECTS[t.effect] ?? t.effect }));
  // GKE taints every node of a queued-provisioning pool by itself (GoogleCloudPlatform/cluster-toolkit v1.95.0
  // modules/compute/gke-node-pool/main.tf: "GKE automatically applies the taint"; its TPU test JobSets tolerate
  // cloud.google.com/gke-queued=true:NoSchedule), whether or not the pool declares it.
  if (raw.queued_provisioning?.enabled === true && !taints.some((t: Obj) => t.key === 'cloud.google.com/gke-queued')) {
    taints.push({ key: 'cloud.google.com/gke-queued', value: 'true', effect: 'NoSchedule' });
  }
  return { name: raw.name, machineType, labels, taints, serviceAccount: raw.node_config.service_account, raw };
}

const cache = new Map<string, Synthesized>();

/** Synthesizes the whole app for one configuration. */
export function synthesize(env: Record<string, string>): Synthesized {
  const key = JSON.stringify(env);
  const hit = cache.get(key);
  if (hit) return hit;
  const outdir = defaultOutdir();
  const texts = cachedSynth('every stack', env, outdir, () => {
    const app = buildApp(loadDeployment({ env }), { outdir });
    const all: Record<string, string> = {};
    for (const child of app.node.children) {
      if (child instanceof TerraformStack) all[child.node.id] = Testing.synth(child);
    }
    return JSON.stringify(all);
  });
  const stacks: Record<string, Obj> = {};
  for (const [id, text] of Object.entries(JSON.parse(texts) as Record<string, string>)) stacks[id] = JSON.parse(text);
  const infra = stacks.infra;
  const releases = Object.values(infra.resource.helm_release ?? {}) as Obj[];
  const queues = releases.find((r) => r.name === 'kueue-queues')!;
  const kueue = releases.find((r) => r.name === 'kueue')!;
  const jobSets: JobSetModel[] = [];
  for (const [stack, json] of Object.entries(stacks)) {
    for (const [name, raw] of Object.entries((json.resource?.kubernetes_manifest ?? {}) as Record<string, Obj>)) {
      if (raw.manifest.kind !== 'Workflow') continue;
      // The pipeline's JobSets are inside its Workflow (jobs/argo.ts): each create template carries one as JSON text.
      const templates = raw.manifest.spec.templates as Obj[];
      // Steps only: a create with its wait (a rehearsal's exit handler creates its verdict writer with no wait: argo.test.ts).
      for (const t of templates.filter((x) => x.resource?.action === 'create' && templates.some((w) => w.name === `${x.name}-wait`))) {
        const wait = templates.find((x) => x.name === `${t.name}-wait`)!;
        const manifest = JSON.parse(String(t.resource.manifest).replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{'));
        jobSets.push({ stack, address: `kubernetes_manifest.${name}#${t.name}`, manifest, raw: t, waitSeconds: wait.activeDeadlineSeconds });
      }
    }
  }
  const result: Synthesized = {
    stacks,
    infra,
    nodePools: Object.values(infra.resource.google_container_node_pool as Record<string, Obj>).map(nodePool),
    kueueObjects: JSON.parse(queues.values[0]).objects,
    kueueManagerConfig: JSON.parse(JSON.parse(kueue.values[0]).managerConfig.controllerManagerConfigYaml),
    jobSets,
  };
  deepFreeze(result); // shared by every test of a file: a model that wrote to it would change what the next one reads
  cache.set(key, result);
  return result;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/** Every configuration, synthesized. */
export function allConfigurations(): Array<[string, Synthesized]> {
  return Object.entries(CONFIGURATIONS).map(([name, env]) => [name, synthesize(env)]);
}

/** Pod sets of a JobSet as Kueue's JobSet integration builds them: one per replicated job, count = replicas x parallelism. */
export function podSets(manifest: Obj): Array<{ name: string; count: number; pod: Obj; job: Obj }> {
  return manifest.spec.replicatedJobs.map((r: Obj) => ({
    name: r.name,
    count: r.replicas * (r.template.spec.parallelism ?? 1),
    pod: r.template.spec.template.spec,
    job: r.template.spec,
  }));
}
