import { ProjectService } from '@cdktf/provider-google/lib/project-service';
import { Aspects, IAspect, TerraformResource, dependable } from 'cdktf';
import { Construct, IConstruct } from 'constructs';

/**
 * The Google APIs each resource type this project creates calls: the one home of that fact. The infra stack enables
 * exactly these APIs (never disabled on destroy), and every resource depends on the services of its own APIs, so
 * on a fresh project nothing is created before its API is on (service accounts and IAM otherwise race the
 * enablement: hashicorp/terraform-provider-google #6101, #11435).
 *
 * Enabling APIs needs two APIs that Terraform cannot enable for itself: Cloud Resource Manager and Service Usage
 * (README, Prerequisites: `gcloud services enable cloudresourcemanager.googleapis.com serviceusage.googleapis.com`).
 * Project IAM (google_project_iam_member) calls Cloud Resource Manager, which is therefore a prerequisite, not a
 * managed service.
 */
export const APIS_OF_RESOURCE: Readonly<Record<string, readonly string[]>> = {
  google_compute_network: ['compute.googleapis.com'],
  google_compute_subnetwork: ['compute.googleapis.com'],
  google_compute_firewall: ['compute.googleapis.com'],
  google_compute_router: ['compute.googleapis.com'],
  google_compute_router_nat: ['compute.googleapis.com'],
  // tpu7x multi-host slices: the workload policy that places them (constructs/tpu-slice-pool.ts).
  google_compute_resource_policy: ['compute.googleapis.com'],
  // Image streaming (gcfs_config) needs the Container File System API on the cluster and its nodes.
  google_container_cluster: ['container.googleapis.com', 'containerfilesystem.googleapis.com'],
  google_container_node_pool: ['container.googleapis.com', 'containerfilesystem.googleapis.com'],
  google_service_account: ['iam.googleapis.com'],
  google_service_account_iam_member: ['iam.googleapis.com'],
  google_project_iam_member: [],
  // The `objects` bucket access setting's custom role (constructs/bucket.ts): IAM API projects.roles.
  google_project_iam_custom_role: ['iam.googleapis.com'],
  google_storage_bucket: ['storage.googleapis.com'],
  google_storage_bucket_iam_member: ['storage.googleapis.com'],
  google_secret_manager_secret: ['secretmanager.googleapis.com'],
  google_secret_manager_secret_iam_member: ['secretmanager.googleapis.com'],
  // The cluster's dashboard and its loss metric (constructs/dashboard.ts), with any pipeline. GKE's own system logs and
  // metrics need both APIs on anyway, so they are managed for every configuration.
  google_monitoring_dashboard: ['monitoring.googleapis.com'],
  google_logging_metric: ['logging.googleapis.com'],
};

/**
 * Resource types only an opt-in creates, and their APIs: enabled only in a stack that asks for them (ProjectApis'
 * `optionalTypes`), so a config without the opt-in plans no new service. NOTIFY_EMAIL (constructs/notifications.ts):
 * email channels and alert policies, and the log-based metric of training step lines.
 */
export const APIS_OF_OPTIONAL_RESOURCE: Readonly<Record<string, readonly string[]>> = {
  google_monitoring_notification_channel: ['monitoring.googleapis.com'],
  google_monitoring_alert_policy: ['monitoring.googleapis.com'],
  google_logging_metric: ['logging.googleapis.com'],
};

/**
 * The APIs the plan-time checks' data sources call (constructs/preflight.ts). Data sources are read during the plan,
 * before any dependency could enable their API, so these are enabled by infra for the pipeline stacks' later plans:
 * the Artifact Registry API answers the image-exists check (the compute and Secret Manager ones are above).
 */
export const APIS_OF_DATA_SOURCE: Readonly<Record<string, readonly string[]>> = {
  google_compute_reservation: ['compute.googleapis.com'],
  google_secret_manager_secret_version: ['secretmanager.googleapis.com'],
  google_artifact_registry_docker_image: ['artifactregistry.googleapis.com'],
};

/** The APIs Terraform cannot enable for itself: the user enables them once, by hand, before the first deploy (README). */
export const PREREQUISITE_APIS = ['cloudresourcemanager.googleapis.com', 'serviceusage.googleapis.com'] as const;

/** Every managed API, derived from the table. */
export const REQUIRED_APIS: readonly string[] = [
  ...new Set([...Object.values(APIS_OF_RESOURCE), ...Object.values(APIS_OF_DATA_SOURCE)].flat()),
].sort();

/**
 * Enables REQUIRED_APIS in `scope` (ids `api-<name>` directly in the stack: they are the Terraform addresses of
 * existing deployments) and makes every google_* resource of the stack depend on the services it calls. A resource
 * type missing from APIS_OF_RESOURCE fails the synth (its API would otherwise go unchecked).
 */
export class ProjectApis implements IAspect {
  public readonly services: Readonly<Record<string, ProjectService>>;

  private readonly optionalTypes: ReadonlySet<string>;

  /** `optionalTypes`: keys of APIS_OF_OPTIONAL_RESOURCE the stack creates (their APIs are enabled too). @default [] */
  constructor(scope: Construct, optionalTypes: readonly string[] = []) {
    const unknown = optionalTypes.filter((t) => !APIS_OF_OPTIONAL_RESOURCE[t]);
    if (unknown.length > 0) throw new Error(`ProjectApis: ${unknown.join(', ')} not in APIS_OF_OPTIONAL_RESOURCE (constructs/project-apis.ts)`);
    this.optionalTypes = new Set(optionalTypes);
    const apis = [...new Set([...REQUIRED_APIS, ...optionalTypes.flatMap((t) => APIS_OF_OPTIONAL_RESOURCE[t]!)])].sort();
    this.services = Object.fromEntries(
      apis.map((api) => [api, new ProjectService(scope, `api-${api.split('.')[0]}`, { service: api, disableOnDestroy: false })]),
    );
    Aspects.of(scope).add(this);
  }

  visit(node: IConstruct): void {
    if (!(node instanceof TerraformResource) || node instanceof ProjectService) return;
    const type = node.terraformResourceType;
    if (!type.startsWith('google_')) return;
    const apis = APIS_OF_RESOURCE[type] ?? (this.optionalTypes.has(type) ? APIS_OF_OPTIONAL_RESOURCE[type] : undefined);
    if (!apis) {
      throw new Error(
        `${node.node.path}: resource type ${type} is not in APIS_OF_RESOURCE (constructs/project-apis.ts), nor an optional type this stack enables; add the APIs it calls`,
      );
    }
    const deps = apis.map((api) => dependable(this.services[api]));
    const have = new Set(node.dependsOn ?? []);
    node.dependsOn = [...(node.dependsOn ?? []), ...deps.filter((d) => !have.has(d))];
  }
}
