"""RL hf_subset (issue 44 item 4), run with MaxText maxtext-v0.2.4 and datasets 5.0.1 on CPU: what RLConfig makes of
hf_subset unset / null / empty, and how load_dataset treats name=None vs "main" on a local dataset of one config.

Usage: python rl_subset.py
"""
import os, sys, json
import maxtext
from maxtext.configs import pyconfig, types
C = os.path.join(os.path.dirname(maxtext.__file__), "configs", "post_train", "rl.yml")
for extra in ([], ["hf_subset=null"], ["hf_subset="]):
  try:
    c = pyconfig.initialize([sys.argv[0], C, "model_name=qwen3-8b", "run_name=x", "dataset_name=acme/q", *extra], config_class=types.RLConfig)
    print(json.dumps({"args": extra, "hf_subset": c.hf_subset}))
  except BaseException as e:
    print(json.dumps({"args": extra, "error": f"{type(e).__name__}: {str(e)[:200]}"}))
# datasets 5.0.1: name=None vs name='main' on a local single-config dataset
import datasets, tempfile
d = tempfile.mkdtemp()
open(os.path.join(d, "train.jsonl"), "w").write(json.dumps({"question": "1+1?", "answer": "2"}) + "\n")
for name in (None, "main"):
  try:
    ds = datasets.load_dataset(d, name=name, split="train")
    print(json.dumps({"load_dataset_name": name, "rows": len(ds)}))
  except Exception as e:
    print(json.dumps({"load_dataset_name": name, "error": f"{type(e).__name__}: {str(e)[:200]}"}))
