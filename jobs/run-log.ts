/**
 * What the training step's main container prints that this project reads: the one home of those line formats, for
 * `npm run status` (progress, stalls, the loss curve, the evaluation) and for the stall alert's log-based metric
 * (constructs/notifications.ts). Pure; no cdktf.
 *
 * Formats, read at the pinned versions:
 *   - SFT: MaxText maxtext-v0.2.4 src/maxtext/common/metric_logger.py `_log_training_metrics`: one line per step,
 *     "completed step: N, seconds: S, TFLOP/s/device: ..., Tokens/s/device: ..., total_weights: W, loss: L, lm_loss:
 *     ..., perplexity: ..." (the loss with three decimals). The step counter is incremented before logging
 *     (post_train/hooks.py `on_train_step_end`), so N steps are done.
 *   - RL: train_rl runs Tunix (google/tunix at c4ec573d, the commit MaxText 0.2.4 pins in
 *     extra_deps/post_train_github_deps.txt); its PeftTrainer logs "Train step N training loss: L - training
 *     perplexity: P" once per optimizer step (tunix/sft/peft_trainer.py `_log_metrics`).
 *   - RL evaluation: MaxText maxtext-v0.2.4 src/maxtext/trainers/post_train/rl/train_rl.py logs, when
 *     `num_test_batches > 0`, "Pre RL Training: corr=C, total=T, accuracy=A%, partial_accuracy=..%,
 *     format_accuracy=..%, mean_reward=R" before training and "Post RL Training: ..." (same fields) after it
 *     (Python f-string `{x=}` prints `x=<value>`).
 */

/** Per-step progress lines (group 1: the number of steps done). */
export const PROGRESS_PATTERNS: Readonly<Record<'sft' | 'rl', RegExp>> = {
  sft: /completed step: (\d+)/,
  rl: /Train step (\d+) training loss/,
};

/** The loss on a progress line (group 1). */
export const LOSS_PATTERNS: Readonly<Record<'sft' | 'rl', RegExp>> = {
  sft: /completed step: \d+.*?[ ,]loss: (-?[\d.]+(?:e[-+]?\d+)?)/,
  rl: /Train step \d+ training loss: (-?[\d.]+(?:e[-+]?\d+)?)/,
};

/**
 * RE2 (Cloud Logging `=~`) forms of PROGRESS_PATTERNS, for the log-based metric of step lines: the same text,
 * written once per kind here so the alert and `status` count the same lines.
 */
export const PROGRESS_LQL: Readonly<Record<'sft' | 'rl', string>> = {
  sft: 'completed step: [0-9]+',
  rl: 'Train step [0-9]+ training loss',
};

/** `Pre RL Training: corr=..` / `Post RL Training: corr=..` (train_rl.py, see the module doc). */
export const EVAL_PATTERN = /(Pre|Post) RL Training: corr=(\d+), total=(\d+), accuracy=(-?[\d.]+)%(?:.*?mean_reward=(-?[\d.]+))?/;

/** An RFC 3339 timestamp at the start of a line, as the API serves logs with `timestamps=true`. */
export const LOG_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\S+)\s/;
