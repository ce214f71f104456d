import { finding, Rule } from './types';

export const jobsetTtl: Rule = {
  id: 'jobset-ttl',
  summary: 'a Terraform-managed JobSet sets ttlSecondsAfterFinished (the next apply re-creates and re-runs it)',
  check: ({ models }) =>
    models
      .flatMap((m) => m.jobsets)
      .filter((j) => j.ttlSecondsAfterFinished !== undefined)
      .map((j) =>
        finding('jobset-ttl', 'error', j,
          `JobSet ${j.name} sets ttlSecondsAfterFinished=${String(j.ttlSecondsAfterFinished)}: once the cluster deletes the finished JobSet, ` +
            `the next apply creates it again and re-runs ${j.tpuChips > 0 ? `on ${j.tpuChips} chips` : 'the step'}`,
          'remove spec.ttlSecondsAfterFinished; clean up with `cdktf destroy <pipeline>` and re-run with a new run id'),
      ),
};
