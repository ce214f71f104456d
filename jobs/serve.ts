/**
 * The `serve-<pipeline>` stack's content: a vLLM TPU Deployment of the pipeline's export (its path from the run
 * identity, jobs/maxtext.ts pipelinePaths), a Service, a smoke-test Job (one chat completion) the stack waits for, and
 * the single-host TPU pool sized by the serving fit check (jobs/vllm.ts). Pure; no cdktf.
 *
 * Read at:
 *   - vllm-project/tpu-inference b8692ff examples/offload/gke/benchmarks/single-host/deploy-cpu-offload.yaml: the
 *     Deployment shape (`vllm serve ... --port 8000 --tensor-parallel-size N`, `google.com/tpu` requests = limits,
 *     startupProbe period 30 s x failureThreshold 120, livenessProbe period 10 s x 3, readinessProbe period 5 s x 3, all
 *     `GET /health` on 8000; the gcsfuse CSI volume and `gke-gcsfuse/volumes` annotation). docker/Dockerfile installs curl.
 *   - AI-Hypercomputer/maxtext maxtext-v0.2.4 src/maxtext/checkpoint_conversion/to_huggingface.py: the export holds the
 *     tokenizer next to the weights, so the server needs no Hugging Face token.
 *   - Google Cloud "Serve an LLM using TPU Trillium on GKE with vLLM": one host per server; GKE "Access Cloud Storage
 *     buckets with the Cloud Storage FUSE CSI driver": ephemeral CSI volume, `readOnly`, `only-dir` mount option;
 *     GKE internal passthrough load balancer: `networking.gke.io/load-balancer-type: "Internal"`.
 */
import { accountIdOf } from './platform';
import { Capacity, capacityOf, CapacityType, reservationProblem } from './capacity';
import { GCSFUSE_ANNOTATION, GCSFUSE_DRIVER } from './eval';
import { compact, pullPolicy } from './jobset';
import { shellQuote } from './maxtext';
import { modelSize, servingOf } from './models';
import { specKey } from './spec-key';
import { TPU_TOLERATION, TpuSlice, generationOf } from './tpu';
import { DEFAULT_MAX_MODEL_LEN, DEFAULT_SERVE_SEQUENCES, fitText, serverStartSeconds, ServingFit, smallestServingSlice, VLLM_HEALTH_PATH, VLLM_PORT, VLLM_TPU_IMAGE, vllmImage } from './vllm';

/** `pipelines.<name>.serve` as config/ hands it down. */
export interface ServeOptions {
  /** Synthesize the `serve-<pipeline>` stack. @default false */
  readonly enabled?: boolean;
  /** Where the serving pool's capacity comes from: a reservation (with `reservation`), spot or flex-start. @default spot */
  readonly capacity?: CapacityType;
  /** The reservation the pool consumes (capacity `reservation`). @default - none */
  readonly reservation?: string;
  /** A GKE internal passthrough load balancer in front of the server instead of a ClusterIP Service. @default false */
  readonly internalLoadBalancer?: boolean;
  /** vLLM --max-model-len. @default DEFAULT_MAX_MODEL_LEN */
  readonly maxModelLen?: number;
  /** Sequences of max-model-len the KV cache must hold at once (the fit check). @default DEFAULT_SERVE_SEQUENCES */
  readonly sequences?: number;
}

/** What serve-<pipeline> deploys, resolved. */
export interface ServePlan {
  readonly stack: string;
  readonly pipeline: string;
  readonly namespace: string;
  /** Deployment, Service and service-account name. */
  readonly name: string;
  /** The node pool (exists only while the stack does). */
  readonly poolName: string;
  readonly slice: TpuSlice;
  readonly fit: ServingFit;
  readonly capacity: Capacity;
  /** The export served, `gs://.../hf-trained/<run>/<exportKey>/`. */
  readonly modelPath: string;
  /** The OpenAI `model` name clients send: the pipeline's name. */
  readonly servedModelName: string;
  readonly image: string;
  readonly maxModelLen: number;
  /** In-cluster address, e.g. `http://rl-qwen3-serve.default.svc.cluster.local:8000`. */
  readonly endpoint: string;
  readonly internalLoadBalancer: boolean;
  /** Google service account id of the server (read-only on the bucket): carries the cluster (serveIdentityOf). */
  readonly gsaId: string;
  /** The server's Kubernetes service account: carries the cluster (serveIdentityOf). */
  readonly ksaName: string;
  /** The IAM condition that limits the server's read grant to the export (exportReadCondition). */
  readonly readCondition: IamCondition;
  readonly deployment: Record<string, unknown>;
  readonly service: Record<string, unknown>;
  readonly smokeJob: Record<string, unknown>;
  /**
   * The smoke Job's name: `<pipeline>-serve-smoke-<revision>`. It changes with the Deployment's content, so a retrain
   * (a new export path) or any other change of the server replaces the Job and the deploy waits for a new smoke test.
   */
  readonly smokeJobName: string;
  /** 12 hex digits of the Deployment's content (specKey), in the smoke Job's name and on both as SERVE_REVISION_LABEL. */
  readonly revision: string;
  /** Seconds the startup probe allows the server (period x failureThreshold), from the model (serverStartSeconds). */
  readonly startupSeconds: number;
  /** The smoke Job's activeDeadlineSeconds: scheduling, the startup window, and one last attempt. */
  readonly smokeDeadlineSeconds: number;
  /** Chat-completion attempts of the smoke test: the window over SMOKE_RETRY_SECONDS. */
  readonly smokeAttempts: number;
  /** Minutes the deploy waits for the smoke Job (its deadline plus a margin): the stack's Manifest timeouts. */
  readonly waitMinutes: number;
  /** The object the deploy checks before the Deployment changes: `<export dir>/config.json` in the bucket. */
  readonly exportConfigObject: { readonly bucket: string; readonly name: string };
}

/** Where the export is mounted in the server pod. */
export const MODEL_MOUNT = '/models/export';
/** Seconds between the smoke test's attempts (a refused connection fails at once, so an attempt takes about this long). */
export const SMOKE_RETRY_SECONDS = 20;
/** curl's `-m` of one smoke attempt: the longest one chat completion may take once the server answers. */
export const SMOKE_REQUEST_SECONDS = 120;
/** The startup probe's period (tpu-inference deploy-cpu-offload.yaml: 30 s); its failureThreshold comes from the model. */
export const STARTUP_PROBE_PERIOD_SECONDS = 30;
/**
 * Minutes from the Deployment's creation to the server's process starting: the pod scheduled onto the pool's node
 * (created before the Deployment) and the image pulled (planning figure; only a real node shows it).
 */
export const SERVE_SCHEDULE_MINUTES = 10;
/** Minutes the deploy's wait outlasts the smoke Job's deadline, so the Job's own end is what the wait sees. */
export const SMOKE_WAIT_MARGIN_MINUTES = 5;
/** The label carrying the Deployment's content revision on the Deployment and its smoke Job. */
export const SERVE_REVISION_LABEL = 'tpu-post-training/serve-revision';

/** The startup probe's failureThreshold for a model: its start window (serverStartSeconds) in probe periods. */
export function startupFailureThreshold(startSeconds: number): number {
  return Math.ceil(startSeconds / STARTUP_PROBE_PERIOD_SECONDS);
}

/** The smoke test's window from the startup probe's: scheduling, then every second the probe allows, then one last request. */
export function smokeWindow(startupSeconds: number): { deadlineSeconds: number; attempts: number; waitMinutes: number } {
  const window = SERVE_SCHEDULE_MINUTES * 60 + startupSeconds;
  const deadlineSeconds = window + SMOKE_REQUEST_SECONDS + SMOKE_RETRY_SECONDS;
  return { deadlineSeconds, attempts: Math.ceil(window / SMOKE_RETRY_SECONDS) + 1, waitMinutes: Math.ceil(deadlineSeconds / 60) + SMOKE_WAIT_MARGIN_MINUTES };
}

/**
 * The smoke Job's wait ends on its first condition, success or failure. The Job controller adds conditions only when a
 * Job ends (or is suspended, which this Job never is): `SuccessCriteriaMet` then `Complete`, or `FailureTarget` then
 * `Failed` (Kubernetes 1.31+; `Complete`/`Failed` alone before it), so `status.conditions[0].type` names the end either
 * way. hashicorp/kubernetes v2.38.0 manifest/provider/waiter.go `FieldWaiter.Wait` keeps polling while the path is
 * absent and ends on the first match, so the deploy learns of a failed smoke test when it fails, not at the timeout.
 */
export const SMOKE_ENDED = '^(Complete|SuccessCriteriaMet|Failed|FailureTarget)$';
/** The default capacity of a serving pool: spot (a reservation is usually held for training). */
export const DEFAULT_SERVE_CAPACITY: Capacity = { type: 'spot' };
/** GKE's annotation for an internal passthrough load balancer. */
export const INTERNAL_LB_ANNOTATION = 'networking.gke.io/load-balancer-type';
/** GKE node pool names: at most 40 characters. */
const POOL_NAME_MAX = 40;

/** An IAM condition (google_storage_bucket_iam_member `condition`). */
export interface IamCondition {
  readonly title: string;
  readonly description: string;
  readonly expression: string;
}

/**
 * The server reads its export and nothing else of the bucket: `roles/storage.objectViewer` under a condition that holds
 * for the objects under the export (`resource.name` is `projects/_/buckets/<bucket>/objects/<name>`) and for listings
 * whose prefix lies under it (the `storage.googleapis.com/objectListPrefix` request attribute of objects.list; Cloud
 * Storage "IAM Conditions" for buckets, which need uniform bucket-level access, as the checkpoint bucket has). A listing
 * of the whole bucket is denied, so both mount-time checks that list it are skipped on the volume (SERVE_FUSE_ACCESS).
 */
export function exportReadCondition(bucket: string, exportDir: string): IamCondition {
  const prefix = `${exportDir}/`;
  return {
    title: 'export-only',
    description: `read gs://${bucket}/${prefix} only`,
    expression:
      `resource.name.startsWith(${JSON.stringify(`projects/_/buckets/${bucket}/objects/${prefix}`)}) || ` +
      `api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith(${JSON.stringify(prefix)})`,
  };
}

/**
 * What lets the FUSE volume mount with a grant limited to the export. Both checks below call Cloud Storage's
 * GetStorageLayout on the whole bucket (prefix ""), which needs storage.objects.list there, so a prefix-conditioned
 * grant would fail the mount:
 *   - the CSI driver's access check before the mount (GoogleCloudPlatform/gcs-fuse-csi-driver v1.24.4
 *     pkg/csi_driver/node.go NodePublishVolume -> pkg/cloud_provider/storage/storage.go CheckBucketExists), skipped
 *     by the volume attribute `skipCSIBucketAccessCheck` (pkg/csi_driver/utils.go VolumeContextKeySkipCSIBucketAccessCheck);
 *   - gcsfuse's bucket-type lookup at mount (GoogleCloudPlatform/gcsfuse v3.11.2 internal/storage/storage_handle.go
 *     BucketHandle -> lookupBucketType -> getStorageLayout, made only when `enable-hns` is on, its default in
 *     cfg/params.yaml), turned off by the mount option `enable-hns=false`: the checkpoint bucket has no hierarchical
 *     namespace (constructs/bucket.ts), so gcsfuse's default bucket type is the right one.
 * The sidecar passes `key=value` mount options to gcsfuse as flags unless listed in its DisallowedFlags
 * (pkg/sidecar_mounter/sidecar_mounter_config.go), which `enable-hns` is not.
 */
export const SERVE_FUSE_ACCESS = { volumeAttribute: { skipCSIBucketAccessCheck: 'true' }, mountOption: 'enable-hns=false' } as const;

/** The label on every object of a serve stack: its server's name. */
export const SERVE_LABEL = 'tpu-post-training/serve';
/** The pod volume that mounts the export. */
const MODEL_VOLUME = 'model';

/**
 * The label and NoSchedule taint a serve stack's pool carries (key SERVE_LABEL, value the server's name), which only its
 * server selects and tolerates: a Kueue flavor of the same slice shape (a v6e-8 2x4 serving pool has exactly the labels
 * of the 2x4 flavor) then can never place a pipeline's pod on it.
 */
export function servePoolTaint(name: string): { key: string; value: string } {
  return { key: SERVE_LABEL, value: name };
}

/** What a serve stack's name puts before its pipeline's: `serve-rl-qwen3` serves rl-qwen3. */
export const SERVE_STACK_PREFIX = 'serve-';

/** Every name a serve stack uses, from its pipeline's (one home: the stack, status and the review read these). */
export function serveNames(pipeline: string): { stack: string; name: string; smokeJobName: string; poolName: string } {
  const name = `${pipeline}-serve`;
  const prefixed = `${SERVE_STACK_PREFIX}${pipeline}`;
  return { stack: prefixed, name, smokeJobName: `${name}-smoke`, poolName: prefixed };
}

/**
 * The serve stack's identities, per cluster: the Google service account `<cluster>-serve-<pipeline>` (cut with a hash
 * to 30 characters, jobs/platform.ts accountIdOf) and the Kubernetes service account `<cluster>-<pipeline>-serve`, so
 * dev's and prod's servers in one project are neither one account nor one Workload Identity principal.
 */
export function serveIdentityOf(clusterName: string, pipeline: string): { gsaId: string; ksaName: string } {
  return { gsaId: accountIdOf(`${clusterName}-serve-${pipeline}`), ksaName: `${clusterName}-${pipeline}-serve` };
}

/** The export a serve Deployment mounts, read back from its Cloud Storage FUSE volume: `gs://<bucket>/<only-dir>/`. */
export function modelPathOf(deployment: unknown): string | undefined {
  const volumes = (deployment as { spec?: { template?: { spec?: { volumes?: unknown[] } } } } | undefined)?.spec?.template?.spec?.volumes ?? [];
  const volume = volumes.find((v) => (v as { name?: string }).name === MODEL_VOLUME) as { csi?: { volumeAttributes?: Record<string, string> } } | undefined;
  const attributes = volume?.csi?.volumeAttributes;
  const dir = /(?:^|,)only-dir=([^,]+)/.exec(attributes?.mountOptions ?? '')?.[1];
  return attributes?.bucketName && dir ? `gs://${attributes.bucketName}/${dir}/` : undefined;
}

/** The smoke test: one chat completion against the Service, retried while the server loads; exit 1 after the last. */
export function smokeScript(endpoint: string, model: string, attempts: number): string {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 8 });
  return [
    'set -u',
    `for attempt in $(seq 1 ${attempts}); do`,
    `  if out="$(curl -fsS -m ${SMOKE_REQUEST_SECONDS} -H 'Content-Type: application/json' -d ${shellQuote(body)} ${endpoint}/v1/chat/completions)" && printf '%s' "$out" | grep -q '"choices"'; then`,
    '    echo "smoke test passed: $out"; exit 0',
    '  fi',
    `  echo "smoke test: attempt $attempt of ${attempts} got no chat completion; retrying in ${SMOKE_RETRY_SECONDS}s"`,
    `  sleep ${SMOKE_RETRY_SECONDS}`,
    'done',
    `echo "smoke test failed: no chat completion from ${endpoint} after ${attempts} attempts"`,
    'exit 1',
  ].join('\n');
}

function probe(periodSeconds: number, failureThreshold: number, timeoutSeconds: number): Record<string, unknown> {
  return { httpGet: { path: VLLM_HEALTH_PATH, port: VLLM_PORT }, periodSeconds, timeoutSeconds, failureThreshold };
}

/** What planServe reads of the pipeline. */
export interface ServeInput {
  readonly pipeline: string;
  /** The cluster: it names the server's identities (serveIdentityOf). */
  readonly clusterName: string;
  readonly namespace: string;
  readonly model: string;
  /** @default - the pipeline exports nothing */
  readonly modelPath?: string;
  readonly trainingMachineType: string;
  readonly bucket: string;
  readonly cpuPool: string;
  /** The vLLM image as pods pull it (the lock's `tag@sha256:...`, jobs/lock-apply.ts). @default - vllmImage(model), by tag */
  readonly image?: string;
}

/** The options' and the model's problems, each naming its key. */
function serveProblems(input: ServeInput, options: ServeOptions, key: string): string[] {
  const problems: string[] = [];
  if (input.modelPath === undefined) problems.push(`${key}.enabled: ${input.pipeline} exports nothing (it has no to-hf step), so there is nothing to serve`);
  const unservable = servingOf(input.model)?.unservable;
  if (unservable) problems.push(`${key}.enabled: ${VLLM_TPU_IMAGE} cannot serve ${input.model}: ${unservable}`);
  const maxModelLen = options.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
  const sequences = options.sequences ?? DEFAULT_SERVE_SEQUENCES;
  if (!(Number.isInteger(maxModelLen) && maxModelLen >= 256 && maxModelLen <= 1 << 20)) problems.push(`${key}.maxModelLen must be a whole number from 256 to 1048576, got ${maxModelLen}`);
  if (!(Number.isInteger(sequences) && sequences >= 1 && sequences <= 1024)) problems.push(`${key}.sequences must be a whole number from 1 to 1024, got ${sequences}`);
  const reservationBad = options.reservation ? reservationProblem(options.reservation) : undefined;
  if (reservationBad) problems.push(`${key}.reservation: ${reservationBad}`);
  const { poolName } = serveNames(input.pipeline);
  if (poolName.length > POOL_NAME_MAX) problems.push(`${key}: node pool name '${poolName}' is ${poolName.length} characters, over the ${POOL_NAME_MAX} GKE allows`);
  return problems;
}

/** The serve plan of a pipeline, or the problems (exit 1 at synth). */
export function planServe(input: ServeInput, options: ServeOptions, source: string): { plan?: ServePlan; problems: string[] } {
  const key = `${source}.serve`;
  const problems = serveProblems(input, options, key);
  const cap = capacityOf(options.capacity ?? DEFAULT_SERVE_CAPACITY.type, options.reservation);
  if ('problem' in cap) problems.push(`${key}.${options.capacity === undefined || options.capacity === 'reservation' ? 'reservation' : 'capacity'}: ${cap.problem}`);
  const maxModelLen = options.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
  const size = modelSize(input.model);
  const sized = smallestServingSlice(input.model, size, generationOf(input.trainingMachineType) ?? 'v6e', { maxModelLen, sequences: options.sequences ?? DEFAULT_SERVE_SEQUENCES });
  if ('problem' in sized) problems.push(`${key}: ${sized.problem}`);
  if (problems.length > 0 || 'problem' in sized || 'problem' in cap || !size) return { problems };
  const names = { ...serveNames(input.pipeline), ...serveIdentityOf(input.clusterName, input.pipeline) };
  const modelPath = input.modelPath!;
  const onlyDir = modelPath.replace(/^gs:\/\/[^/]+\//, '').replace(/\/$/, '');
  const endpoint = `http://${names.name}.${input.namespace}.svc.cluster.local:${VLLM_PORT}`;
  const labels = { 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': input.pipeline, [SERVE_LABEL]: names.name };
  const startupSeconds = startupFailureThreshold(serverStartSeconds(size)) * STARTUP_PROBE_PERIOD_SECONDS;
  const built = { input, names, fit: sized.fit, maxModelLen, onlyDir, labels, startupSeconds };
  const body = deploymentOf(built);
  const revision = specKey(body);
  const deployment = { ...body, metadata: { ...(body.metadata as object), labels: { ...labels, [SERVE_REVISION_LABEL]: revision } } };
  const smokeJobName = `${names.smokeJobName}-${revision}`;
  const window = smokeWindow(startupSeconds);
  const internal = options.internalLoadBalancer === true;
  return {
    problems,
    plan: {
      stack: names.stack,
      pipeline: input.pipeline,
      namespace: input.namespace,
      name: names.name,
      poolName: names.poolName,
      slice: sized.fit.slice,
      fit: sized.fit,
      capacity: cap.capacity,
      modelPath,
      servedModelName: input.pipeline,
      image: input.image ?? vllmImage(input.model),
      maxModelLen,
      endpoint,
      internalLoadBalancer: internal,
      gsaId: names.gsaId,
      ksaName: names.ksaName,
      readCondition: exportReadCondition(input.bucket, onlyDir),
      deployment,
      service: serviceOf(input.namespace, names.name, labels, internal),
      smokeJob: smokeJobOf(input, smokeJobName, { ...labels, [SERVE_REVISION_LABEL]: revision }, endpoint, window),
      smokeJobName,
      revision,
      startupSeconds,
      smokeDeadlineSeconds: window.deadlineSeconds,
      smokeAttempts: window.attempts,
      waitMinutes: window.waitMinutes,
      exportConfigObject: { bucket: input.bucket, name: `${onlyDir}/config.json` },
    },
  };
}

interface Built {
  readonly input: ServeInput;
  readonly names: ReturnType<typeof serveNames> & ReturnType<typeof serveIdentityOf>;
  readonly fit: ServingFit;
  readonly maxModelLen: number;
  readonly onlyDir: string;
  readonly labels: Record<string, string>;
  readonly startupSeconds: number;
}

/**
 * The vLLM Deployment. `Recreate`: the slice has one host and the server takes every chip, so a second pod could not
 * start while the first runs; the endpoint has no ready server while the new one loads (docs/pipelines.md "Serving").
 */
function deploymentOf(b: Built): Record<string, unknown> {
  const { input, names, fit, labels } = b;
  const slice = fit.slice;
  const image = input.image ?? vllmImage(input.model);
  const vllmArgs = servingOf(input.model)?.vllmArgs ?? [];
  return compact({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.name, namespace: input.namespace, labels },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { [SERVE_LABEL]: names.name } },
      template: {
        metadata: { labels, annotations: { [GCSFUSE_ANNOTATION]: 'true' } },
        spec: {
          serviceAccountName: names.ksaName,
          nodeSelector: { ...slice.nodeSelector, 'cloud.google.com/gke-nodepool': names.poolName, [SERVE_LABEL]: names.name },
          tolerations: [{ ...TPU_TOLERATION }, { ...servePoolTaint(names.name), operator: 'Equal', effect: 'NoSchedule' }],
          terminationGracePeriodSeconds: 60,
          containers: [
            {
              name: 'vllm',
              image,
              imagePullPolicy: pullPolicy(image),
              command: ['vllm', 'serve', MODEL_MOUNT],
              args: ['--served-model-name', input.pipeline, '--port', String(VLLM_PORT), '--tensor-parallel-size', String(fit.tensorParallel), '--max-model-len', String(b.maxModelLen), ...vllmArgs],
              ports: [{ name: 'http', containerPort: VLLM_PORT }],
              resources: { requests: { 'google.com/tpu': String(slice.chipsPerVm) }, limits: { 'google.com/tpu': String(slice.chipsPerVm) } },
              startupProbe: probe(STARTUP_PROBE_PERIOD_SECONDS, b.startupSeconds / STARTUP_PROBE_PERIOD_SECONDS, 5),
              readinessProbe: probe(5, 3, 2),
              livenessProbe: probe(10, 3, 5),
              volumeMounts: [
                { name: MODEL_VOLUME, mountPath: MODEL_MOUNT, readOnly: true },
                { name: 'dshm', mountPath: '/dev/shm' },
              ],
            },
          ],
          volumes: [
            {
              name: MODEL_VOLUME,
              csi: {
                driver: GCSFUSE_DRIVER,
                readOnly: true,
                volumeAttributes: { bucketName: input.bucket, mountOptions: `implicit-dirs,only-dir=${b.onlyDir},${SERVE_FUSE_ACCESS.mountOption}`, ...SERVE_FUSE_ACCESS.volumeAttribute },
              },
            },
            { name: 'dshm', emptyDir: { medium: 'Memory' } },
          ],
        },
      },
    },
  });
}

function serviceOf(namespace: string, name: string, labels: Record<string, string>, internal: boolean): Record<string, unknown> {
  return compact({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels, ...(internal ? { annotations: { [INTERNAL_LB_ANNOTATION]: 'Internal' } } : {}) },
    spec: { type: internal ? 'LoadBalancer' : 'ClusterIP', selector: { [SERVE_LABEL]: name }, ports: [{ name: 'http', port: VLLM_PORT, targetPort: VLLM_PORT, protocol: 'TCP' }] },
  });
}

function smokeJobOf(input: ServeInput, name: string, labels: Record<string, string>, endpoint: string, window: { deadlineSeconds: number; attempts: number }): Record<string, unknown> {
  const image = input.image ?? vllmImage(input.model);
  return compact({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: input.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: window.deadlineSeconds,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { 'cloud.google.com/gke-nodepool': input.cpuPool },
          containers: [{ name: 'smoke', image, imagePullPolicy: pullPolicy(image), command: ['/bin/bash', '-c', smokeScript(endpoint, input.pipeline, window.attempts)] }],
        },
      },
    },
  });
}

/** What the deploy prints when the smoke test ended without a chat completion: what to read, how to retry. */
export function smokeFailureMessage(plan: ServePlan): string {
  const job = plan.smokeJobName;
  return (
    `${plan.stack}: the smoke test (Job ${plan.namespace}/${job}) got no chat completion from ${plan.endpoint}. ` +
    `Read its log: kubectl logs -n ${plan.namespace} job/${job} ; the server's: kubectl logs -n ${plan.namespace} deployment/${plan.name} ; ` +
    `readiness: npm run status -- ${plan.stack}. After the fix, run the smoke test again: ` +
    `kubectl delete job -n ${plan.namespace} ${job} && npm run deploy -- ${plan.stack}`
  );
}

/** What the deploy prints when the export has no config.json: the pipeline has not exported it (yet). */
export function exportMissingMessage(plan: ServePlan): string {
  const object = `gs://${plan.exportConfigObject.bucket}/${plan.exportConfigObject.name}`;
  return (
    `${plan.stack}: the export ${plan.modelPath} has no config.json (${object}), so the server would not start; nothing was changed. ` +
    `Deploy the serve stack after ${plan.pipeline}'s to-hf step has written it: npm run status -- ${plan.pipeline}`
  );
}

/** The review's line for a serve stack: what it serves on which pool. */
export function serveSummary(plan: ServePlan): string {
  return `${plan.stack}: vLLM serves ${plan.modelPath} on ${plan.slice.machineType} ${plan.slice.topology} (${plan.slice.acceleratorType}, ${plan.capacity.type}; ${fitText(plan.fit)})`;
}
