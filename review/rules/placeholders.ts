import { PLACEHOLDERS_LOCAL } from '../../jobs/platform';
import { finding, Rule } from './types';

/**
 * The example config's placeholders are still in a stack (constructs/preflight.ts lists them in a local): its plan
 * fails at once at the preflight guard. A warning, not an error: the example config is reviewed offline too (CI
 * without project variables).
 */
export const placeholders: Rule = {
  id: 'placeholders',
  summary: "the config still holds the example config's placeholders: a plan of the stack fails at its preflight guard",
  check: ({ models }) =>
    models
      .filter((m) => m.placeholders.length > 0)
      .map((m) =>
        finding('placeholders', 'warning', { stack: m.name, address: `local.${PLACEHOLDERS_LOCAL}` },
          `the config still holds the example's placeholders: ${m.placeholders.join('; ')}; a plan of this stack fails at once`,
          'set those variables (or keys in CONFIG_FILE) to your own values'),
      ),
};
