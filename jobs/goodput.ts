/**
 * Goodput: which trainers record it and the MaxText flags that turn it on, read at the pinned MaxText
 * (AI-Hypercomputer/maxtext maxtext-v0.2.4). Pure; no cdktf.
 *
 *   - base.yml "Goodput parameters": `enable_goodput_recording: false`, `monitor_goodput: false`,
 *     `goodput_upload_interval_seconds: 30`, `enable_pathways_goodput: false`, `monitor_step_time_deviation: true`,
 *     `enable_gcp_goodput_metrics: true`, `enable_gcp_step_deviation_metrics: true`.
 *   - src/maxtext/common/goodput.py: `create_goodput_recorder` makes an ml_goodput_measurement `GoodputRecorder(run_name,
 *     "goodput_<run_name>", process 0)` when `enable_goodput_recording` (its records go to Cloud Logging, log
 *     `goodput_<run_name>`: roles/logging.logWriter); `maybe_monitor_goodput` runs a `GoodputMonitor` on process 0 when
 *     `monitor_goodput`, which every `goodput_upload_interval_seconds` computes goodput and the badput breakdown from
 *     those records and writes them to TensorBoard in `tensorboard_dir` (`goodput/goodput`, `badput/<type>`:
 *     ml-goodput-measurement 0.2.3 src/monitoring.py `_upload_goodput_metrics_to_tensorboard`) and, with
 *     `enable_gcp_goodput_metrics`, to Cloud Monitoring (roles/monitoring.metricWriter).
 *   - Who calls them: trainers/post_train/sft/train_sft.py (`main`: recorder, monitor, TPU init, training preparation;
 *     post_train/hooks.py records each step's start and data loading) and trainers/post_train/dpo/train_dpo.py;
 *     trainers/post_train/rl/train_rl.py never does (no `goodput` in it at that tag): RL records none.
 *   - IAM: the training pods are host-network TPU pods (jobs/jobset.ts tpuPodSpec), which act as the node service
 *     account; it has roles/logging.logWriter and roles/monitoring.metricWriter already (constructs/identity.ts
 *     NODE_ROLES): nothing more is granted.
 */
import type { TrainKind } from './methods';

/** Whether the trainer of a kind records goodput at the pinned MaxText (see the module doc). */
export const RECORDS_GOODPUT: Readonly<Record<TrainKind, boolean>> = { sft: true, dpo: true, rl: false };

/**
 * The training arguments that record goodput and write it to TensorBoard, for a kind whose trainer records it; a key
 * the recipe or an override already passes (`monitor_goodput: false`) is left to it, never passed twice.
 */
export function goodputArgs(kind: TrainKind, given: Readonly<Record<string, unknown>> = {}): Array<readonly [string, boolean]> {
  if (!RECORDS_GOODPUT[kind]) return [];
  return ([['enable_goodput_recording', true], ['monitor_goodput', true]] as const).filter(([k]) => !(k in given));
}
