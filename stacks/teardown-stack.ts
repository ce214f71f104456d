/**
 * A stack as `npm run destroy -- <stack>` synthesizes it (TEARDOWN, scripts/cdktf.mjs) for a pipeline, serve or
 * rehearsal stack: its backend (the same state key) and its providers (google; kubernetes on infra's cluster, found
 * through the same data source), and nothing else. Terraform's destroy removes every resource the state holds,
 * configured or not, with the providers the configuration declares; so the destroy reads nothing that may be gone:
 *
 * - a serve stack whose pipeline changed or is off: the full stack reads the export of the *current* spec through
 *   `data.google_storage_bucket_object`, which errors on a 404 (hashicorp/terraform-provider-google
 *   google/services/storage/data_source_google_storage_bucket_object.go `dataSourceGoogleStorageBucketObjectRead`:
 *   `fmt.Errorf("Error retrieving storage bucket object: %s", err)`, l.65-72 at the pinned v6.50.0 per issue 46; read here
 *   at commit 2bdfed3d), and `terraform destroy` refreshes first, reading every data source
 *   (Terraform 1.11.4: a data source that errors fails the destroy, __tests__/environments/teardown.test.ts);
 * - a pipeline stack whose token secret version is gone (its preflight data source fails the read likewise), or a
 *   pipeline no longer in the config at all (its stack would not be synthesized: `cdktf destroy` would find no stack).
 *
 * `-refresh=false` would skip the reads too (the same test), but leaves the state unrefreshed and cannot bring back a
 * stack the config no longer builds; this works for both.
 */
import { Construct } from 'constructs';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { GoogleProvider } from '../constructs/google-provider';
import { kubernetesProviderAccess } from '../constructs/cluster-access';
import { GkeCluster } from '../constructs/gke-cluster';
import { Platform } from '../jobs/platform';
import { BackendProps, useBackend } from './backend';
import { ProjectStack } from './project-stack';

export interface TeardownStackProps extends BackendProps {
  readonly platform: Platform;
  /** Reach the API server through GKE's DNS-based endpoint. @default false */
  readonly dnsEndpoint?: boolean;
}

export class TeardownStack extends ProjectStack {
  constructor(scope: Construct, id: string, props: TeardownStackProps) {
    super(scope, id);
    const { platform } = props;
    useBackend(this, id, props, platform);
    new GoogleProvider(this, 'google', { project: platform.project, region: platform.region });
    const cluster = GkeCluster.fromClusterAttributes(this, 'cluster', { name: platform.clusterName, location: platform.region, project: platform.project });
    new KubernetesProvider(this, 'kubernetes', kubernetesProviderAccess(cluster.endpoint(props.dnsEndpoint ?? false)));
  }
}
