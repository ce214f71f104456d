/**
 * The JobSet builders' behaviour, asserted field by field with the upstream rule that needs it (the stack snapshots
 * and the golden test are only a tripwire: `jest -u` would accept any of these regressions there).
 *
 * Rules cited: JobSet v0.12.0 (api/jobset/v1alpha2/jobset_types.go: successPolicy, startupPolicy, coordinator,
 * network; pkg/controllers/failure_policy.go), the Kubernetes Job controller (pod template restartPolicy Never or
 * OnFailure; podFailurePolicy only with Never; completionMode Indexed gives each pod its completion index), native
 * sidecars (an init container with restartPolicy Always runs beside the main container and does not block the pod's
 * completion, KEP-753), and Pathways as xpk >= 1.8 emits it (src/xpk/templates/pathways_workload_create.yaml.j2, see
 * ../shared/reference/anchor-xpk-pathways-jobset.md §1.4).
 */
import {
  compact,
  cpuPodJobSet,
  JobSetCommon,
  MainContainer,
  multiHostJaxJobSet,
  pathwaysHeadResources,
  pathwaysJobSet,
  PATHWAYS_DEFAULTS,
  pullPolicy,
  tpuVmEnv,
} from '../../jobs/jobset';
import { tpuSlice } from '../../jobs/tpu';

const v6e32 = tpuSlice('ct6e-standard-4t', '4x8');
const v6e8 = tpuSlice('ct6e-standard-8t', '2x4');

const common: JobSetCommon = {
  name: 'rl-qwen3-r1-train',
  namespace: 'ml',
  pod: { pipeline: 'rl-qwen3', serviceAccountName: 'wl-ksa', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue', app: 'rl' } },
  maxRestarts: 3,
  activeDeadlineSeconds: 7200,
};
const main: MainContainer = {
  image: 'us-docker.pkg.dev/p/maxtext:0.2.4',
  script: 'python3 -m maxtext.train',
  env: { STEPS: '10' },
  resources: { requests: { cpu: '2' }, limits: { memory: '8Gi' } },
};

type Any = Record<string, any>;
const rjob = (m: Any, name: string): Any => m.spec.replicatedJobs.find((r: Any) => r.name === name);
const podSpec = (m: Any, name: string): Any => rjob(m, name).template.spec.template.spec;
const jobSpec = (m: Any, name: string): Any => rjob(m, name).template.spec;
const envMap = (c: Any): Record<string, string> =>
  Object.fromEntries((c.env ?? []).map((e: Any) => [e.name, e.value ?? `fieldRef:${e.valueFrom.fieldRef.fieldPath}`]));
const byName = (list: Any[], name: string): Any => {
  const found = list.find((c) => c.name === name);
  if (!found) throw new Error(`no ${name} in ${list.map((c) => c.name).join(', ')}`);
  return found;
};
const COORDINATOR_REF = "fieldRef:metadata.labels['jobset.sigs.k8s.io/coordinator']";

describe('Pathways JobSet (head + workers)', () => {
  // Built in beforeAll, not at describe time: a builder that throws then fails these tests instead of the file.
  let built: ReturnType<typeof pathwaysJobSet>;
  let m: Any, head: Any, proxy: Any, rm: Any, worker: Any;
  beforeAll(() => {
    built = pathwaysJobSet(common, main, {
      slice: v6e32,
      slices: 2,
      scratch: 'gs://b/tmp',
      headNodePool: 'cpu-np',
      proxyEnv: { PROXY_X: '1' },
      serverEnv: { SERVER_X: '2', TPU_SKIP_MDS_QUERY: 'false' },
      workerEnv: { WORKER_X: '3' },
    });
    m = built.manifest as Any;
    head = podSpec(m, 'pathways-head');
    proxy = byName(head.initContainers, 'pathways-proxy');
    rm = byName(head.initContainers, 'pathways-rm');
    worker = byName(podSpec(m, 'worker').containers, 'pathways-worker');
  });

  test('the JobSet succeeds when the head succeeds: workers serve forever and never complete', () => {
    // JobSet v0.12.0: successPolicy targetReplicatedJobs empty = all replicated jobs; the workers never exit, so
    // without the target the JobSet would never complete and the deploy's wait would time out.
    expect(m.spec.successPolicy).toEqual({ operator: 'All', targetReplicatedJobs: ['pathways-head'] });
  });

  test('proxy and resource manager are native sidecars (init containers with restartPolicy Always)', () => {
    // Kubernetes: a plain init container must exit before the main container starts (the proxy never exits, so the
    // pod would hang in Init); restartPolicy Always makes it a sidecar that does not block the Job's completion.
    expect(head.initContainers.map((c: Any) => [c.name, c.restartPolicy])).toEqual([
      ['pathways-proxy', 'Always'],
      ['pathways-rm', 'Always'],
    ]);
    // restartPolicy on a regular container is rejected by the API server (kubernetes#121498).
    for (const c of [...head.containers, worker]) expect(c.restartPolicy).toBeUndefined();
    expect(head.containers.map((c: Any) => c.name)).toEqual(['workload-container']);
  });

  test('the resource manager waits for one instance per slice, of the slice type', () => {
    // Pathways: --instance_count is the number of worker slices the RM waits for before it serves; a wrong count
    // hangs the head (too many) or ignores slices (too few). --instance_type is tpuv6e:<topology>.
    expect(rm.args).toEqual([
      '--server_port=29001',
      '--gcs_scratch_location=gs://b/tmp',
      '--node_type=resource_manager',
      '--instance_count=2',
      '--instance_type=tpuv6e:4x8',
    ]);
    expect(rm.image).toBe('us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest');
    expect(rm.imagePullPolicy).toBe('Always');
    expect(rm.ports).toEqual([
      { containerPort: 29001, protocol: 'TCP' },
      { containerPort: 29002, protocol: 'TCP' },
    ]);
    expect(rm.resources).toEqual({ limits: { cpu: '8', memory: '32Gi' } });
  });

  test('the resource manager finds itself at the coordinator address and skips the metadata server', () => {
    const env = envMap(rm);
    expect(env).toMatchObject({
      HOST_ADDRESS: COORDINATOR_REF,
      JOBSET_NAME: "fieldRef:metadata.annotations['jobset.sigs.k8s.io/jobset-name']",
      REPLICATED_JOB_NAME: "fieldRef:metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']",
      ABSL_FLAGS: '--pathways_pipe_unreachable_timeout=60s',
      SERVER_X: '2',
    });
    // the recipe's serverEnv overrides a default in place, it does not add a second entry
    expect(env.TPU_SKIP_MDS_QUERY).toBe('false');
    expect(rm.env.filter((e: Any) => e.name === 'TPU_SKIP_MDS_QUERY')).toHaveLength(1);
  });

  test('the proxy listens on 29000 and reaches the resource manager through the coordinator', () => {
    expect(proxy.args).toEqual(['--server_port=29000', '--resource_manager_address=$(PATHWAYS_HEAD):29001', '--gcs_scratch_location=gs://b/tmp']);
    expect(proxy.image).toBe('us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:latest');
    expect(proxy.imagePullPolicy).toBe('Always');
    expect(proxy.ports).toEqual([{ containerPort: 29000, protocol: 'TCP' }]);
    expect(proxy.resources).toEqual({ limits: { cpu: '16', memory: '100Gi' } });
    // $(PATHWAYS_HEAD) in args is expanded by Kubernetes only from an env var defined on the same container
    expect(envMap(proxy)).toEqual({ PATHWAYS_HEAD: COORDINATOR_REF, ABSL_FLAGS: '--pathways_pipe_unreachable_timeout=60s', PROXY_X: '1' });
  });

  test('the workload talks JAX to the proxy (JAX_PLATFORMS=proxy, JAX_BACKEND_TARGET) and shares /tmp', () => {
    const wl = byName(head.containers, 'workload-container');
    expect(envMap(wl)).toMatchObject({
      PATHWAYS_HEAD: COORDINATOR_REF,
      JAX_PLATFORMS: 'proxy',
      XCLOUD_ENVIRONMENT: 'GCP',
      JAX_BACKEND_TARGET: 'grpc://$(PATHWAYS_HEAD):29000',
      ABSL_FLAGS: '--pathways_pipe_unreachable_timeout=60s',
      STEPS: '10',
    });
    // PATHWAYS_HEAD is defined before JAX_BACKEND_TARGET: Kubernetes expands $(VAR) only from earlier entries
    const names = wl.env.map((e: Any) => e.name);
    expect(names.indexOf('PATHWAYS_HEAD')).toBeLessThan(names.indexOf('JAX_BACKEND_TARGET'));
    expect(wl.command).toEqual(['/bin/bash', '-c', 'python3 -m maxtext.train']);
    expect(wl.image).toBe(main.image);
    expect(wl.imagePullPolicy).toBe('IfNotPresent');
    expect(wl.resources).toEqual({ requests: { cpu: '2' }, limits: { memory: '8Gi' } });
    expect(wl.volumeMounts).toEqual([
      { name: 'shared-tmp', mountPath: '/tmp' },
      expect.objectContaining({ name: 'hf-token', readOnly: true }),
    ]);
    expect(head.volumes).toEqual([
      { name: 'shared-tmp', hostPath: { path: '/tmp', type: 'DirectoryOrCreate' } },
      expect.objectContaining({ name: 'hf-token', csi: expect.objectContaining({ volumeAttributes: { secretProviderClass: 'rl-qwen3-hf-token' } }) }),
    ]);
  });

  test('head: one pod on the CPU pool, host network, its own node, a restart of the JobSet on any failure', () => {
    expect(head.nodeSelector).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    // The head's sidecars are reached at the coordinator's host address by the TPU workers (which use the host
    // network): the head must use it too, with cluster DNS still resolving the JobSet's hostnames.
    expect(head.hostNetwork).toBe(true);
    expect(head.dnsPolicy).toBe('ClusterFirstWithHostNet');
    expect(rjob(m, 'pathways-head').template.metadata).toEqual({ annotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'kubernetes.io/hostname' } });
    expect(rjob(m, 'pathways-head').replicas).toBe(1);
    const job = jobSpec(m, 'pathways-head');
    expect(job).toMatchObject({ completionMode: 'Indexed', parallelism: 1, completions: 1, backoffLimit: 0, activeDeadlineSeconds: 7200 });
    // restartJobSet: no pod failure policy (an exit 1 cannot tell a lost worker from an app error), restartPolicy Never
    expect(job.podFailurePolicy).toBeUndefined();
    expect(head.restartPolicy).toBe('Never');
    expect(head.serviceAccountName).toBe('wl-ksa');
  });

  test('workers: one indexed Job per slice, one pod per VM, on the TPU nodes, restarting in place', () => {
    const rj = rjob(m, 'worker');
    expect(rj.replicas).toBe(2);
    const job = jobSpec(m, 'worker');
    // Indexed: the GKE TPU webhook injects TPU_WORKER_ID from the completion index only for Indexed Jobs with
    // parallelism > 1 (anchor §2.4); parallelism = completions = VMs, so every VM of the slice gets one pod.
    expect(job).toMatchObject({ completionMode: 'Indexed', parallelism: 8, completions: 8, activeDeadlineSeconds: 7200 });
    // inPlace: Kubernetes counts container restarts against backoffLimit with OnFailure; xpk/PathwaysJob allow 4 x VMs
    expect(job.backoffLimit).toBe(32);
    expect(job.podFailurePolicy).toBeUndefined();
    const pod = podSpec(m, 'worker');
    expect(pod.restartPolicy).toBe('OnFailure');
    // TPU hosts talk over the host network (ICI/DCN ports 8471, 29005): hostNetwork is what xpk and GKE run TPUs with
    expect(pod).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet', terminationGracePeriodSeconds: 30 });
    expect(pod.nodeSelector).toEqual(v6e32.nodeSelector);
    expect(pod.tolerations).toEqual([{ key: 'google.com/tpu', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(rj.template.metadata).toEqual({ annotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool' } });
    expect(worker.args).toEqual(['--server_port=29005', '--resource_manager_address=$(PATHWAYS_HEAD):29001', '--gcs_scratch_location=gs://b/tmp']);
    expect(worker.ports.map((p: Any) => p.containerPort)).toEqual([29005, 29006, 8471, 8080]);
    expect(worker.resources).toEqual({ limits: { 'google.com/tpu': '4' } });
    expect(worker.image).toBe('us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest');
    expect(worker.volumeMounts).toEqual([{ name: 'shared-tmp', mountPath: '/tmp' }]);
    expect(pod.volumes).toEqual([{ name: 'shared-tmp', hostPath: { path: '/tmp', type: 'DirectoryOrCreate' } }]);
  });

  test('workers learn their slice from the JobSet labels (multislice) and find the head at the coordinator', () => {
    expect(envMap(worker)).toEqual({
      XCLOUD_ENVIRONMENT: 'GCP',
      MEGASCALE_GRPC_ENABLE_XOR_TRACER: 'false',
      MEGASCALE_NUM_SLICES: "fieldRef:metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']",
      JOBSET_NAME: "fieldRef:metadata.annotations['jobset.sigs.k8s.io/jobset-name']",
      REPLICATED_JOB_NAME: "fieldRef:metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']",
      MEGASCALE_SLICE_ID: "fieldRef:metadata.labels['jobset.sigs.k8s.io/job-index']",
      PATHWAYS_HEAD: COORDINATOR_REF,
      MEGASCALE_COORDINATOR_ADDRESS: COORDINATOR_REF,
      ABSL_FLAGS: '--pathways_pipe_unreachable_timeout=60s',
      WORKER_X: '3',
    });
  });

  test('the head is the coordinator and starts first (InOrder); the builder says so', () => {
    // JobSet: the coordinator label is what every PATHWAYS_HEAD fieldRef reads; InOrder starts the head's Job before
    // the workers', so the RM is up when they dial it.
    expect(m.spec.coordinator).toEqual({ replicatedJob: 'pathways-head', jobIndex: 0, podIndex: 0 });
    expect(m.spec.startupPolicy).toEqual({ startupPolicyOrder: 'InOrder' });
    expect(m.spec.replicatedJobs.map((r: Any) => r.name)).toEqual(['pathways-head', 'worker']);
    expect(built.coordinator).toEqual({ replicatedJob: 'pathways-head', jobIndex: 0, podIndex: 0 });
    expect(built.mainReplicatedJob).toBe('pathways-head');
    expect(built.replicatedJobs).toEqual([
      { name: 'pathways-head', replicas: 1, parallelism: 1 },
      { name: 'worker', replicas: 2, parallelism: 8 },
    ]);
  });

  test("the recipe's env replaces a default of the same name in place (one entry, Kubernetes keeps the last)", () => {
    const withEnv = (env: Record<string, string>) =>
      byName(
        podSpec(
          pathwaysJobSet(common, { ...main, env }, { slice: v6e32, slices: 1, scratch: 'gs://b/t', headNodePool: 'cpu-np', proxyEnv: {}, serverEnv: {}, workerEnv: {} })
            .manifest as Any,
          'pathways-head',
        ).containers,
        'workload-container',
      ).env as Any[];
    // tutorial 001 runs `JAX_PLATFORMS=proxy,cpu`
    const env = withEnv({ JAX_PLATFORMS: 'proxy,cpu' });
    expect(env.filter((e) => e.name === 'JAX_PLATFORMS')).toEqual([{ name: 'JAX_PLATFORMS', value: 'proxy,cpu' }]);
    expect(env.map((e) => e.name).slice(0, 3)).toEqual(['PATHWAYS_HEAD', 'JAX_PLATFORMS', 'XCLOUD_ENVIRONMENT']);
    // the first entry too: a plain value replaces the fieldRef
    const first = withEnv({ PATHWAYS_HEAD: 'head.example' });
    expect(first[0]).toEqual({ name: 'PATHWAYS_HEAD', value: 'head.example' });
    expect(first.filter((e) => e.name === 'PATHWAYS_HEAD')).toHaveLength(1);
  });

  test('pinned images replace the latest tags and are pulled IfNotPresent', () => {
    const pinned = pathwaysJobSet(common, main, {
      slice: v6e32,
      slices: 1,
      scratch: 'gs://b/tmp',
      headNodePool: 'cpu-np',
      proxyEnv: {},
      serverEnv: {},
      workerEnv: {},
      proxyImage: 'r/proxy@sha256:aa',
      serverImage: 'r/server:v1',
    }).manifest as Any;
    const h = podSpec(pinned, 'pathways-head');
    expect(byName(h.initContainers, 'pathways-proxy')).toMatchObject({ image: 'r/proxy@sha256:aa', imagePullPolicy: 'IfNotPresent' });
    expect(byName(h.initContainers, 'pathways-rm')).toMatchObject({ image: 'r/server:v1', imagePullPolicy: 'IfNotPresent' });
    expect(byName(h.initContainers, 'pathways-rm').args).toContain('--instance_count=1');
    // the RM runs on a CPU node: without this it waits for a TPU metadata server that is not there
    expect(envMap(byName(h.initContainers, 'pathways-rm')).TPU_SKIP_MDS_QUERY).toBe('true');
    expect(byName(podSpec(pinned, 'worker').containers, 'pathways-worker')).toMatchObject({ image: 'r/server:v1', imagePullPolicy: 'IfNotPresent' });
  });
});

describe('every JobSet: metadata, network, failure policy, pod metadata', () => {
  let cpu: ReturnType<typeof cpuPodJobSet>;
  let m: Any;
  beforeAll(() => {
    cpu = cpuPodJobSet(common, main, 'cpu-np');
    m = cpu.manifest as Any;
  });

  test('apiVersion, kind, name, namespace and the pipeline labels (Kueue reads the queue label on the JobSet)', () => {
    expect(m.apiVersion).toBe('jobset.x-k8s.io/v1alpha2');
    expect(m.kind).toBe('JobSet');
    expect(m.metadata).toEqual({ name: 'rl-qwen3-r1-train', namespace: 'ml', labels: common.pod.labels });
  });

  test('DNS hostnames for every pod, published before readiness (JAX and Pathways dial peers while starting)', () => {
    expect(m.spec.network).toEqual({ enableDNSHostnames: true, publishNotReadyAddresses: true });
  });

  test('application errors and deadlines fail the JobSet; anything else recreates it, at most maxRestarts times', () => {
    expect(m.spec.failurePolicy).toEqual({
      maxRestarts: 3,
      restartStrategy: 'BlockingRecreate',
      rules: [{ name: 'FailJobSetOnApplicationErrorOrDeadline', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy', 'DeadlineExceeded'] }],
    });
  });

  test('pods carry the pipeline labels and refuse autoscaler eviction; no TTL (Terraform would re-create it)', () => {
    expect(rjob(m, 'convert').template.spec.template.metadata).toEqual({
      labels: common.pod.labels,
      annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
    });
    expect(m.spec.ttlSecondsAfterFinished).toBeUndefined();
  });

  test('a CPU conversion: one pod on the named pool, failFast (an app error fails the JobSet at once)', () => {
    expect(m.spec.successPolicy).toEqual({ operator: 'All' });
    expect(m.spec.startupPolicy).toEqual({ startupPolicyOrder: 'AnyOrder' });
    expect(m.spec.coordinator).toBeUndefined();
    const rj = rjob(m, 'convert');
    expect(rj.replicas).toBe(1);
    expect(rj.template.metadata).toBeUndefined();
    const job = jobSpec(m, 'convert');
    expect(job).toMatchObject({ completionMode: 'Indexed', parallelism: 1, completions: 1, backoffLimit: 0, activeDeadlineSeconds: 7200 });
    // Kubernetes Job: podFailurePolicy needs restartPolicy Never; FailJob -> reason PodFailurePolicy -> FailJobSet
    expect(job.podFailurePolicy).toEqual({
      rules: [
        { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        { action: 'FailJob', onExitCodes: { containerName: 'workload-container', operator: 'NotIn', values: [42, 137, 143] } },
      ],
    });
    const pod = podSpec(m, 'convert');
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.serviceAccountName).toBe('wl-ksa');
    expect(pod.nodeSelector).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    expect(pod.hostNetwork).toBeUndefined();
    expect(pod.containers).toHaveLength(1);
    expect(pod.containers[0]).toMatchObject({ name: 'workload-container', command: ['/bin/bash', '-c', main.script], env: [{ name: 'STEPS', value: '10' }] });
    expect(pod.volumes).toEqual([expect.objectContaining({ name: 'hf-token' })]);
    // the conversion reads the Hugging Face token from the CSI volume's file, never from an env var
    expect(pod.containers[0].volumeMounts).toEqual([{ name: 'hf-token', mountPath: expect.stringMatching(/^\//), readOnly: true }]);
    expect(cpu).toMatchObject({ replicatedJobs: [{ name: 'convert', replicas: 1, parallelism: 1 }], mainReplicatedJob: 'convert' });
    expect(cpu.coordinator).toBeUndefined();
  });
});

describe('multi-host JAX JobSet', () => {
  const build = (slice = v6e32, slices = 2, program = true) => multiHostJaxJobSet(common, main, slice, slices, program);

  test('one Job per slice, one pod per VM, exclusive per node pool, on the TPU nodes with host network', () => {
    const built = build();
    const m = built.manifest as Any;
    const rj = rjob(m, 'slice');
    expect(rj.replicas).toBe(2);
    expect(rj.template.metadata).toEqual({ annotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool' } });
    expect(jobSpec(m, 'slice')).toMatchObject({ completionMode: 'Indexed', parallelism: 8, completions: 8 });
    const pod = podSpec(m, 'slice');
    expect(pod).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet', nodeSelector: v6e32.nodeSelector });
    expect(m.spec.successPolicy).toEqual({ operator: 'All' });
    expect(m.spec.startupPolicy).toEqual({ startupPolicyOrder: 'AnyOrder' });
    expect(built.replicatedJobs).toEqual([{ name: 'slice', replicas: 2, parallelism: 8 }]);
    expect(built.mainReplicatedJob).toBe('slice');
  });

  test('the TPU request joins the recipe limits; /dev/shm is memory-backed (JAX/vLLM exhaust the 64 MiB default)', () => {
    const pod = podSpec(build().manifest as Any, 'slice');
    const c = byName(pod.containers, 'workload-container');
    expect(c.resources).toEqual({ requests: { cpu: '2' }, limits: { memory: '8Gi', 'google.com/tpu': '4' } });
    // the recipe's env and nothing else: GKE's TPU webhook injects TPU_WORKER_ID / TPU_WORKER_HOSTNAMES itself
    expect(c.env).toEqual([{ name: 'STEPS', value: '10' }]);
    expect(c.volumeMounts).toEqual([{ name: 'dshm', mountPath: '/dev/shm' }, expect.objectContaining({ name: 'hf-token', mountPath: expect.any(String) })]);
    expect(pod.volumes).toEqual([{ name: 'dshm', emptyDir: { medium: 'Memory' } }, expect.objectContaining({ name: 'hf-token' })]);
    // without recipe resources the pod still requests its chips
    const bare = multiHostJaxJobSet(common, { image: 'x/y:1', script: 's' }, v6e32, 1, true).manifest as Any;
    expect(byName(podSpec(bare, 'slice').containers, 'workload-container').resources).toEqual({ limits: { 'google.com/tpu': '4' } });
  });

  test('one program over several hosts restarts the JobSet on any failure; a lone pod or per-host work fails fast', () => {
    const policy = (slice = v6e32, slices = 2, program = true) => {
      const m = build(slice, slices, program).manifest as Any;
      return { pfp: jobSpec(m, 'slice').podFailurePolicy !== undefined, restart: podSpec(m, 'slice').restartPolicy, backoff: jobSpec(m, 'slice').backoffLimit };
    };
    // a lost host makes its peers exit 1: their exit code cannot tell it from an application error
    expect(policy(v6e32, 1, true)).toEqual({ pfp: false, restart: 'Never', backoff: 0 });
    expect(policy(v6e8, 2, true)).toEqual({ pfp: false, restart: 'Never', backoff: 0 });
    // single VM, single slice: its exit code is its own
    expect(policy(v6e8, 1, true)).toEqual({ pfp: true, restart: 'Never', backoff: 0 });
    // each pod runs on its own (a conversion)
    expect(policy(v6e32, 2, false)).toEqual({ pfp: true, restart: 'Never', backoff: 0 });
  });
});

describe('shared pieces', () => {
  test('pull policy: Always for latest or untagged images (they move), IfNotPresent for a tag or a digest', () => {
    expect(pullPolicy('r/p/img:latest')).toBe('Always');
    expect(pullPolicy('r/p/img')).toBe('Always');
    expect(pullPolicy('localhost:5000/img')).toBe('Always');
    expect(pullPolicy('localhost:5000/img:1.0')).toBe('IfNotPresent');
    expect(pullPolicy('r/p/img@sha256:abc')).toBe('IfNotPresent');
    expect(pullPolicy('r/p/img:latest@sha256:abc')).toBe('IfNotPresent');
  });

  test('compact drops undefined, null, empty lists and emptied objects at any depth, keeps 0, false and empty strings', () => {
    // the CRD schema rejects null, and the kubernetes provider sees a {} the API server drops as a perpetual diff
    expect(compact({ a: { b: { c: undefined } }, d: [undefined, 1], e: false, f: '', g: 0, h: { i: [] }, n: null })).toEqual({ d: [1], e: false, f: '', g: 0 });
    expect(compact([{ x: 1, y: undefined }, 2])).toEqual([{ x: 1 }, 2]);
    expect(compact('s')).toBe('s');
  });

  test('the head resources the fit check sums: proxy, resource manager, and the workload (recipe or default)', () => {
    expect(pathwaysHeadResources(undefined)).toEqual([PATHWAYS_DEFAULTS.proxy, PATHWAYS_DEFAULTS.resourceManager, PATHWAYS_DEFAULTS.workload]);
    const w = { limits: { cpu: '4' } };
    expect(pathwaysHeadResources(w)[2]).toBe(w);
    expect(PATHWAYS_DEFAULTS.workload).toEqual({ requests: { cpu: '2', memory: '8Gi' }, limits: { cpu: '24', memory: '100Gi' } });
  });

  test('a single-host TPU program gets the env the metadata server would give it (tutorial 002 exports)', () => {
    expect(tpuVmEnv(v6e8)).toEqual({
      TPU_ACCELERATOR_TYPE: 'v6e-8',
      TPU_WORKER_ID: '0',
      TPU_SKIP_MDS_QUERY: '1',
      TPU_WORKER_HOSTNAMES: 'localhost',
      TPU_TOPOLOGY: '2x4',
      TPU_CHIPS_PER_HOST_BOUNDS: '2,4,1',
      TPU_HOST_BOUNDS: '1,1,1',
    });
  });
});
