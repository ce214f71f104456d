"""The part of MaxText's GRPO/GSPO train step (maxtext-v0.2.4 src/maxtext/trainers/post_train/rl/train_rl.py) that runs
on CPU, called with the train step's own MaxText arguments: MaxText's config and devices
(model_creation_utils.setup_configs_and_devices), the tokenizer and chat template (configure_tokenizer_chat_template),
the data (prepare_datasets: the real load_dataset, template and process_data path), and the reward functions
(build_reward_fns, wrapped as create_rl_components wraps them) called on completions the tiny model generated for the
real prompts. What stays unrun: the rollout engine (train_rl hard-wires MaxTextVllmRollout, vLLM on TPU: l.488, no
Tunix vanilla rollout is selectable), hence the policy update and the RL checkpoint; train_rl imports vLLM's adapter
at l.67, which is stubbed here (printed) so the module loads."""
import json
import os
import sys
import types as pytypes
from functools import wraps


def main(argv):
  import importlib
  import maxtext
  parent = maxtext
  for name in ("integration", "vllm"):  # the real packages where they import, empty stand-ins where they need vLLM
    full = parent.__name__ + "." + name
    try:
      mod = importlib.import_module(full)
    except Exception:  # noqa: BLE001
      mod = pytypes.ModuleType(full)
      mod.__path__ = []
      sys.modules[full] = mod
    setattr(parent, name, mod)
    parent = mod
  stub = pytypes.ModuleType("maxtext.integration.vllm.maxtext_vllm_adapter")
  stub.register = lambda: None
  sys.modules[stub.__name__] = stub
  parent.maxtext_vllm_adapter = stub
  roll = pytypes.ModuleType("maxtext.integration.vllm.maxtext_vllm_rollout")
  roll.MaxTextVllmRollout = None
  sys.modules[roll.__name__] = roll
  parent.maxtext_vllm_rollout = roll
  print("rl probe: maxtext.integration.vllm adapter and rollout stubbed (vLLM does not install on CPU)", flush=True)
  from maxtext.configs import types
  from maxtext.trainers.post_train.rl import train_rl
  from maxtext.utils import model_creation_utils
  from transformers import AutoTokenizer
  # `python3 -m maxtext.trainers.post_train.rl.train_rl` gets post_train/rl.yml as its default config from the module
  # it runs as (maxtext-v0.2.4 configs/pyconfig.py l.55); this file runs as a script, so it names that file
  rl_yml = os.path.join(os.path.dirname(maxtext.__file__), "configs", "post_train", "rl.yml")
  argv = [argv[0], rl_yml] + [a for a in argv[1:] if not a.endswith(".yml")]
  trainer_config, _sampler_config, _t, _s = model_creation_utils.setup_configs_and_devices(argv, {}, config_class=types.RLConfig)
  tok = AutoTokenizer.from_pretrained(trainer_config.tokenizer_path, token=trainer_config.hf_access_token or None)
  train_rl.configure_tokenizer_chat_template(tok, trainer_config)
  rendered = tok.apply_chat_template([{"role": "user", "content": "What is 2 plus 2?"}], tokenize=False, add_generation_prompt=True)
  print(f"rl probe: PASS template renders through MaxText's configure_tokenizer_chat_template: {rendered!r}", flush=True)
  train_ds, _test_ds = train_rl.prepare_datasets(trainer_config, tok)
  batch = next(iter(train_ds))
  keys = sorted(batch.keys()) if hasattr(batch, "keys") else type(batch).__name__
  print(f"rl probe: PASS prepare_datasets gave a batch with {keys}", flush=True)

  def make_reward_fn(fn):
    @wraps(fn)
    def _reward_fn(**kwargs):
      return fn(tmvp_config=trainer_config, **kwargs)
    return _reward_fn

  reward_fns = train_rl.build_reward_fns(trainer_config, make_reward_fn)
  prompts = [p.decode() if isinstance(p, bytes) else str(p) for p in list(batch["prompts"])[:2]]
  completions = generate(os.environ["REHEARSE_CPU_MODEL_DIR"], prompts)
  extra = {k: [v.decode() if isinstance(v, bytes) else v for v in list(batch[k])[:2]] for k in batch.keys() if k not in ("prompts",)}
  extra = {k: [x.tolist() if hasattr(x, "tolist") else x for x in v] for k, v in extra.items()}
  for fn in reward_fns:
    scores = fn(prompts=prompts, completions=completions, **extra)
    if len(list(scores)) != len(completions):
      raise SystemExit(f"rl probe: reward {fn.__name__} returned {len(list(scores))} scores for {len(completions)} completions")
    print(f"rl probe: PASS reward {fn.__name__} called by MaxText's build_reward_fns on {len(completions)} real completions: {list(scores)}", flush=True)
  print("rl probe: UNRUN rollout through vLLM (MaxTextVllmRollout), the policy update and the RL checkpoint: vLLM/tpu-inference run on TPU only", flush=True)


def generate(model_dir, prompts):
  import torch
  import transformers
  tok = transformers.AutoTokenizer.from_pretrained(model_dir)
  model = transformers.AutoModelForCausalLM.from_pretrained(model_dir).eval()
  out = []
  for p in prompts:
    ids = tok(p, return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
      g = model.generate(**ids, max_new_tokens=12, do_sample=False, pad_token_id=tok.pad_token_id)
    out.append(tok.decode(g[0, ids["input_ids"].shape[1]:], skip_special_tokens=True))
  return out


if __name__ == "__main__":
  main(sys.argv)
