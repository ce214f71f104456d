import { finding, Rule } from './types';

export const jobsetNoTimeout: Rule = {
  id: 'jobset-no-timeout',
  summary: 'a JobSet waits for completion without timeouts.create',
  check: ({ models }) =>
    models
      .flatMap((m) => m.jobsets)
      .filter((j) => j.waits && j.timeoutSeconds === undefined)
      .map((j) =>
        finding('jobset-no-timeout', 'note', j, `JobSet ${j.name} waits for completion without timeouts.create (provider default applies)`,
          'set timeouts.create to the longest the step may hold its slice'),
      ),
};
