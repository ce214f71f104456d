import { GoogleProvider } from '../constructs/google-provider';
import { HelmProvider } from '@cdktf/provider-helm/lib/provider';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { TerraformOutput } from 'cdktf';
import { Construct } from 'constructs';
import { TrainingBucket } from '../constructs/bucket';
import { helmProviderAccess, kubernetesProviderAccess } from '../constructs/cluster-access';
import { Controllers } from '../constructs/controllers';
import { GkeCluster } from '../constructs/gke-cluster';
import { HfTokenSecret, LEGACY_FORGOTTEN_ADDRESSES } from '../constructs/hf-token-secret';
import { Identity } from '../constructs/identity';
import { Network } from '../constructs/network';
import { NOTIFICATION_RESOURCE_TYPES, Notifications } from '../constructs/notifications';
import { Dashboard } from '../constructs/dashboard';
import { dashboardPlan } from '../jobs/dashboard';
import { AcceleratorZoneChecks, PlaceholderGuard, ReservationChecks } from '../constructs/preflight';
import { ProjectApis } from '../constructs/project-apis';
import { TpuSlicePool } from '../constructs/tpu-slice-pool';
import type { Deployment } from '../jobs/deployment';
import { clusterVersionFloor, minMasterVersionOf } from '../jobs/tpu';
import { SYSTEM_POOL_NAME } from '../jobs/platform';
import { jobSetAdmissionObjects } from '../jobs/admission';
import { useBackend } from './backend';
import { ProjectStack } from './project-stack';

export { REQUIRED_APIS } from '../constructs/project-apis';

/**
 * The parts of the deployment (jobs/deployment.ts) infra builds from, each resolved and checked by config: the stack
 * picks nothing, it hands each part to the construct that owns it.
 */
export type InfraStackProps = Pick<Deployment, 'platform' | 'cluster' | 'nodePools' | 'bucket' | 'controllers' | 'queues' | 'state' | 'preflight' | 'notify'> & {
  /**
   * Synthesized for its teardown (`npm run destroy -- infra`, TEARDOWN): deletion protection off and no plan-time check
   * that only a create needs (the reservations, the zone's accelerators): a reservation released before the teardown
   * would fail the apply that lifts deletion protection with advice (set ZONE) meant for a create.
   * @default false
   */
  readonly teardown?: boolean;
};

/**
 * `cdktf deploy infra`: network, GKE cluster, node pools (system, cpu-np, one per TPU slice), service
 * accounts, bucket, HF-token secret, JobSet + Kueue and the Kueue queues.
 */
export class InfraStack extends ProjectStack {
  public readonly cluster: GkeCluster;
  public readonly tpuPools: TpuSlicePool[] = [];

  constructor(scope: Construct, id: string, props: InfraStackProps) {
    super(scope, id);
    const { platform, cluster: clusterSettings, nodePools, bucket: bucketSettings, controllers } = props;
    useBackend(this, id, props.state, platform);
    new GoogleProvider(this, 'google', { project: platform.project, region: platform.region });
    // Plan-time checks (constructs/preflight.ts): placeholders, then every reservation the TPU pools consume.
    const preflight = new PlaceholderGuard(this, 'preflight', { placeholders: props.preflight.placeholders });
    if (!props.teardown) {
      new ReservationChecks(this, 'reservations', {
        project: platform.project,
        zone: platform.zone,
        uses: props.preflight.reservations,
        precondition: preflight.precondition,
      });
      // Plan-time: ZONE offers each TPU machine type the pools use (with spot or flex-start nothing else would catch it
      // before the TPU pool fails, after the cluster's 20-minute create).
      new AcceleratorZoneChecks(this, 'accelerator-zone', {
        project: platform.project,
        zone: platform.zone,
        machineTypes: [...new Set(platform.tpuGroups.map((g) => g.slice.machineType))],
        precondition: preflight.precondition,
      });
    }

    // Every google_* resource below depends on the services of the APIs it calls (constructs/project-apis.ts).
    const notify = props.notify.emails.length > 0 && props.notify.pipelines.length > 0 ? props.notify : undefined;
    // The cluster's dashboard (jobs/dashboard.ts), whenever a pipeline is selected.
    const dashboard = props.notify.pipelines.length > 0 ? dashboardPlan({ project: platform.project, clusterName: platform.clusterName, namespace: platform.namespace, pipelines: props.notify.pipelines }) : undefined;
    new ProjectApis(this, notify ? NOTIFICATION_RESOURCE_TYPES : []);
    const network = new Network(this, 'network', { name: platform.clusterName, region: platform.region });

    const identity = new Identity(this, 'identity', { platform });
    const nodeServiceAccount = identity.nodeServiceAccount;
    this.cluster = new GkeCluster(this, 'gke', {
      name: platform.clusterName,
      region: platform.region,
      project: platform.project,
      networkId: network.network.id,
      subnetworkId: network.subnetwork.id,
      authorizedCidrs: clusterSettings.authorizedCidrs,
      allowPublicAccess: clusterSettings.allowPublicAccess,
      dnsEndpoint: clusterSettings.dnsEndpoint,
      releaseChannel: clusterSettings.releaseChannel,
      // The GKE version floor of the pools' TPU generations (the TPU table: tpu7x pools need 1.34.0-gke.2201000), as its
      // minor version alias (`1.34`): never one exact patch, which GKE stops offering (jobs/tpu.ts minMasterVersionOf).
      minMasterVersion: versionAlias(clusterVersionFloor(platform.tpuGroups.map((g) => g.slice.generation))?.version),
      deletionProtection: props.teardown ? false : clusterSettings.deletionProtection,
      upgradeExclusionDays: clusterSettings.upgradeExclusionDays,
      // The default pool GKE boots once (and this stack removes) runs as the node identity too, as does every pool
      // added through the cluster, in the slice's zone.
      defaultPoolServiceAccount: nodeServiceAccount.email,
      nodeZone: platform.zone,
    });
    const cluster = this.cluster.cluster;

    // Kubernetes and Helm talk to the cluster this stack creates; both providers are configured lazily,
    // so the first apply plans before the cluster exists (only helm_release and typed resources here,
    // no kubernetes_manifest, which would need the API server at plan time). With the DNS endpoint on, they go
    // through it (IAM-authorized, public certificate): a hosted CI runner outside the IP allow-list can apply too.
    // Exec credentials (constructs/cluster-access.ts): no token in state, none that expires during a wait.
    const endpoint = this.cluster.endpoint(clusterSettings.dnsEndpoint);
    new KubernetesProvider(this, 'kubernetes', kubernetesProviderAccess(endpoint));
    new HelmProvider(this, 'helm', { kubernetes: helmProviderAccess(endpoint) });

    // The cluster adds its pools (aws-eks Cluster.addNodegroupCapacity): cluster, zone and node identity from it.
    const systemPool = this.cluster.addCpuPool('system-pool', {
      name: SYSTEM_POOL_NAME,
      machineType: nodePools.system.machineType,
      nodeCount: nodePools.system.nodes,
    });
    const cpuPool = this.cluster.addCpuPool('cpu-pool', {
      name: platform.cpuPool.name,
      machineType: platform.cpuPool.machineType,
      maxNodes: nodePools.cpuMaxNodes,
    });
    for (const group of platform.tpuGroups) {
      for (const poolName of group.poolNames) {
        this.tpuPools.push(this.cluster.addTpuSlicePool(poolName, { name: poolName, slice: group.slice, capacity: group.capacity }));
      }
    }

    const bucket = new TrainingBucket(this, 'bucket', {
      name: platform.bucket,
      location: platform.region,
      writer: identity.workloadServiceAccount.member,
      hostNetworkWriter: nodeServiceAccount.member,
      verdictWriter: identity.verdictServiceAccount.member,
      scratchPrefix: platform.pathwaysScratchPrefix,
      scratchExpiryDays: bucketSettings.scratchExpiryDays,
      forceDestroy: bucketSettings.forceDestroy,
      softDeleteDays: bucketSettings.softDeleteDays,
      access: bucketSettings.access,
    });
    new HfTokenSecret(this, 'hf-token', {
      secretId: platform.hfTokenSecretId,
      location: platform.region,
      reader: identity.workloadServiceAccount.member,
      verdictReader: identity.verdictServiceAccount.member,
    });
    // The secret, the KSA and their bindings of the version before per-cluster identities: forgotten, never destroyed.
    this.addOverride('removed', LEGACY_FORGOTTEN_ADDRESSES.map((from) => ({ from, lifecycle: { destroy: false } })));

    const engine = new Controllers(this, 'controllers', {
      jobsetVersion: controllers.jobsetVersion,
      kueueVersion: controllers.kueueVersion,
      queuesChartPath: controllers.queuesChartPath,
      queueObjects: props.queues.objects,
      workflows: { namespace: platform.namespace, systemPool: SYSTEM_POOL_NAME },
      admissionObjects: jobSetAdmissionObjects(platform),
      releaseReaders: controllers.releaseReaders,
      dependsOn: [systemPool.pool, cpuPool.pool],
      webhookAccess: {
        namePrefix: platform.clusterName,
        network: network.network.id,
        controlPlaneCidr: this.cluster.masterCidr,
        nodeServiceAccount: nodeServiceAccount.email,
      },
    });
    // The KSAs and the verdict writer's Role live in the pipelines' namespace: after it, where infra creates it.
    identity.bindWorkloads({ cluster, nodePool: systemPool.pool, namespace: engine.pipelinesNamespace });

    if (notify) {
      new Notifications(this, 'notify', {
        emails: notify.emails,
        plan: notify.plan,
      });
    }

    if (dashboard) {
      new Dashboard(this, 'dashboard', { plan: dashboard });
      new TerraformOutput(this, 'dashboard_url', { description: 'The Cloud Monitoring dashboard of the cluster and its pipelines', value: dashboard.url });
    }

    new TerraformOutput(this, 'get_credentials_command', {
      description: 'Configures kubectl for the cluster',
      value: clusterSettings.credentialsCommand,
    });
    new TerraformOutput(this, 'bucket_url', { description: 'Checkpoints and exports', value: bucket.url });
    new TerraformOutput(this, 'hf_token_secret_command', {
      description: 'Stores the Hugging Face token in Secret Manager (reads $HF_TOKEN from your shell)',
      value: platform.hfTokenSecretCommand,
    });
    new TerraformOutput(this, 'local_queue', {
      description: 'Kueue LocalQueue the pipelines submit to',
      value: `${platform.namespace}/${platform.localQueue}`,
    });
    new TerraformOutput(this, 'tpu_node_pools', {
      description: 'One node pool per TPU slice',
      value: platform.tpuGroups.flatMap((g) => g.poolNames),
    });
    new TerraformOutput(this, 'kueue_tpu_quota', {
      description: 'google.com/tpu quota of the ClusterQueue per slice-shape flavor',
      value: props.queues.tpuChipsByFlavor,
    });
  }
}

function versionAlias(floor: string | undefined): string | undefined {
  return floor === undefined ? undefined : minMasterVersionOf(floor);
}
