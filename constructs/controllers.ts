import { ComputeFirewall } from '@cdktf/provider-google/lib/compute-firewall';
import { Release } from '@cdktf/provider-helm/lib/release';
import { AssetType, ITerraformDependable, TerraformAsset } from 'cdktf';
import { Construct } from 'constructs';
import { KUEUE_WEBHOOK_PORT, kueueChartValues } from '../jobs/kueue';
import { jobsetChartValues } from '../jobs/jobset';
import { ARGO_RELEASE, ARGO_WORKFLOWS, argoChartValues, ArgoValuesOptions } from '../jobs/argo';

/**
 * Ports the API server calls on the controllers' pods: the JobSet webhook (charts/jobset/templates/controller/
 * deployment.yaml @ v0.12.0: containerPort 9443), Kueue's webhook (Configuration webhook.port 9443) and Kueue's
 * visibility API server (charts/kueue/templates/visibility/service.yaml @ v0.19.2: targetPort 8082). A private
 * cluster's control plane reaches nodes on 443 and 10250 only; both webhooks fail closed (failurePolicy Fail), so
 * without this rule no JobSet (and no Job) could be created.
 */
export const CONTROLLER_PORTS: readonly number[] = [...new Set([9443, KUEUE_WEBHOOK_PORT, 8082])];

/** Where the controllers' charts are published (OCI, no `helm repo add` needed). */
export const JOBSET_CHART_REPOSITORY = 'oci://registry.k8s.io/jobset/charts';
export const KUEUE_CHART_REPOSITORY = 'oci://registry.k8s.io/kueue/charts';

export interface ControllersProps {
  /** JobSet chart version (no leading v). */
  readonly jobsetVersion: string;
  /** Kueue chart version (no leading v). */
  readonly kueueVersion: string;
  /** Absolute path of the local chart that renders the Kueue objects (charts/kueue-queues). */
  readonly queuesChartPath: string;
  /** Complete Kueue objects (jobs/kueue.ts) the local chart renders. */
  readonly queueObjects: readonly Record<string, unknown>[];
  /** Values of the Kueue chart. @default kueueChartValues(undefined, workflows.systemPool) (jobs/kueue.ts: the manager configuration with only the JobSet integration, the controller on the system pool) */
  readonly kueueValues?: Record<string, unknown>;
  /** Where Argo Workflows runs: the pipelines' namespace (the release's, the only one it watches) and the system pool. */
  readonly workflows: ArgoValuesOptions;
  /** What must exist before any release installs (the node pools the controllers run on). @default - nothing */
  readonly dependsOn?: ITerraformDependable[];
  /** Helm timeout per release, seconds. @default 900 */
  readonly timeoutSeconds?: number;
  /** Where the control plane calls the controllers' webhooks from, and on which nodes they run. */
  readonly webhookAccess: {
    /** Prefix of the firewall rule's name (the cluster name). */
    readonly namePrefix: string;
    /** VPC of the nodes. */
    readonly network: string;
    /** The control plane's range (private cluster). */
    readonly controlPlaneCidr: string;
    /** Service account of the nodes the controllers run on (the firewall rule's target). */
    readonly nodeServiceAccount: string;
  };
}

/**
 * JobSet and Kueue from their upstream OCI Helm charts, then the Kueue queue objects from a local chart, and Argo
 * Workflows (the engine that runs each pipeline's Workflow) from argo-helm, namespaced to the pipelines' namespace.
 * helm_release needs no CRD at plan time, unlike kubernetes_manifest, so all of this plans in the same
 * apply that creates the cluster. The local chart travels with the synthesized stack as a TerraformAsset,
 * so its path resolves wherever Terraform runs.
 */
export class Controllers extends Construct {
  public readonly jobset: Release;
  public readonly kueue: Release;
  public readonly queues: Release;
  /** Argo Workflows: the controller (and its UI, ClusterIP only) in the pipelines' namespace (jobs/argo.ts). */
  public readonly workflows: Release;
  /** Lets the control plane reach the webhooks on the nodes. */
  public readonly webhookFirewall: ComputeFirewall;

  constructor(scope: Construct, id: string, props: ControllersProps) {
    super(scope, id);
    const timeout = props.timeoutSeconds ?? 900;
    this.webhookFirewall = new ComputeFirewall(this, 'webhooks', {
      name: `${props.webhookAccess.namePrefix}-control-plane-to-webhooks`,
      network: props.webhookAccess.network,
      direction: 'INGRESS',
      sourceRanges: [props.webhookAccess.controlPlaneCidr],
      targetServiceAccounts: [props.webhookAccess.nodeServiceAccount],
      allow: [{ protocol: 'tcp', ports: CONTROLLER_PORTS.map(String) }],
      description: 'GKE control plane -> JobSet and Kueue webhooks and the Kueue visibility API',
    });
    this.jobset = new Release(this, 'jobset', {
      name: 'jobset',
      repository: JOBSET_CHART_REPOSITORY,
      chart: 'jobset',
      version: props.jobsetVersion,
      namespace: 'jobset-system',
      createNamespace: true,
      wait: true,
      timeout,
      // On the system pool, as Argo's controller: never on a TPU or CPU pool node that is repaired or scaled away.
      values: [JSON.stringify(jobsetChartValues(props.workflows.systemPool))],
      // The webhook must be reachable before Helm waits for the release and Kueue installs its objects.
      dependsOn: [...(props.dependsOn ?? []), this.webhookFirewall],
    });
    this.kueue = new Release(this, 'kueue', {
      name: 'kueue',
      repository: KUEUE_CHART_REPOSITORY,
      chart: 'kueue',
      version: props.kueueVersion,
      namespace: 'kueue-system',
      createNamespace: true,
      wait: true,
      timeout,
      values: [JSON.stringify(props.kueueValues ?? kueueChartValues(undefined, props.workflows.systemPool))],
      // Kueue manages JobSets; its webhook must see the JobSet CRD when it starts.
      dependsOn: [this.jobset],
    });
    const chart = new TerraformAsset(this, 'queues-chart', { path: props.queuesChartPath, type: AssetType.DIRECTORY });
    this.queues = new Release(this, 'queues', {
      name: 'kueue-queues',
      chart: chart.path,
      namespace: 'kueue-system',
      wait: true,
      timeout,
      values: [JSON.stringify({ objects: props.queueObjects })],
      // The queue objects are validated by Kueue's webhooks: install them after Kueue is ready.
      dependsOn: [this.kueue],
    });
    this.workflows = new Release(this, 'argo-workflows', {
      name: ARGO_RELEASE,
      repository: ARGO_WORKFLOWS.chartRepository,
      chart: ARGO_WORKFLOWS.chart,
      version: ARGO_WORKFLOWS.chartVersion,
      namespace: props.workflows.namespace,
      createNamespace: true,
      wait: true,
      timeout,
      values: [JSON.stringify(argoChartValues(props.workflows))],
      // Its Workflows create JobSets: the JobSet CRD and Kueue's webhooks come first.
      dependsOn: [this.kueue],
    });
  }
}
