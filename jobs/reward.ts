/**
 * The reward functions of a reward file, checked against how MaxText and Tunix call them. Pure: config/ parses the
 * file with Python's own parser (config/python.ts, `ast`) and passes the top-level names it binds; the rules are here.
 *
 * How a reward is called, at AI-Hypercomputer/maxtext maxtext-v0.2.4 and the Tunix it pins (google/tunix c4ec573d):
 * - maxtext src/maxtext/trainers/post_train/rl/train_rl.py line 417 (`build_reward_fns`) imports each name of
 *   `reward_functions` from `reward_functions_path` with utils_rl.py line 887 `load_custom_callable` (importlib: the
 *   whole file runs; a missing name is a ValueError), and wraps it at line 581-587 (`make_reward_fn`):
 *   `_reward_fn(**kwargs): return fn(tmvp_config=trainer_config, **kwargs)`, with `functools.wraps`;
 * - training: tunix/rl/grpo/grpo_learner.py line 362-367 calls `_compute_rewards(prompts=..., completions=...,
 *   mode=mode, **{every other column of the batch})`, i.e. the dict the data processor returns (utils_rl.py line
 *   724 `process_data`: `prompts`, `question`, `answer`); tunix/rl/rl_learner.py line 213-221 adds `mode`;
 *   tunix/rl/reward_manager.py line 130-148 reads `inspect.signature(reward_fn)` (the user's, through `wraps`), adds
 *   any GrpoConfig field the function names, and calls `reward_fn(prompts=prompts, completions=completions,
 *   **call_kwargs)`: keywords only;
 * - evaluation: maxtext rl/evaluate_rl.py line 211-212 `fn(prompts=[prompt], completions=[resp], answer=[answer],
 *   question=question)` (plus `tmvp_config` from the wrapper), without `mode`.
 * So a reward is a top-level `def` (not `async`: a coroutine is not the floats reward_manager.py line 161 stores,
 * `rewards[:, i] = np.array(r)`), takes `**kwargs` (training passes `mode` and every column), takes no positional-only parameter without a
 * default, and requires no parameter beyond those both calls pass: prompts, completions, tmvp_config, question, answer.
 */

/** One parameter of a `def`, as Python's `ast` reads it. */
export interface PythonParam {
  readonly name: string;
  /** `posonly` (before `/`), `pos` (positional or keyword), `kwonly` (after `*`). */
  readonly kind: 'posonly' | 'pos' | 'kwonly';
  /** No default value. */
  readonly required: boolean;
  readonly line: number;
}

/** A top-level name the module binds last: a `def` with its signature, or anything else (assignment, import, class). */
export type PythonBinding =
  | {
      readonly kind: 'def';
      readonly line: number;
      readonly async: boolean;
      readonly params: readonly PythonParam[];
      /** Has `**kwargs` (any name). */
      readonly varkw: boolean;
      /** Has decorators: their effect on the signature is not seen (the `def`'s own signature is checked). */
      readonly decorated: boolean;
    }
  | { readonly kind: 'other'; readonly line: number };

/** A Python file as Python's parser reads it: the top-level bindings, or the syntax error. */
export type PythonModule =
  | { readonly ok: true; readonly python: string; readonly names: Readonly<Record<string, PythonBinding>> }
  | { readonly ok: false; readonly python: string; readonly line?: number; readonly message: string };

/** The keyword arguments both the training and the evaluation call pass (see the header). */
export const REWARD_ARGUMENTS = ['prompts', 'completions', 'tmvp_config', 'question', 'answer'] as const;

const CALLS =
  'MaxText 0.2.4 calls a reward with keywords only: prompts, completions, tmvp_config and the batch columns (question, answer), ' +
  'plus mode in training (train_rl.py make_reward_fn; Tunix c4ec573d rl/reward_manager.py)';

/** The problems of one reward function `name` of `file` (as written in the config). */
function functionProblems(file: string, name: string, b: Extract<PythonBinding, { kind: 'def' }>): string[] {
  const at = `'${file}' line ${b.line}: ${name}`;
  const out: string[] = [];
  if (b.async) out.push(`${at} is 'async def': it would return a coroutine, not the list of floats Tunix sums; make it a plain def`);
  if (!b.varkw) out.push(`${at} has no **kwargs: ${CALLS}, so it raises TypeError at the first training step; add **kwargs`);
  for (const p of b.params) {
    if (p.kind === 'posonly' && p.required) {
      out.push(`'${file}' line ${p.line}: ${name} parameter '${p.name}' is positional-only (before '/'): ${CALLS}; remove the '/'`);
    } else if (p.required && !(REWARD_ARGUMENTS as readonly string[]).includes(p.name)) {
      out.push(
        `'${file}' line ${p.line}: ${name} requires parameter '${p.name}', which MaxText does not pass: ${CALLS}; ` +
          `give '${p.name}' a default or read it from kwargs`,
      );
    }
  }
  return out;
}

/** Whether a top-level binding looks like a reward (a def naming both `prompts` and `completions`). */
function looksLikeReward(b: PythonBinding): boolean {
  return b.kind === 'def' && ['prompts', 'completions'].every((n) => b.params.some((p) => p.name === n));
}

/**
 * The reward functions of a parsed file: the names given (`reward.functions`), else every top-level def naming both
 * `prompts` and `completions`; with each problem, prefixed by the caller with the config key.
 */
export function rewardFunctions(
  file: string,
  module: PythonModule,
  given: readonly string[] | undefined,
): { names: string[]; problems: { key: 'reward' | 'reward.functions'; text: string }[] } {
  if (!module.ok) {
    const where = typeof module.line === 'number' ? ` line ${module.line}` : '';
    return { names: [], problems: [{ key: 'reward', text: `'${file}'${where} does not parse as Python (${module.python}): ${module.message}; MaxText imports the whole file` }] };
  }
  const found = Object.entries(module.names).filter(([, b]) => looksLikeReward(b)).map(([n]) => n);
  const names = given ? [...given] : found;
  if (names.length === 0) {
    const text =
      `'${file}' defines no top-level reward function 'def <name>(prompts, completions, **kwargs)' ` +
      '(MaxText train_rl.py build_reward_fns: each returns list[float]); add one or name them in reward.functions';
    return { names, problems: [{ key: 'reward', text }] };
  }
  const problems: { key: 'reward' | 'reward.functions'; text: string }[] = [];
  for (const name of names) {
    const b = module.names[name];
    if (b === undefined) {
      problems.push({ key: 'reward.functions', text: `'${name}' is not defined at the top level of '${file}'; it defines ${found.length > 0 ? found.join(', ') : 'no reward function'}` });
    } else if (b.kind !== 'def') {
      problems.push({ key: 'reward.functions', text: `'${file}' line ${b.line}: '${name}' is not bound by a top-level def, so its signature cannot be checked; define it with def` });
    } else {
      problems.push(...functionProblems(file, name, b).map((text) => ({ key: 'reward' as const, text })));
    }
  }
  return { names, problems };
}
