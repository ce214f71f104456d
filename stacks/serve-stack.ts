/**
 * A serve stack, `serve-<pipeline>` (opt-in: `pipelines.<name>.serve.enabled`): the single-host TPU pool the serving
 * fit check chose (it exists only while this stack does), a read-only identity for the export, the vLLM Deployment,
 * its Service, and a smoke-test Job (one chat completion) the deploy waits for. Thin: everything comes from
 * jobs/serve.ts. It finds the cluster through data sources, as a pipeline stack does.
 */
import { Construct } from 'constructs';
import { TerraformOutput } from 'cdktf';
import { GoogleProvider } from '../constructs/google-provider';
import { DataGoogleStorageBucketObject } from '@cdktf/provider-google/lib/data-google-storage-bucket-object';
import { ServiceAccount } from '@cdktf/provider-google/lib/service-account';
import { ServiceAccountIamMember } from '@cdktf/provider-google/lib/service-account-iam-member';
import { StorageBucketIamMember } from '@cdktf/provider-google/lib/storage-bucket-iam-member';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import { ServiceAccountV1 } from '@cdktf/provider-kubernetes/lib/service-account-v1';
import { kubernetesProviderAccess } from '../constructs/cluster-access';
import { GkeCluster } from '../constructs/gke-cluster';
import { TpuSlicePool } from '../constructs/tpu-slice-pool';
import { Platform, workloadIdentityMember } from '../jobs/platform';
import { exportMissingMessage, ServePlan, servePoolTaint, SMOKE_ENDED, smokeFailureMessage } from '../jobs/serve';
import { BackendProps, useBackend } from './backend';
import { ProjectStack } from './project-stack';

export interface ServeStackProps extends BackendProps {
  readonly platform: Platform;
  readonly plan: ServePlan;
  /** Reach the API server through GKE's DNS-based endpoint. @default false */
  readonly dnsEndpoint?: boolean;
}

export class ServeStack extends ProjectStack {
  constructor(scope: Construct, id: string, props: ServeStackProps) {
    super(scope, id);
    const { platform, plan } = props;
    useBackend(this, id, props, platform);
    new GoogleProvider(this, 'google', { project: platform.project, region: platform.region });
    const cluster = GkeCluster.fromClusterAttributes(this, 'cluster', { name: platform.clusterName, location: platform.region, project: platform.project });
    new KubernetesProvider(this, 'kubernetes', kubernetesProviderAccess(cluster.endpoint(props.dnsEndpoint ?? false)));

    const pool = new TpuSlicePool(this, 'pool', {
      name: plan.poolName,
      cluster,
      slice: plan.slice,
      zone: platform.zone,
      capacity: plan.capacity,
      // The vLLM Deployment is no Kueue workload: no ProvisioningRequest would ever ask for a queued pool's nodes, so a
      // flex-start serving pool stays a plain flex-start pool that the Deployment's pending pod scales up.
      queuedProvisioning: false,
      // Its own label and taint: a Kueue flavor of the same shape never places a pipeline's pod here.
      dedicatedTo: servePoolTaint(plan.name),
      serviceAccountEmail: platform.nodeGsaEmail,
    });
    // Read-only, and only the export: the server reads it through the Cloud Storage FUSE mount and writes nothing.
    const gsa = new ServiceAccount(this, 'gsa', { accountId: plan.gsaId, displayName: `vLLM serving ${plan.pipeline} (read-only)` });
    const read = new StorageBucketIamMember(this, 'export-reader', { bucket: platform.bucket, role: 'roles/storage.objectViewer', member: gsa.member, condition: plan.readCondition });
    const wi = new ServiceAccountIamMember(this, 'workload-identity', {
      serviceAccountId: gsa.name,
      role: 'roles/iam.workloadIdentityUser',
      member: workloadIdentityMember(platform.project, plan.namespace, plan.ksaName),
    });
    const ksa = new ServiceAccountV1(this, 'ksa', {
      metadata: { name: plan.ksaName, namespace: plan.namespace, annotations: { 'iam.gke.io/gcp-service-account': gsa.email } },
    });
    // The export must exist before the Deployment changes: the data source is read at plan time (it depends on nothing
    // created here), so a missing export fails the plan and the running server is left as it is.
    const exportConfig = new DataGoogleStorageBucketObject(this, 'export-config', {
      bucket: plan.exportConfigObject.bucket,
      name: plan.exportConfigObject.name,
      lifecycle: { postcondition: [{ condition: '${try(self.self_link, "") != ""}', errorMessage: exportMissingMessage(plan) }] },
    });
    const deployment = new Manifest(this, 'deployment', {
      manifest: plan.deployment,
      dependsOn: [pool.pool, ksa, read, wi, exportConfig],
      timeouts: { create: `${plan.waitMinutes}m`, update: `${plan.waitMinutes}m` },
    });
    const service = new Manifest(this, 'service', { manifest: plan.service });
    // The stack's wait: it ends when the smoke Job ends, passed or failed (jobs/serve.ts SMOKE_ENDED); the gate then
    // fails the deploy at once when no chat completion came back, naming the logs to read and how to retry.
    const smoke = new Manifest(this, 'smoke-test', {
      manifest: plan.smokeJob,
      dependsOn: [deployment, service],
      wait: { fields: { 'status.conditions[0].type': SMOKE_ENDED } },
      timeouts: { create: `${plan.waitMinutes}m`, update: `${plan.waitMinutes}m` },
    });
    new DataKubernetesResource(this, 'smoke-passed', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: plan.smokeJobName, namespace: plan.namespace },
      dependsOn: [smoke],
      lifecycle: { postcondition: [{ condition: '${try(self.object.status.succeeded, 0) == 1}', errorMessage: smokeFailureMessage(plan) }] },
    });

    new TerraformOutput(this, 'endpoint', { value: plan.endpoint });
    new TerraformOutput(this, 'model_path', { value: plan.modelPath });
    new TerraformOutput(this, 'served_model_name', { value: plan.servedModelName });
    new TerraformOutput(this, 'port_forward', { value: `kubectl port-forward -n ${plan.namespace} service/${plan.name} 8000:8000` });
  }
}
