/**
 * Kueue behaviour over everything the app synthesizes (model: __tests__/models/kueue.ts, Kueue v0.19.2): every pod
 * set of every pipeline JobSet is admitted to the flavor of the pool it targets, and the pod Kueue then releases can
 * be scheduled on a node of that pool. Plus the chart's webhooks (charts/kueue/templates/webhook/manifests.yaml @
 * v0.19.2): only the integrations in use are enabled.
 */
import { admitWorkload, admittedPod, assignFlavor, effectiveRecoveryTimeout, neverReady, podRequests, recoveries, schedulableOn } from './kueue';
import { durationSeconds } from '../../review/values';
import { allConfigurations, CONFIGURATIONS, Obj, podSets, synthesize } from './synthesized';
import { TPU_RESOURCE } from '../../jobs/tpu';

const configs = allConfigurations();

describe.each(configs)('Kueue admits and places every pod set (%s)', (_name, synth) => {
  const cq = synth.kueueObjects.find((o) => o.kind === 'ClusterQueue')!;
  const flavors = synth.kueueObjects.filter((o) => o.kind === 'ResourceFlavor');
  const cases = synth.jobSets.flatMap((js) => podSets(js.manifest).map((ps) => [`${js.manifest.metadata.name}/${ps.name}`, js, ps] as const));

  test.each(cases)('%s', (_label, js, ps) => {
    const decision = admitWorkload(cq, flavors, podSets(js.manifest))[ps.name];
    expect({ flavor: decision.flavor, reasons: decision.reasons }).toEqual({ flavor: expect.any(String), reasons: expect.any(Array) });
    const flavor = flavors.find((f) => f.metadata.name === decision.flavor)!;
    const pod = admittedPod(ps.pod, flavor);
    const pools = synth.nodePools.filter((p) => schedulableOn(pod, p));
    expect(pools.map((p) => p.name)).not.toEqual([]);
    const wantsTpu = (podRequests(ps.pod)[TPU_RESOURCE] ?? 0) > 0;
    // A CPU pod never lands on a TPU flavor (it would hold TPU quota and wait for a TPU node forever), and every
    // node it may then run on is a CPU node; a TPU pod only on the flavor of its own slice shape.
    for (const pool of pools) expect(pool.labels['cloud.google.com/gke-tpu-accelerator'] !== undefined).toBe(wantsTpu);
    if (wantsTpu) {
      expect(flavor.spec.nodeLabels).toEqual({
        'cloud.google.com/gke-tpu-accelerator': ps.pod.nodeSelector['cloud.google.com/gke-tpu-accelerator'],
        'cloud.google.com/gke-tpu-topology': ps.pod.nodeSelector['cloud.google.com/gke-tpu-topology'],
      });
    } else {
      expect(flavor.spec.nodeLabels).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    }
  });
});

describe('the model catches what Kueue would really do', () => {
  const synth = synthesize(CONFIGURATIONS['single host asked for']);
  const cq = synth.kueueObjects.find((o) => o.kind === 'ClusterQueue')!;
  const flavors = synth.kueueObjects.filter((o) => o.kind === 'ResourceFlavor');
  const train = synth.jobSets.find((j) => j.manifest.metadata.name === 'rl-qwen3-r1-train')!;
  const [head, workers] = podSets(train.manifest);

  test('the earlier flavor design (accelerator label only, flavor tolerations) put the CPU head on the TPU flavor', () => {
    const old: Obj = {
      metadata: { name: 'flavor-tpu-v6e-slice' },
      spec: {
        nodeLabels: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice' },
        tolerations: [{ key: 'google.com/tpu', operator: 'Equal', value: 'present', effect: 'NoSchedule' }],
      },
    };
    const oldCq = { spec: { resourceGroups: [{ ...cq.spec.resourceGroups[0], flavors: [{ ...cq.spec.resourceGroups[0].flavors[0], name: old.metadata.name }, ...cq.spec.resourceGroups[0].flavors.slice(1)] }] } };
    const decision = assignFlavor(oldCq, [old, ...flavors], head.pod, head.count);
    expect(decision.flavor).toBe('flavor-tpu-v6e-slice');
    // ... and the pod it releases selects cpu-np AND the TPU accelerator: no node has both.
    expect(synth.nodePools.filter((p) => schedulableOn(admittedPod(head.pod, old), p))).toEqual([]);
  });

  test('today the head passes over the TPU flavors because of their taint and lands on cpu-np', () => {
    const decision = assignFlavor(cq, flavors, head.pod, head.count);
    expect(decision.flavor).toBe('cpu-np');
    expect(decision.reasons[0]).toMatch(/^untolerated taint google\.com\/tpu=present:NoSchedule in flavor tpu-v6e-32$/);
  });

  test('a 2x4 pod set cannot take 4x8 quota, and a second 4x8 workload waits while one holds the slice', () => {
    const only4x8 = flavors.filter((f) => f.spec.nodeLabels['cloud.google.com/gke-tpu-topology'] !== '2x4');
    const pod2x4 = { ...workers.pod, nodeSelector: { ...workers.pod.nodeSelector, 'cloud.google.com/gke-tpu-topology': '2x4' } };
    expect(assignFlavor(cq, only4x8, pod2x4, 1).flavor).toBeUndefined();
    const usage = { 'tpu-v6e-32': { [TPU_RESOURCE]: 32 } };
    expect(assignFlavor(cq, flavors, workers.pod, workers.count, usage)).toEqual({
      reasons: expect.arrayContaining(['insufficient quota for google.com/tpu in flavor tpu-v6e-32', "flavor tpu-v6e-8-8t doesn't match node affinity"]),
    });
  });
});

describe('the Kueue chart gets only the integrations the pipelines use', () => {
  // charts/kueue/templates/webhook/manifests.yaml @ v0.19.2: mpod/mdeployment/mstatefulset get failurePolicy Fail
  // exactly when "pod"/"deployment"/"statefulset" are in integrations.frameworks (else Ignore).
  const FAIL_CLOSED_WHEN_LISTED = ['pod', 'deployment', 'statefulset'];
  const FRAMEWORK_OF_KIND: Record<string, string> = { JobSet: 'jobset.x-k8s.io/jobset', Job: 'batch/job' };

  test.each(configs)('%s', (_name, synth) => {
    const frameworks: string[] = synth.kueueManagerConfig.integrations.frameworks;
    const used = new Set(synth.jobSets.map((j) => FRAMEWORK_OF_KIND[j.manifest.kind]));
    expect(new Set(frameworks)).toEqual(used.size > 0 ? used : new Set(['jobset.x-k8s.io/jobset']));
    expect(frameworks.filter((f) => FAIL_CLOSED_WHEN_LISTED.includes(f))).toEqual([]);
  });
});

describe('pods that never become ready give the quota back (waitForPodsReady, Kueue v0.19.2)', () => {
  const synth = synthesize({});
  const admissions = neverReady(synth.kueueManagerConfig);

  test('the chart values carry waitForPodsReady explicitly (jobs/kueue.ts PODS_READY)', () => {
    expect(synth.kueueManagerConfig.waitForPodsReady).toEqual({
      timeout: '20m',
      recoveryTimeout: '0s',
      blockAdmission: false,
      requeuingStrategy: { timestamp: 'Eviction', backoffLimitCount: 3, backoffBaseSeconds: 60, backoffMaxSeconds: 3600 },
    });
  });

  test('each admission is evicted with PodsReadyTimeout within 30 minutes and requeued k of n; then the workload is deactivated', () => {
    const limit = synth.kueueManagerConfig.waitForPodsReady.requeuingStrategy.backoffLimitCount;
    expect(limit).toBeGreaterThan(0);
    expect(admissions.map((a) => a.outcome)).toEqual([...Array(limit).fill('evicted PodsReadyTimeout'), 'deactivated RequeuingLimitExceeded']);
    expect(admissions.map((a) => a.requeueCount)).toEqual([...Array.from({ length: limit }, (_, i) => i + 1), limit]);
    for (const a of admissions) expect(a.releasedAtSeconds - a.admittedAtSeconds).toBeLessThanOrEqual(30 * 60);
  });

  test("Kueue's v1beta2 default (no waitForPodsReady key) would requeue without end; the explicit bound ends it", () => {
    const { waitForPodsReady: _omitted, ...defaults } = synth.kueueManagerConfig;
    expect(neverReady(defaults, 20).every((a) => a.outcome === 'evicted PodsReadyTimeout')).toBe(true);
  });

  test("every TPU step's deploy wait outlasts Kueue's requeuing of a never-ready workload plus every attempt", () => {
    const requeuing = admissions[admissions.length - 1].releasedAtSeconds;
    for (const j of synth.jobSets) {
      const deadline = Math.max(...j.manifest.spec.replicatedJobs.map((rj: Obj) => rj.template.spec.activeDeadlineSeconds));
      const attempts = (j.manifest.spec.failurePolicy.maxRestarts + 1) * deadline;
      expect(durationSeconds(j.raw.timeouts.create)!).toBeGreaterThanOrEqual(requeuing + attempts);
    }
  });
});

// Configurations with a Pathways pipeline (the v6e-8 examples run McJAX only: no head to admit).
const withHeads = configs.filter(([, synth]) => synth.jobSets.some((j) => podSets(j.manifest).some((ps) => ps.name === 'pathways-head')));

describe.each(withHeads)('CPU admission matches placement: a Pathways head counts as a whole cpu-np node (%s)', (_name, synth) => {
  const cq = synth.kueueObjects.find((o) => o.kind === 'ClusterQueue')!;
  const cpuFlavor = cq.spec.resourceGroups[0].flavors.find((f: Obj) => f.resources.find((r: Obj) => r.name === TPU_RESOURCE).nominalQuota === 0);
  const quota = podRequests({ containers: [{ resources: { requests: { cpu: String(cpuFlavor.resources.find((r: Obj) => r.name === 'cpu').nominalQuota) } } }] }).cpu;
  const cpuPool = synth.nodePools.find((p) => p.name === 'cpu-np')!;
  const heads = synth.jobSets.flatMap((j) => podSets(j.manifest).filter((ps) => ps.name === 'pathways-head'));

  test.each(heads.map((h, i) => [i, h] as const))('head %s: the quota admits exactly as many heads as the pool has nodes, and each fits its node', (_i, head) => {
    const perHead = podRequests(head.pod).cpu;
    expect(Math.floor(quota / perHead)).toBe(cpuPool.raw.autoscaling.total_max_node_count);
    expect(head.pod.containers.length + (head.pod.initContainers ?? []).length).toBe(3);
  });

  test('every pod that can land on the autoscaled CPU pool opts out of scale-down eviction', () => {
    for (const j of synth.jobSets) {
      for (const rj of j.manifest.spec.replicatedJobs) {
        expect(rj.template.spec.template.metadata.annotations['cluster-autoscaler.kubernetes.io/safe-to-evict']).toBe('false');
      }
    }
  });
});

describe('a slow recovery never costs the run its requeues (recoveryTimeout none, Kueue v0.19.2)', () => {
  const HOUR = 3600;
  const training = configs.flatMap(([name, synth]) =>
    synth.jobSets.filter((j) => j.manifest.metadata.labels['tpu-post-training/step'] === 'train').map((j) => [`${name}: ${j.manifest.metadata.name}`, synth, j.manifest] as const),
  );

  test.each(training)('%s survives one 3-hour outage and maxRestarts outages of 45 minutes each, not deactivated', (_label, synth, js) => {
    const max = js.spec.failurePolicy.maxRestarts;
    expect(max).toBeGreaterThan(0);
    expect(effectiveRecoveryTimeout(synth.kueueManagerConfig)).toBeUndefined();
    expect(recoveries(synth.kueueManagerConfig, [3 * HOUR, ...Array(max).fill(45 * 60)])).toEqual({ evictions: 0, requeueCount: 0 });
    // ... and a workload that never starts is still evicted and finally deactivated (the quota goes back).
    expect(neverReady(synth.kueueManagerConfig).map((a) => a.outcome).pop()).toBe('deactivated RequeuingLimitExceeded');
  });

  test('the model tells them apart: with the previous 20-minute recovery timeout, one outage of 88 minutes deactivated the training', () => {
    const cfg = synthesize({}).kueueManagerConfig;
    const old = { ...cfg, waitForPodsReady: { ...cfg.waitForPodsReady, recoveryTimeout: '20m' } };
    // 3 x (20 min timeout + backoff 1, 2, 4 min) + the 4th 20 min: deactivated 87 minutes after the loss.
    expect(recoveries(old, [88 * 60])).toEqual({ evictions: 3, requeueCount: 3, deactivatedAtSeconds: 87 * 60 });
    expect(recoveries(old, [86 * 60]).deactivatedAtSeconds).toBeUndefined();
    expect(recoveries(old, [45 * 60, 45 * 60]).deactivatedAtSeconds).toBeDefined();
    expect(recoveries(old, Array(4).fill(25 * 60)).deactivatedAtSeconds).toBeDefined();
    // A missing key means recoveryTimeout = timeout (defaults.go), not none.
    const { recoveryTimeout: _r, ...missing } = cfg.waitForPodsReady;
    expect(effectiveRecoveryTimeout({ waitForPodsReady: missing })).toBe(20 * 60);
  });
});
