/**
 * Kueue behaviour over everything the app synthesizes (model: __tests__/models/kueue.ts, Kueue v0.19.2): every pod
 * set of every pipeline JobSet is admitted to the flavor of the pool it targets, and the pod Kueue then releases can
 * be scheduled on a node of that pool. Plus the chart's webhooks (charts/kueue/templates/webhook/manifests.yaml @
 * v0.19.2): only the integrations in use are enabled.
 */
import {
  admissionTimeline,
  AdmissionTimeline,
  admitWorkload,
  admittedPod,
  assignFlavor,
  checksFor,
  effectiveRecoveryTimeout,
  neverReady,
  podRequests,
  provisioningCheckState,
  provisioningPodSets,
  ProvisioningOutcome,
  recoveries,
  schedulableOn,
} from './kueue';
import { allConfigurations, CONFIGURATIONS, Obj, podSets, Synthesized, synthesize } from './synthesized';
import { TPU_RESOURCE } from '../../jobs/tpu';

/** Both slices on flex-start, as the golden 'flex-start' configuration: every TPU pool queued. */
const FLEX_START = { TPU_CAPACITY: 'flex-start', SINGLE_HOST_CAPACITY: 'flex-start' };
const configs: Array<[string, Synthesized]> = [...allConfigurations(), ['flex-start (both slices)', synthesize(FLEX_START)]];

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
      expect(j.waitSeconds).toBeGreaterThanOrEqual(requeuing + attempts);
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

describe('flex-start: Kueue admits a workload only once GKE has provisioned its slice (ProvisioningRequest check, Kueue v0.19.2)', () => {
  const HOUR = 3600;
  const MIN = 60;
  const flex = synthesize(FLEX_START);
  const objects = (synth: Synthesized) => ({
    cq: synth.kueueObjects.find((o) => o.kind === 'ClusterQueue')!,
    flavors: synth.kueueObjects.filter((o) => o.kind === 'ResourceFlavor'),
    checks: synth.kueueObjects.filter((o) => o.kind === 'AdmissionCheck'),
    configs: synth.kueueObjects.filter((o) => o.kind === 'ProvisioningRequestConfig'),
    managerConfig: synth.kueueManagerConfig,
  });
  const jobSet = (synth: Synthesized, name: string) => synth.jobSets.find((j) => j.manifest.metadata.name === name)!.manifest;
  const timeline = (synth: Synthesized, js: Obj, gke: (k: number) => ProvisioningOutcome, ready: (n: number) => number | undefined, extra: { revokedAfterAdmission?: number } = {}) =>
    admissionTimeline({ ...objects(synth), sets: podSets(js), gke, podsReadyAfterAdmission: ready, workloadName: 'jobset-w', ...extra });
  const kinds = (t: AdmissionTimeline) => t.events.map((e) => e.event);
  const at = (t: AdmissionTimeline, event: string) => t.events.filter((e) => e.event === event).map((e) => e.at);
  const train = jobSet(flex, 'rl-qwen3-r1-train');

  test.each(configs)('the queued pools are exactly the flavors with a check (%s)', (_name, synth) => {
    const { cq, flavors } = objects(synth);
    const queued = synth.nodePools.filter((p) => p.raw.queued_provisioning?.enabled === true);
    const flavorOf = (pool: (typeof queued)[number]) =>
      flavors.find((f) => Object.entries(f.spec.nodeLabels).every(([k, v]) => pool.labels[k] === v) && f.spec.nodeTaints)!.metadata.name;
    const checked = (cq.spec.admissionChecksStrategy?.admissionChecks ?? []).flatMap((c: Obj) => c.onFlavors);
    expect(queued.map(flavorOf).sort()).toEqual([...checked].sort());
    expect(queued.length > 0).toBe(synth === flex);
  });

  test('every TPU workload gets the check of its own flavor, and its request holds the TPU pod sets only (no Pathways head)', () => {
    const { cq, flavors, configs: prcs } = objects(flex);
    let tpuWorkloads = 0;
    for (const { manifest } of flex.jobSets) {
      const sets = podSets(manifest);
      const decisions = admitWorkload(cq, flavors, sets);
      const assigned = Object.values(decisions).map((d) => d.flavor!);
      const tpuSets = sets.filter((ps) => (podRequests(ps.pod)[TPU_RESOURCE] ?? 0) > 0);
      const checks = checksFor(cq, assigned);
      const label = manifest.metadata.name;
      if (tpuSets.length === 0) {
        expect({ label, checks }).toEqual({ label, checks: [] });
        continue;
      }
      tpuWorkloads += 1;
      const tpuFlavors = [...new Set(tpuSets.map((ps) => decisions[ps.name].flavor))];
      expect({ label, checks }).toEqual({ label, checks: tpuFlavors.map((f) => `${f}-provisioning`) });
      const prc = prcs.find((p) => p.metadata.name === checks[0])!;
      expect({ label, held: provisioningPodSets(prc, sets) }).toEqual({ label, held: tpuSets.map((ps) => ps.name) });
    }
    expect(tpuWorkloads).toBeGreaterThan(0);
    expect(provisioningPodSets(objects(flex).configs[0], podSets(train))).toEqual(['worker']);
  });

  test("the request's pod template (the pod with its flavor's labels and tolerations, as Kueue creates it) fits its queued pool only", () => {
    const { cq, flavors } = objects(flex);
    const sets = podSets(train);
    const worker = sets.find((ps) => ps.name === 'worker')!;
    const flavor = flavors.find((f) => f.metadata.name === admitWorkload(cq, flavors, sets).worker.flavor)!;
    const template = admittedPod(worker.pod, flavor);
    expect(flex.nodePools.filter((p) => schedulableOn(template, p)).map((p) => p.name)).toEqual(['tpu-v6e-32-0']);
    // Without the flavor's toleration the pod would never run on the queued nodes GKE brings up.
    expect(flex.nodePools.filter((p) => schedulableOn(worker.pod, p)).map((p) => p.name)).toEqual([]);
  });

  test('(a) a 3-hour provisioning wait: quota reserved at once, Admitted only at Provisioned, no PodsReady timeout while waiting', () => {
    const t = timeline(flex, train, () => ({ provisionedAfterSeconds: 3 * HOUR }), () => 10 * MIN);
    expect(t.events).toEqual([
      { at: 0, event: 'QuotaReserved' },
      { at: 0, event: 'ProvisioningRequestCreated', detail: 'jobset-w-tpu-v6e-32-provisioning-1' },
      { at: 3 * HOUR, event: 'Admitted' },
      { at: 3 * HOUR + 10 * MIN, event: 'PodsReady' },
    ]);
    expect(t.podsReadyRequeueCount).toBe(0);
  });

  test('(a) no provisioning wait, however long, times the workload out: the start window opens at Admitted', () => {
    for (const wait of [0, 19 * MIN, 21 * MIN, HOUR, 3 * HOUR, 24 * HOUR, 7 * 24 * HOUR]) {
      const t = timeline(flex, train, () => ({ provisionedAfterSeconds: wait }), () => 15 * MIN);
      expect({ wait, events: kinds(t) }).toEqual({ wait, events: ['QuotaReserved', 'ProvisioningRequestCreated', 'Admitted', 'PodsReady'] });
    }
  });

  test('the model tells them apart: without the check (the earlier design) a slice that takes 3 hours is evicted at 20 minutes, and the run deactivated', () => {
    const { admissionChecksStrategy: _dropped, ...spec } = objects(flex).cq.spec;
    const without: Synthesized = { ...flex, kueueObjects: flex.kueueObjects.map((o) => (o.kind === 'ClusterQueue' ? { ...o, spec } : o)) };
    // Admitted on quota alone; the pods wait for the slice (3 h from the first admission) and then start (10 min).
    const t = timeline(without, train, () => ({}), () => 3 * HOUR + 10 * MIN);
    expect(at(t, 'Admitted')[0]).toBe(0);
    expect(at(t, 'EvictedPodsReadyTimeout')[0]).toBe(20 * MIN);
    expect(kinds(t).pop()).toBe('DeactivatedRequeuingLimitExceeded');
  });

  test('(b) once Provisioned, the normal start window applies: pods never ready -> evicted 20 minutes after Admitted, a new request each time, then deactivated', () => {
    const t = timeline(flex, train, (k) => ({ provisionedAfterSeconds: k === 1 ? 3 * HOUR : 5 * MIN }), () => undefined);
    expect(at(t, 'Admitted')[0]).toBe(3 * HOUR);
    expect(at(t, 'EvictedPodsReadyTimeout')[0]).toBe(3 * HOUR + 20 * MIN);
    expect(kinds(t)).toEqual([
      ...['QuotaReserved', 'ProvisioningRequestCreated', 'Admitted', 'EvictedPodsReadyTimeout'],
      ...['QuotaReserved', 'ProvisioningRequestCreated', 'Admitted', 'EvictedPodsReadyTimeout'],
      ...['QuotaReserved', 'ProvisioningRequestCreated', 'Admitted', 'EvictedPodsReadyTimeout'],
      ...['QuotaReserved', 'ProvisioningRequestCreated', 'Admitted', 'DeactivatedRequeuingLimitExceeded'],
    ]);
    // A Ready check is reset without its retry count: every request after a PodsReady eviction is attempt 1 again.
    expect(t.events.filter((e) => e.event === 'ProvisioningRequestCreated').map((e) => e.detail)).toEqual(Array(4).fill('jobset-w-tpu-v6e-32-provisioning-1'));
    expect(t.podsReadyRequeueCount).toBe(3);
  });

  test('(c) GKE fails the request: retried after 60, 120, 240 s with the quota given back, the 4th failure deactivates; PodsReady requeues untouched', () => {
    const t = timeline(flex, train, () => ({ failedAfterSeconds: 30 * MIN }), () => 10 * MIN);
    expect(t.events.filter((e) => e.event === 'ProvisioningRequestCreated').map((e) => e.detail)).toEqual([1, 2, 3, 4].map((n) => `jobset-w-tpu-v6e-32-provisioning-${n}`));
    expect(t.events.filter((e) => e.event === 'EvictedAdmissionCheckRetry').map((e) => e.detail)).toEqual(
      [60, 120, 240].map((s) => `tpu-v6e-32-provisioning requeued after ${s}s`),
    );
    expect(at(t, 'QuotaReserved')).toEqual([0, 30 * MIN + 60, 60 * MIN + 180, 90 * MIN + 420]);
    expect(t.events[t.events.length - 1]).toEqual({ at: 120 * MIN + 420, event: 'DeactivatedAdmissionCheckRejected', detail: 'tpu-v6e-32-provisioning' });
    expect(kinds(t)).not.toContain('Admitted');
    expect(t.podsReadyRequeueCount).toBe(0);
    // Two failures, then the slice: admitted on the third request.
    const third = timeline(flex, train, (k) => (k < 3 ? { failedAfterSeconds: HOUR } : { provisionedAfterSeconds: 2 * HOUR }), () => 10 * MIN);
    expect(kinds(third).slice(-2)).toEqual(['Admitted', 'PodsReady']);
    expect(third.events.filter((e) => e.event === 'ProvisioningRequestCreated').pop()!.detail).toBe('jobset-w-tpu-v6e-32-provisioning-3');
    expect(at(third, 'Admitted')[0]).toBe(HOUR + 60 + HOUR + 120 + 2 * HOUR);
  });

  test('(c) BookingExpired before admission retries like Failed; after admission Kueue ignores it; CapacityRevoked deactivates a running workload', () => {
    const prc = objects(flex).configs[0];
    const pending = { admitted: false, active: true, finished: false };
    const admitted = { admitted: true, active: true, finished: false };
    expect(provisioningCheckState(prc, { conditions: ['Provisioned', 'BookingExpired'], attempt: 1 }, { prior: 'Pending', retryCount: 0 }, pending)).toEqual({ state: 'Retry', requeueAfterSeconds: 60 });
    expect(provisioningCheckState(prc, { conditions: ['Provisioned', 'BookingExpired'], attempt: 4 }, { prior: 'Pending', retryCount: 3 }, pending)).toEqual({ state: 'Rejected' });
    expect(provisioningCheckState(prc, { conditions: ['Provisioned', 'BookingExpired'], attempt: 1 }, { prior: 'Ready', retryCount: 0 }, admitted)).toEqual({ state: 'Ready' });
    expect(provisioningCheckState(prc, { conditions: ['Failed'], attempt: 3 }, { prior: 'Pending', retryCount: 2 }, pending)).toEqual({ state: 'Retry', requeueAfterSeconds: 240 });
    const revoked = timeline(flex, train, () => ({ provisionedAfterSeconds: HOUR }), () => 10 * MIN, { revokedAfterAdmission: 5 * HOUR });
    expect(revoked.events[revoked.events.length - 1]).toEqual({ at: 6 * HOUR, event: 'DeactivatedAdmissionCheckRejected', detail: 'tpu-v6e-32-provisioning CapacityRevoked' });
  });

  test.each([['example', CONFIGURATIONS.example], ['spot', CONFIGURATIONS.spot], ['two slices', CONFIGURATIONS['two slices']]] as const)(
    '(d) %s: no check, admitted when quota is reserved, the 20-minute start window from then, as before',
    (_name, env) => {
      const synth = synthesize(env);
      expect(objects(synth).checks).toEqual([]);
      const js = jobSet(synth, 'rl-qwen3-r1-train');
      const fine = timeline(synth, js, () => ({ provisionedAfterSeconds: 3 * HOUR }), () => 10 * MIN);
      expect(fine.events).toEqual([
        { at: 0, event: 'QuotaReserved' },
        { at: 0, event: 'Admitted' },
        { at: 10 * MIN, event: 'PodsReady' },
      ]);
      // Never ready: the same evictions and deactivation as the waitForPodsReady model (neverReady).
      const stuck = timeline(synth, js, () => ({}), () => undefined);
      const expected = neverReady(synth.kueueManagerConfig);
      expect(at(stuck, 'Admitted')).toEqual(expected.map((a) => a.admittedAtSeconds));
      expect([...at(stuck, 'EvictedPodsReadyTimeout'), ...at(stuck, 'DeactivatedRequeuingLimitExceeded')]).toEqual(expected.map((a) => a.releasedAtSeconds));
    },
  );
});
