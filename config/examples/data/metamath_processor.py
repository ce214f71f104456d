"""process_data for meta-math/MetaMathQA (columns query, response, type, original_question): MaxText's built-in
process_data reads a problem|prompt|question and an answer|solution|expected_answer column, which this dataset does
not have.

MaxText maxtext-v0.2.4 (src/maxtext/trainers/post_train/rl/train_rl.py prepare_datasets) loads this file's
`process_data` when `dataset_processor_path` is set (rl/utils_rl.py load_custom_callable) and maps every example
through it: it returns the prompt for the model (the chat template applied to the template's TEMPLATE), the question,
and the acceptable answers as a JSON list (what the reward file's `answer` argument reads), as utils_rl.process_data
does.
"""
import json
import re

_ANSWER = re.compile(r"The answer is:\s*(.+?)\s*$", re.DOTALL)


def _text(value):
  return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def process_data(dataset_name, model_tokenizer, template_config, tmvp_config, x):
  del dataset_name
  question = _text(x["query"])
  found = _ANSWER.search(_text(x["response"]))
  answer = found.group(1).strip() if found else ""
  system_prompt = template_config["SYSTEM_PROMPT"].format(
      reasoning_start_token=tmvp_config.reasoning_start_token,
      reasoning_end_token=tmvp_config.reasoning_end_token,
      solution_start_token=tmvp_config.solution_start_token,
      solution_end_token=tmvp_config.solution_end_token,
  )
  content = template_config["TEMPLATE"].format(system_prompt=system_prompt, question=question)
  prompts = model_tokenizer.apply_chat_template([{"role": "user", "content": content}], tokenize=False, add_generation_prompt=True)
  return {"prompts": prompts, "question": question, "answer": json.dumps([answer, answer])}
