import { finding, Rule } from './types';

const PUBLIC_MEMBERS = new Set(['allUsers', 'allAuthenticatedUsers']);

export const publicIam: Rule = {
  id: 'public-iam',
  summary: 'a role is granted to allUsers or allAuthenticatedUsers',
  check: ({ models }) =>
    models
      .flatMap((m) => m.grants)
      .filter((g) => PUBLIC_MEMBERS.has(g.member))
      .map((g) =>
        finding('public-iam', 'error', g, `${g.role} is granted to ${g.member} on ${g.scope} ${g.target}: anyone can use it`,
          `remove the ${g.member} member; grant the role to the workload service account instead`),
      ),
};
