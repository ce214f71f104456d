"""Data made locally in the declared shape: a dataset repository (README.md `configs:` YAML and one parquet file per
config and split, as the Hub's parquet layout) whose columns, their types (plain text, a list of {role, content}
messages, numbers), configs and splits come from post-training.lock.json `datasets` (issue 43's lock) when it has the
dataset, else from what the pipeline declares (its columns, config and splits) and, for the columns of an RL dataset that
the config does not name, the dataset's known columns below (printed as such)."""
import json
import os

# Columns of the RL datasets the configs use, as their Hub dataset cards give them (openai/gsm8k `main`: question,
# answer with `#### <n>`; meta-math/MetaMathQA: query, response ending `The answer is: <n>`, type, original_question).
KNOWN_COLUMNS = {
    "openai/gsm8k": {"question": "text", "answer": "text"},
    "meta-math/MetaMathQA": {"query": "text", "response": "text", "type": "text", "original_question": "text"},
}


def _text(col, i):
  n = i + 2
  if col in ("answer",):
    return f"Add {i} and 2. word{i} plus 2 equals {n}.\n#### {n}"
  if col in ("response", "completion", "chosen", "output", "solution"):
    return f"word{i} the answer is {n}. The answer is: {n}"
  if col == "rejected":
    return f"word{i} the answer is {n + 1}. The answer is: {n + 1}"
  return f"What is word{i} {i} plus 2?"


def _messages(col, i):
  n = i + 2
  reply = f"the answer is {n + (1 if col == 'rejected' else 0)}."
  if col in ("chosen", "rejected"):
    return [{"role": "user", "content": f"What is {i} plus 2?"}, {"role": "assistant", "content": reply}]
  return [{"role": "user", "content": f"What is word{i} {i} plus 2?"}, {"role": "assistant", "content": reply}]


def _column(kind, col, rows):
  if kind == "messages":
    return [_messages(col, i) for i in range(rows)]
  if kind == "number":
    return [i + 2 for i in range(rows)]
  return [_text(col, i) for i in range(rows)]


def write_dataset(root, configs, rows=1024):
  """configs: {config: {"splits": [...], "columns": {col: kind}}}. Writes the repository into root. 1024 rows: MaxText
  packs SFT rows into max_target_length sequences and stops a run when the data ends (num_epoch 1), so a rehearsal
  needs more rows than its steps x batch x rows per packed sequence."""
  import pyarrow as pa
  import pyarrow.parquet as pq
  os.makedirs(root, exist_ok=True)
  card = ["---", "configs:"]
  for config, spec in sorted(configs.items()):
    card.append(f"- config_name: {config}")
    card.append("  data_files:")
    for split in spec["splits"]:
      path = f"{config}/{split}-00000-of-00001.parquet"
      os.makedirs(os.path.join(root, config), exist_ok=True)
      table = pa.table({c: _column(k, c, rows) for c, k in spec["columns"].items()})
      pq.write_table(table, os.path.join(root, path))
      card += [f"  - split: {split}", f"    path: {path}"]
  card.append("---")
  with open(os.path.join(root, "README.md"), "w") as f:
    f.write("\n".join(card) + "\n\nMade by npm run rehearse:cpu: random rows in the declared shape.\n")


def lock_entry(lock_path, repo):
  """The lock's entry of a dataset repository (any revision), or None."""
  if not os.path.exists(lock_path):
    return None
  datasets = json.load(open(lock_path)).get("datasets") or {}
  for key, entry in datasets.items():
    if key.split("@")[0] == repo:
      return entry
  return None
