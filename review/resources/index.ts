/** The resource describers, one file per Terraform resource type; `describerFor(type)` picks one. */
import { containerCluster } from './container-cluster';
import { containerNodePool } from './container-node-pool';
import { helmRelease } from './helm-release';
import { iamMember } from './iam-member';
import { kubernetesManifest } from './kubernetes-manifest';
import { kubernetesServiceAccount } from './kubernetes-service-account';
import { loggingMetric } from './logging-metric';
import { monitoringAlertPolicy } from './monitoring-alert-policy';
import { monitoringNotificationChannel } from './monitoring-notification-channel';
import { secretManagerSecret, secretManagerSecretVersion } from './secret-manager-secret';
import { storageBucket } from './storage-bucket';
import { terraformData } from './terraform-data';
import type { ResourceDescriber } from './types';

export const DESCRIBERS: readonly ResourceDescriber[] = [
  containerCluster,
  containerNodePool,
  storageBucket,
  kubernetesManifest,
  kubernetesServiceAccount,
  helmRelease,
  secretManagerSecret,
  secretManagerSecretVersion,
  terraformData,
  monitoringNotificationChannel,
  monitoringAlertPolicy,
  loggingMetric,
];

const BY_TYPE = new Map(DESCRIBERS.flatMap((d) => d.types.map((t) => [t, d] as const)));

/** The describer of a resource type, or undefined when the review has none (the change gets a generic line). */
export function describerFor(type: string): ResourceDescriber | undefined {
  return BY_TYPE.get(type) ?? (iamMember.matches(type) ? iamMember : undefined);
}
