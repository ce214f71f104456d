/**
 * Kueue objects (kueue.x-k8s.io/v1beta2) for the platform: one TPU flavor (accelerator label only: a
 * topology label would cap multi-slice workloads), one flavor for the CPU pool, one ClusterQueue with a
 * single resource group covering google.com/tpu, cpu and memory (split groups leave Pathways heads
 * pending), and the LocalQueue pipelines submit to. Pure; the infra stack ships them through the local
 * Helm chart charts/kueue-queues.
 */
import { allocatable, machineShape } from './machines';
import { CPU_POOL_NAME, Platform, totalChips } from './platform';
import { TPU_ACCELERATOR_LABEL, TPU_RESOURCE, TPU_TOLERATION, TPU_V6E_ACCELERATOR } from './tpu';

export const KUEUE_API_VERSION = 'kueue.x-k8s.io/v1beta2';

export interface KueueOptions {
  readonly platform: Platform;
  /** Upper bound of the CPU pool's autoscaler: its nodes' allocatable capacity is the CPU flavor's quota. */
  readonly cpuPoolMaxNodes: number;
}

/** Quota numbers, exposed for outputs, the review and tests. */
export interface KueueQuota {
  readonly tpuChips: number;
  readonly tpuFlavorCpu: number;
  readonly tpuFlavorMemoryGi: number;
  readonly cpuFlavorCpu: number;
  readonly cpuFlavorMemoryGi: number;
}

export function kueueQuota(options: KueueOptions): KueueQuota {
  const { platform } = options;
  const free = allocatable(machineShape(platform.cpuPool.machineType, 'cpuPool.machineType'));
  return {
    tpuChips: totalChips(platform),
    tpuFlavorCpu: platform.tpuGroups.reduce((sum, g) => sum + g.slice.hostVcpus * g.count, 0),
    tpuFlavorMemoryGi: platform.tpuGroups.reduce((sum, g) => sum + g.slice.hostMemoryGib * g.count, 0),
    cpuFlavorCpu: Math.floor(free.millicores / 1000) * options.cpuPoolMaxNodes,
    cpuFlavorMemoryGi: Math.floor(free.bytes / 2 ** 30) * options.cpuPoolMaxNodes,
  };
}

/** The ResourceFlavors, ClusterQueue and LocalQueue, in apply order. */
export function kueueObjects(options: KueueOptions): Record<string, unknown>[] {
  const { platform } = options;
  const quota = kueueQuota(options);
  return [
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'ResourceFlavor',
      metadata: { name: platform.tpuFlavor },
      spec: {
        nodeLabels: { [TPU_ACCELERATOR_LABEL]: TPU_V6E_ACCELERATOR },
        tolerations: [{ key: TPU_TOLERATION.key, operator: 'Equal', value: 'present', effect: TPU_TOLERATION.effect }],
      },
    },
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'ResourceFlavor',
      metadata: { name: platform.cpuFlavor },
      spec: { nodeLabels: { 'cloud.google.com/gke-nodepool': CPU_POOL_NAME } },
    },
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'ClusterQueue',
      metadata: { name: platform.clusterQueue },
      spec: {
        namespaceSelector: {},
        queueingStrategy: 'BestEffortFIFO',
        preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Never' },
        resourceGroups: [
          {
            coveredResources: [TPU_RESOURCE, 'cpu', 'memory'],
            flavors: [
              {
                name: platform.tpuFlavor,
                resources: [
                  { name: TPU_RESOURCE, nominalQuota: quota.tpuChips },
                  { name: 'cpu', nominalQuota: quota.tpuFlavorCpu },
                  { name: 'memory', nominalQuota: `${quota.tpuFlavorMemoryGi}Gi` },
                ],
              },
              {
                name: platform.cpuFlavor,
                resources: [
                  { name: TPU_RESOURCE, nominalQuota: 0 },
                  { name: 'cpu', nominalQuota: quota.cpuFlavorCpu },
                  { name: 'memory', nominalQuota: `${quota.cpuFlavorMemoryGi}Gi` },
                ],
              },
            ],
          },
        ],
      },
    },
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'LocalQueue',
      metadata: { name: platform.localQueue, namespace: platform.namespace },
      spec: { clusterQueue: platform.clusterQueue },
    },
  ];
}
