/**
 * What the training step's main container prints that this project reads: the one home of those line formats, for
 * `npm run status` (progress, stalls, the loss curve, the evaluation) and for the stall alert's log-based metric
 * (constructs/notifications.ts). Each row of the method table (jobs/methods/) names the format its trainer prints.
 * Pure; no cdktf.
 *
 * Formats, read at the pinned versions:
 *   - MaxText's metric logger (train_sft, train_dpo: both install post_train/hooks.py `BaseTrainingHooks`): MaxText
 *     maxtext-v0.2.4 src/maxtext/common/metric_logger.py `_log_training_metrics`: one line per step,
 *     "completed step: N, seconds: S, TFLOP/s/device: ..., Tokens/s/device: ..., total_weights: W, loss: L, lm_loss:
 *     ..., perplexity: ..." (the loss with three decimals). The step counter is incremented before logging
 *     (post_train/hooks.py `on_train_step_end`), so N steps are done.
 *   - Tunix's trainer (train_rl): google/tunix at c4ec573d, the commit MaxText 0.2.4 pins in
 *     extra_deps/post_train_github_deps.txt; its PeftTrainer logs "Train step N training loss: L - training
 *     perplexity: P" once per optimizer step (tunix/sft/peft_trainer.py `_log_metrics`).
 *   - RL evaluation: MaxText maxtext-v0.2.4 src/maxtext/trainers/post_train/rl/train_rl.py logs, when
 *     `num_test_batches > 0`, "Pre RL Training: corr=C, total=T, accuracy=A%, partial_accuracy=..%,
 *     format_accuracy=..%, mean_reward=R" before training and "Post RL Training: ..." (same fields) after it
 *     (Python f-string `{x=}` prints `x=<value>`).
 */

/** A per-step line format: progress (group 1: steps done), its loss (group 1), and the RE2 (Cloud Logging `=~`) form of progress. */
export interface StepLineFormat {
  readonly progress: RegExp;
  readonly loss: RegExp;
  readonly progressLql: string;
}

/** MaxText's metric logger (train_sft, train_dpo). */
export const METRIC_LOGGER_LINES: StepLineFormat = {
  progress: /completed step: (\d+)/,
  loss: /completed step: \d+.*?[ ,]loss: (-?[\d.]+(?:e[-+]?\d+)?)/,
  progressLql: 'completed step: [0-9]+',
};

/** Tunix's PeftTrainer as train_rl runs it. */
export const TUNIX_TRAIN_LINES: StepLineFormat = {
  progress: /Train step (\d+) training loss/,
  loss: /Train step \d+ training loss: (-?[\d.]+(?:e[-+]?\d+)?)/,
  progressLql: 'Train step [0-9]+ training loss',
};

/** `Pre RL Training: corr=..` / `Post RL Training: corr=..` (train_rl.py, see the module doc). */
export const EVAL_PATTERN = /(Pre|Post) RL Training: corr=(\d+), total=(\d+), accuracy=(-?[\d.]+)%(?:.*?mean_reward=(-?[\d.]+))?/;

/** An RFC 3339 timestamp at the start of a line, as the API serves logs with `timestamps=true`. */
export const LOG_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\S+)\s/;

/**
 * The loss value of a step line of either format, as an RE2 with one capturing group (Cloud Logging's REGEXP_EXTRACT,
 * the dashboard's loss metric, jobs/dashboard.ts): MaxText's `, loss: L` (not `lm_loss:`) and Tunix's `training loss: L`.
 */
export const LOSS_VALUE_RE2 = '[ ,]loss: (-?[0-9.]+(?:e[-+]?[0-9]+)?)';
