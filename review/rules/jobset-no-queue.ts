import { finding, Rule } from './types';

export const jobsetNoQueue: Rule = {
  id: 'jobset-no-queue',
  summary: 'a JobSet requests TPU chips without a Kueue queue label',
  check: ({ models }) =>
    models
      .flatMap((m) => m.jobsets)
      .filter((j) => !j.queueName && j.tpuChips > 0)
      .map((j) =>
        finding('jobset-no-queue', 'warning', j, `JobSet ${j.name} requests ${j.tpuChips} TPU chips without a kueue.x-k8s.io/queue-name label`,
          'set metadata.labels["kueue.x-k8s.io/queue-name"] to the local queue so Kueue admits it against the quota'),
      ),
};
