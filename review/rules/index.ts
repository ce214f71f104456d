/** Every review rule, one file each (review/rules/<id>.ts). Order here is only the order findings are produced in. */
import { backendKeyChanged } from './backend-key-changed';
import { baseDestroysTpuPool } from './base-destroys-tpu-pool';
import { baseRemovesPipeline } from './base-removes-pipeline';
import { bucketAcls } from './bucket-acls';
import { bucketPublicAccess } from './bucket-public-access';
import { capacityConflict } from './capacity-conflict';
import { clusterDefaultPoolSa } from './cluster-default-pool-sa';
import { controlPlaneNoAllowlist } from './control-plane-no-allowlist';
import { controlPlaneOpen } from './control-plane-open';
import { imageLatest } from './image-latest';
import { imageUnpinned } from './image-unpinned';
import { jobsetNoQueue } from './jobset-no-queue';
import { jobsetNoTimeout } from './jobset-no-timeout';
import { jobsetTtl } from './jobset-ttl';
import { kueueQuotaBelowPools } from './kueue-quota-below-pools';
import { kueueQuotaNeverAdmits } from './kueue-quota-never-admits';
import { kueueQuotaOver } from './kueue-quota-over';
import { legacyAbac } from './legacy-abac';
import { lockChanged } from './lock-changed';
import { nodePoolDefaultSa } from './node-pool-default-sa';
import { pipelinePoolMissing } from './pipeline-pool-missing';
import { pipelineSliceMissing } from './pipeline-slice-missing';
import { planChecks } from './plan-checks';
import { planDeletesBucket } from './plan-deletes-bucket';
import { planDeletesDeposed } from './plan-deletes-deposed';
import { planDeletesJobset } from './plan-deletes-jobset';
import { planDeletesRunningWorkflow } from './plan-deletes-running-workflow';
import { planDeletesSecret } from './plan-deletes-secret';
import { planDestroysCluster } from './plan-destroys-cluster';
import { planDestroysTpuPool } from './plan-destroys-tpu-pool';
import { planErrored } from './plan-errored';
import { planImports } from './plan-imports';
import { planJob } from './plan-job';
import { planMissing } from './plan-missing';
import { planNotReviewed } from './plan-not-reviewed';
import { planReplacesPool } from './plan-replaces-pool';
import { planRerunsStep } from './plan-reruns-step';
import { planRerunsTraining } from './plan-reruns-training';
import { planResizesTpuSlice } from './plan-resizes-tpu-slice';
import { planStartsTraining } from './plan-starts-training';
import { planTaintedJobset } from './plan-tainted-jobset';
import { planUpdatesTpuSlice } from './plan-updates-tpu-slice';
import { placeholders } from './placeholders';
import { planWrongStack } from './plan-wrong-stack';
import { publicIam } from './public-iam';
import { publicNodes } from './public-nodes';
import { reservationWithoutName } from './reservation-without-name';
import { saProjectAdmin } from './sa-project-admin';
import { secretInOutput } from './secret-in-output';
import { secretReadIntoState } from './secret-read-into-state';
import { secretVersionPayload } from './secret-version-payload';
import { stackChipsOverThreshold } from './stack-chips-over-threshold';
import { stackHourlyOverThreshold } from './stack-hourly-over-threshold';
import { tpuNoPlacement } from './tpu-no-placement';
import { tpuNodeCountMismatch } from './tpu-node-count-mismatch';
import { tpuNodeCountUnset } from './tpu-node-count-unset';
import { tpuOnDemand } from './tpu-on-demand';
import { tpuPoolAutoscales } from './tpu-pool-autoscales';
import { tpuSliceUnknown } from './tpu-slice-unknown';
import { helmValuesRisk } from './helm-values-risk';
import { iamPrincipalWide } from './iam-principal-wide';
import { planDrift } from './plan-drift';
import { planIncomplete } from './plan-incomplete';
import { planOutputChanges } from './plan-output-changes';
import { planProvisioner } from './plan-provisioner';
import { rbacChange } from './rbac-change';
import { secretCopiedToKubernetes } from './secret-copied-to-kubernetes';
import { stackFolderFiles } from './stack-folder-files';
import { tpuStepUnseen } from './tpu-step-unseen';
import { workflowUpdatedInPlace } from './workflow-updated-in-place';
import { workloadIdentityWidened } from './workload-identity-widened';
import type { Rule } from './types';

export const RULES: readonly Rule[] = [
  backendKeyChanged,
  baseDestroysTpuPool,
  baseRemovesPipeline,
  bucketAcls,
  bucketPublicAccess,
  capacityConflict,
  clusterDefaultPoolSa,
  controlPlaneNoAllowlist,
  controlPlaneOpen,
  imageUnpinned,
  imageLatest,
  jobsetNoQueue,
  jobsetNoTimeout,
  jobsetTtl,
  kueueQuotaBelowPools,
  kueueQuotaNeverAdmits,
  kueueQuotaOver,
  legacyAbac,
  lockChanged,
  nodePoolDefaultSa,
  pipelinePoolMissing,
  pipelineSliceMissing,
  planChecks,
  planDeletesBucket,
  planDeletesDeposed,
  planDeletesJobset,
  planDeletesRunningWorkflow,
  planDeletesSecret,
  planDestroysCluster,
  planDestroysTpuPool,
  planErrored,
  planImports,
  planJob,
  planMissing,
  planNotReviewed,
  planReplacesPool,
  planRerunsStep,
  planRerunsTraining,
  planResizesTpuSlice,
  planStartsTraining,
  planTaintedJobset,
  planUpdatesTpuSlice,
  planWrongStack,
  publicIam,
  publicNodes,
  reservationWithoutName,
  saProjectAdmin,
  secretInOutput,
  secretVersionPayload,
  secretReadIntoState,
  placeholders,
  stackChipsOverThreshold,
  stackHourlyOverThreshold,
  tpuNoPlacement,
  tpuNodeCountMismatch,
  tpuNodeCountUnset,
  tpuOnDemand,
  tpuPoolAutoscales,
  tpuSliceUnknown,
  helmValuesRisk,
  iamPrincipalWide,
  planDrift,
  planIncomplete,
  planOutputChanges,
  planProvisioner,
  rbacChange,
  secretCopiedToKubernetes,
  stackFolderFiles,
  tpuStepUnseen,
  workflowUpdatedInPlace,
  workloadIdentityWidened,
];
