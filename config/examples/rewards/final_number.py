"""GRPO reward for GSM8K-style data: 1.0 when the completion's last number equals an acceptable answer, else 0.0.

MaxText maxtext-v0.2.4 (src/maxtext/trainers/post_train/rl/train_rl.py build_reward_fns) imports every function named
in `reward_functions` from this file and calls it with keyword arguments: prompts, completions, the batch's other
columns (`answer` is a JSON list of acceptable answers, `question` the question: rl/utils_rl.py process_data) and
tmvp_config (the MaxText config). It returns one float per completion.
"""
import json
import re

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _last_number(text):
  found = _NUMBER.findall(text or "")
  return found[-1].replace(",", "") if found else None


def final_number(prompts, completions, answer, tmvp_config, **kwargs):
  del prompts, tmvp_config, kwargs
  scores = []
  for completion, acceptable in zip(completions, answer):
    guess = _last_number(completion)
    answers = {str(a).replace(",", "").strip() for a in json.loads(acceptable)}
    scores.append(1.0 if guess is not None and guess in answers else 0.0)
  return scores
