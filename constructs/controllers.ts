import { ComputeFirewall } from '@cdktf/provider-google/lib/compute-firewall';
import { Release } from '@cdktf/provider-helm/lib/release';
import { AssetType, ITerraformDependable, TerraformAsset } from 'cdktf';
import { Construct } from 'constructs';
import { KUEUE_WEBHOOK_PORT, kueueChartValues } from '../jobs/kueue';
import { ARGO_NAMESPACE, ARGO_NAMESPACE_LABELS, ARGO_RELEASE, RELEASE_NAMESPACES, ARGO_WORKFLOWS, argoChartValues, ArgoValuesOptions } from '../jobs/argo';
import { NamespaceV1 } from '@cdktf/provider-kubernetes/lib/namespace-v1';
import { RoleBindingV1 } from '@cdktf/provider-kubernetes/lib/role-binding-v1';
import { RoleV1 } from '@cdktf/provider-kubernetes/lib/role-v1';
import { jobsetChartValues } from '../jobs/jobset';

/**
 * Ports the API server calls on the controllers' pods: the JobSet webhook (charts/jobset/templates/controller/
 * deployment.yaml @ v0.12.0: containerPort 9443), Kueue's webhook (Configuration webhook.port 9443) and Kueue's
 * visibility API server (charts/kueue/templates/visibility/service.yaml @ v0.19.2: targetPort 8082). A private
 * cluster's control plane reaches nodes on 443 and 10250 only; both webhooks fail closed (failurePolicy Fail), so
 * without this rule no JobSet (and no Job) could be created.
 */
export const CONTROLLER_PORTS: readonly number[] = [...new Set([9443, KUEUE_WEBHOOK_PORT, 8082])];

/** Where this construct's Helm releases (and their Secrets) live: jobs/argo.ts RELEASE_NAMESPACES. */
export { RELEASE_NAMESPACES };
/** Name of the Role (and binding) that lets releaseReaders read the release Secrets of a namespace. */
export const RELEASE_READER_ROLE = 'helm-release-reader';

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
  /** Where Argo Workflows runs: the pipelines' namespace (the only one it manages; the release is in ARGO_NAMESPACE) and the system pool. */
  readonly workflows: ArgoValuesOptions;
  /**
   * Cluster-scoped admission objects rendered by the local chart in a release of their own (`jobset-admission` in
   * kueue-system): the JobSet ValidatingAdmissionPolicy and binding (jobs/admission.ts). @default - none
   */
  readonly admissionObjects?: readonly Record<string, unknown>[];
  /**
   * Google accounts (the CI plan identity, by email) that may `get,list` Secrets in each namespace that holds one of
   * these releases (RELEASE_NAMESPACES), where Helm keeps each release. @default - none
   */
  readonly releaseReaders?: readonly string[];
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
 * Workflows (the engine that runs each pipeline's Workflow) from argo-helm, in its own namespace (ARGO_NAMESPACE, Pod
 * Security `restricted`), managing the pipelines' namespace only.
 * helm_release needs no CRD at plan time, unlike kubernetes_manifest, so all of this plans in the same
 * apply that creates the cluster. The local chart travels with the synthesized stack as a TerraformAsset,
 * so its path resolves wherever Terraform runs.
 */
export class Controllers extends Construct {
  public readonly jobset: Release;
  public readonly kueue: Release;
  public readonly queues: Release;
  /** Argo Workflows: the controller (and its UI, ClusterIP only) in ARGO_NAMESPACE, managing the pipelines' namespace (jobs/argo.ts). */
  public readonly workflows: Release;
  /** The JobSet admission policy's release (when admissionObjects are given). */
  public readonly admission?: Release;
  /** Per RELEASE_NAMESPACES entry, the releaseReaders' Role and binding (none without readers). */
  public readonly releaseReaderRoles: RoleV1[] = [];
  /** ARGO_NAMESPACE, Pod Security `restricted`. */
  public readonly argoNamespace: NamespaceV1;
  /** The pipelines' namespace, unless it is `default` (which every cluster has). */
  public readonly pipelinesNamespace?: NamespaceV1;
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
    // The pipelines' namespace was created by the Argo release when it lived there (createNamespace); now by infra.
    this.pipelinesNamespace =
      props.workflows.namespace === 'default'
        ? undefined
        : new NamespaceV1(this, 'pipelines-namespace', { metadata: { name: props.workflows.namespace }, dependsOn: props.dependsOn });
    const chart = new TerraformAsset(this, 'queues-chart', { path: props.queuesChartPath, type: AssetType.DIRECTORY });
    this.queues = new Release(this, 'queues', {
      name: 'kueue-queues',
      chart: chart.path,
      namespace: 'kueue-system',
      wait: true,
      timeout,
      values: [JSON.stringify({ objects: props.queueObjects })],
      // The queue objects are validated by Kueue's webhooks: install them after Kueue is ready; the LocalQueue lives in
      // the pipelines' namespace, after it where infra creates it.
      dependsOn: [this.kueue, ...(this.pipelinesNamespace ? [this.pipelinesNamespace] : [])],
    });
    this.argoNamespace = new NamespaceV1(this, 'argo-namespace', {
      metadata: { name: ARGO_NAMESPACE, labels: { ...ARGO_NAMESPACE_LABELS } },
      dependsOn: props.dependsOn,
    });
    this.workflows = new Release(this, 'argo-workflows', {
      name: ARGO_RELEASE,
      repository: ARGO_WORKFLOWS.chartRepository,
      chart: ARGO_WORKFLOWS.chart,
      version: ARGO_WORKFLOWS.chartVersion,
      namespace: ARGO_NAMESPACE,
      createNamespace: false,
      wait: true,
      timeout,
      values: [JSON.stringify(argoChartValues(props.workflows))],
      // Its Workflows create JobSets: the JobSet CRD and Kueue's webhooks come first; its RBAC goes into the pipelines' namespace.
      dependsOn: [this.kueue, this.argoNamespace, ...(this.pipelinesNamespace ? [this.pipelinesNamespace] : [])],
    });
    if (props.admissionObjects) {
      this.admission = new Release(this, 'jobset-admission', {
        name: 'jobset-admission',
        chart: chart.path,
        namespace: 'kueue-system',
        wait: true,
        timeout,
        values: [JSON.stringify({ objects: props.admissionObjects })],
        // Before the first Workflow can create a JobSet: installed with the engine.
        dependsOn: [this.kueue],
      });
    }
    this.releaseReaders(props.releaseReaders ?? []);
  }

  /**
   * Lets the plan identity see the releases: hashicorp/helm v3.1.1 reads a release through Helm's storage driver
   * (helm/resource_helm_release.go getRelease l.1864-1885: action.Get; helm v3.18.4's Secrets driver `Query` lists the
   * namespace's Secrets with the label selector name=<release>,owner=helm), and a refused read (403) is not an error
   * to it: resourceReleaseExists returns false with the error in diagnostics (l.1847-1857) and Read then drops the
   * release from state without reporting them (l.1018-1022), so every plan would show a create. A label selector cannot
   * narrow RBAC: `list` on Secrets returns every Secret of the namespace, which is why no release lives in the
   * pipelines' namespace (docs/ci.md "CI identities" says what each namespace's Secrets are). GKE maps a Google
   * account to the Kubernetes user named by its email.
   */
  private releaseReaders(readers: readonly string[]): void {
    if (readers.length === 0) return;
    const created: Record<(typeof RELEASE_NAMESPACES)[number], ITerraformDependable> = { 'jobset-system': this.jobset, 'kueue-system': this.kueue, [ARGO_NAMESPACE]: this.argoNamespace };
    for (const namespace of RELEASE_NAMESPACES) {
      const role = new RoleV1(this, `release-reader-${namespace}`, {
        metadata: { name: RELEASE_READER_ROLE, namespace },
        rule: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
        dependsOn: [created[namespace]],
      });
      new RoleBindingV1(this, `release-reader-${namespace}-binding`, {
        metadata: { name: RELEASE_READER_ROLE, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name },
        subject: readers.map((name) => ({ kind: 'User', name, apiGroup: 'rbac.authorization.k8s.io' })),
      });
      this.releaseReaderRoles.push(role);
    }
  }
}
