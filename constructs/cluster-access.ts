/**
 * How the Kubernetes and Helm providers of every stack reach and authenticate to the cluster.
 *
 * Exec credentials, never a token read at plan time. `data.google_client_config.access_token` is an OAuth access
 * token that lives about an hour, is read once when the provider is configured, and is written to state. The
 * kubernetes_manifest waiter (hashicorp/terraform-provider-kubernetes v2.38.0, manifest/provider/waiter.go
 * `FieldWaiter.Wait`) polls the object every second and returns on the first API error, so with such a token any
 * step still running after an hour fails with 401 and the JobSet is left running outside state
 * (manifest/provider/apply.go returns without NewState on a non-timeout waiter error). With an exec plugin, client-go
 * runs `gke-gcloud-auth-plugin` again whenever the credential it returned expires
 * (`client.authentication.k8s.io/v1beta1` ExecCredential with status.expirationTimestamp), so credentials outlive any
 * wait. The plugin must be on the PATH of whoever runs Terraform (README, Prerequisites).
 */
import { HelmProviderKubernetes } from '@cdktf/provider-helm/lib/provider';
import { KubernetesProviderConfig } from '@cdktf/provider-kubernetes/lib/provider';
import { Fn } from 'cdktf';

/** The exec plugin GKE documents for kubectl and client libraries. */
export const GKE_AUTH_PLUGIN = { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'gke-gcloud-auth-plugin' } as const;

/** Where the API server is: the IP endpoint with the cluster CA, or the DNS endpoint (public certificate). */
export interface ClusterEndpoint {
  /** `https://...` */
  readonly host: string;
  /** Base64 cluster CA certificate (IP endpoint only). @default - none (DNS endpoint: a publicly trusted certificate) */
  readonly caCertificateBase64?: string;
}

/** The endpoint of a cluster: through its DNS endpoint when `dnsEndpoint`, else its IP endpoint and CA. */
export function clusterEndpoint(cluster: { endpoint: string; dnsEndpoint: string; caCertificateBase64: string }, dnsEndpoint: boolean): ClusterEndpoint {
  return dnsEndpoint
    ? { host: `https://${cluster.dnsEndpoint}` }
    : { host: `https://${cluster.endpoint}`, caCertificateBase64: cluster.caCertificateBase64 };
}

function common(endpoint: ClusterEndpoint): { host: string; clusterCaCertificate?: string } {
  return {
    host: endpoint.host,
    ...(endpoint.caCertificateBase64 !== undefined ? { clusterCaCertificate: Fn.base64decode(endpoint.caCertificateBase64) } : {}),
  };
}

/** Kubernetes provider settings (exec is a list block there). */
export function kubernetesProviderAccess(endpoint: ClusterEndpoint): Pick<KubernetesProviderConfig, 'host' | 'clusterCaCertificate' | 'exec'> {
  return { ...common(endpoint), exec: [{ ...GKE_AUTH_PLUGIN }] };
}

/** Helm provider `kubernetes` settings (exec is an object there). */
export function helmProviderAccess(endpoint: ClusterEndpoint): HelmProviderKubernetes {
  return { ...common(endpoint), exec: { ...GKE_AUTH_PLUGIN } };
}

/**
 * What node pools and Kubernetes/Helm providers need of a cluster, whether this stack creates it (GkeCluster) or
 * finds it (GkeCluster.fromClusterAttributes): aws-eks' `ICluster` (aws/aws-cdk packages/aws-cdk-lib/aws-eks). Here, beside the endpoint, so the pools (constructs/cpu-pool.ts, tpu-slice-pool.ts) name it without importing the cluster that adds them.
 */
export interface IGkeCluster {
  /** `google_container_cluster.id`, what a node pool's `cluster` takes. */
  readonly clusterId: string;
  /** The cluster's name: scopes project-wide names of what its pools create (a tpu7x workload policy). */
  readonly clusterName: string;
  /** Where the API server is, for the Kubernetes and Helm providers (constructs/cluster-access.ts). */
  endpoint(dnsEndpoint: boolean): ClusterEndpoint;
}
