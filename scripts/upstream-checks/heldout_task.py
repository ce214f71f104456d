"""The SFT held-out task file in lm-eval 0.4.12 (issue 44 item 2), with a local dataset of two configs.

Makes a local dataset folder whose README declares two configs (`alpha`, `beta`), each with `train` and `validation`
splits of chat messages (datasets' packaged loader reads `configs:` from the card), writes the project's task files
(heldout.yaml + utils.py, given as files made by jobs/eval.ts) beside it with `dataset_path` pointed at the folder, and
loads the task through lm-eval's own TaskManager / get_task_dict (lm_eval/tasks/__init__.py, api/task.py download:
`datasets.load_dataset(path=..., name=dataset_name, **dataset_kwargs)`), then reads its test docs.

Usage: python heldout_task.py <workdir> <heldout.yaml> <utils.py>
Prints one JSON line: the config and split the docs came from, or the error lm-eval raised.
"""
import json
import os
import sys


def make_dataset(root):
  os.makedirs(root, exist_ok=True)
  card = ["---", "configs:"]
  for cfg in ("alpha", "beta"):
    card += [f"- config_name: {cfg}", "  data_files:"]
    for split in ("train", "validation"):
      os.makedirs(os.path.join(root, cfg), exist_ok=True)
      with open(os.path.join(root, cfg, f"{split}.jsonl"), "w") as f:
        for i in range(3):
          msgs = [{"role": "user", "content": f"{cfg} {split} question {i}"}, {"role": "assistant", "content": f"{cfg} {split} answer {i}"}]
          f.write(json.dumps({"messages": msgs}) + "\n")
      card += [f"  - split: {split}", f"    path: {cfg}/{split}.jsonl"]
  card += ["---", ""]
  with open(os.path.join(root, "README.md"), "w") as f:
    f.write("\n".join(card))


def main():
  work, yaml_file, utils_file = sys.argv[1:4]
  data = os.path.join(work, "dataset")
  make_dataset(data)
  tasks = os.path.join(work, "tasks")
  os.makedirs(tasks, exist_ok=True)
  text = open(yaml_file).read()
  lines = []
  skip = False
  for line in text.splitlines():
    if line.startswith("dataset_path:"):
      line = f"dataset_path: {json.dumps(data)}"
    # The revision the eval script resolves on the Hub: a local folder has none.
    if line.startswith("dataset_kwargs:"):
      skip = True
      continue
    if skip and line.startswith("  "):
      continue
    skip = False
    lines.append(line)
  open(os.path.join(tasks, "heldout.yaml"), "w").write("\n".join(lines) + "\n")
  open(os.path.join(tasks, "utils.py"), "w").write(open(utils_file).read())
  from lm_eval.tasks import TaskManager, get_task_dict
  try:
    task = get_task_dict(["heldout"], TaskManager(include_path=tasks))["heldout"]
    docs = list(task.test_docs())
    first = docs[0]["messages"][0]["content"]
    print(json.dumps({"ok": True, "dataset_name": task.config.dataset_name, "test_split": task.config.test_split, "docs": len(docs), "first": first, "text": docs[0]["text"][:80]}))
  except Exception as e:  # lm-eval's own error, reported as the result
    print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"[:400]}))


if __name__ == "__main__":
  main()
