import { jobSetOf, liveChanges, runningNow, why } from './plan-facts';
import { finding, Rule } from './types';

const running = (c: Parameters<typeof runningNow>[0]) => (runningNow(c) ? `. ${runningNow(c)}` : '');

/**
 * A replaced training (or TPU) JobSet runs training again. What that costs follows from the MaxText run_name before
 * and after (jobs/pipeline.ts runIdentity): the same name resumes that run at its newest checkpoint (MaxText
 * maxtext-v0.2.4 restores under `<base_output_directory>/<run_name>/checkpoints`); another name trains anew into its
 * own directory, leaving the earlier run and its export in place. Without a run_name it is not known: from the start.
 * What a resume repeats (google/tunix c4ec573d tunix/sft/peft_trainer.py `train`: trained batches are skipped only when
 * no data hooks load the batches, and MaxText's train_sft installs SFTDataHooks, which start a new iterator; RL syncs
 * the trainer's weights to the sampler after each global step, tunix/rl/rl_learner.py) is said in the fix.
 */
export const planRerunsTraining: Rule = {
  id: 'plan-reruns-training',
  summary: 'a plan replaces a training (or TPU) JobSet: training resumes its run, or trains anew',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'replace' || c.reason === 'replace_because_tainted') return [];
      const before = jobSetOf(c, 'before');
      const after = jobSetOf(c, 'after');
      const j = before ?? after;
      if (!j || !(j.tpuChips > 0 || j.kind === 'training')) return [];
      const where = { stack: plan.stack, address: c.address };
      const runBefore = before?.args['run_name'];
      const runAfter = after?.args['run_name'];
      const head = `training JobSet ${j.name} is replaced${why(c)}`;
      const now = running(c);
      if (runAfter !== undefined && runAfter === runBefore) {
        // Resuming a finished or not yet started run may stay a warning; stopping one that runs now is an error (a
        // reviewer can still merge deliberately).
        return [
          finding('plan-reruns-training', now ? 'error' : 'warning', where,
            `${head}: it resumes run ${runAfter} at its last checkpoint on ${j.tpuChips} chips (the same run name, so MaxText restores the newest checkpoint under trained/${runAfter}/)${now}`,
            'weights, optimizer and step come back from that checkpoint, and the steps since it run again; SFT also reads its data again from the first example (examples trained twice: min(checkpoint step, steps left) x the global batch), and RL\'s first step samples with the base weights until the first weight sync (docs/operations.md, restarts); revert the change to the JobSet if no restart is intended'),
        ];
      }
      if (runAfter !== undefined && runBefore !== undefined) {
        return [
          finding('plan-reruns-training', 'error', where,
            `${head}: it trains anew into ${runAfter} on ${j.tpuChips} chips (the spec changed; run ${runBefore} and its export are kept)${now}`,
            `revert the change if no new run is intended; to continue run ${runBefore} with the new values, set pipelines.<name>.resumeRun to '${runBefore}'`),
        ];
      }
      return [
        finding('plan-reruns-training', 'error', where,
          `${head}: training runs again from the start on ${j.tpuChips} chips${now}`,
          'change the run id in the config only when a re-run is intended; otherwise revert the change to the JobSet'),
      ];
    }),
};
