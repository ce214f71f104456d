"""A reward with the wrong signature (a rehearse:cpu case): MaxText's train_rl calls reward functions with keyword
arguments prompts=, completions=, the batch's columns and tmvp_config= (build_reward_fns / create_rl_components)."""


def final_number(text):
  return [0.0]
