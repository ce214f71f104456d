"""LoRA merged export, run on CPU with MaxText maxtext-v0.2.4's own code (issue 44 item 1).

Builds a tiny llama3.1-8b-shaped MaxText model, saves
  - the base checkpoint as to_maxtext writes it: a Linen TrainState `{"params": {"params": ...}}` at `<dir>/0/items`
    (maxtext-v0.2.4 checkpoint_conversion/utils/utils.py save_weights_to_checkpoint, l.1298);
  - the LoRA checkpoint as Tunix c4ec573d's PeftTrainer does with LoRA on: `nnx.state(model, nnx.LoRAParam)` as the
    `model_params` checkpointable of an orbax v1 `training.Checkpointer` (tunix/sft/checkpoint_manager.py l.196-197
    and its constructor; peft_trainer.py l.1021-1026 `save_only_lora_params=self._lora_enabled`), rooted at `decoder`;
then runs `python -m maxtext.checkpoint_conversion.to_huggingface` in "Merged" mode, as the to-hf step does, and
compares the exported weights with a base-only export: they must differ by exactly A.B.(alpha/rank).

Usage: python lora_merge.py <workdir> [--fixed]   (--fixed: run the step's re-rooting first, jobs/maxtext.ts)
Prints one JSON line: {"max_abs_delta_exported": ..., "max_abs_delta_expected": ..., "match": bool}.
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import numpy as np  # noqa: E402
from flax import nnx  # noqa: E402

import maxtext  # noqa: E402
from maxtext.configs import pyconfig  # noqa: E402
from maxtext.utils import lora_utils, model_creation_utils  # noqa: E402
import orbax.checkpoint as ocp  # noqa: E402
from orbax.checkpoint import v1 as ocp1  # noqa: E402

CONFIGS = os.path.join(os.path.dirname(maxtext.__file__), "configs")
RANK, ALPHA = 4, 8.0
TINY = [
    "model_name=llama3.1-8b", "override_model_config=true", "base_emb_dim=64", "base_num_query_heads=4",
    "base_num_kv_heads=2", "head_dim=16", "base_mlp_dim=128", "base_num_decoder_layers=2", "vocab_size=512",
    "scan_layers=true", "hardware=cpu", "skip_jax_distributed_system=true", "weight_dtype=float32", "dtype=float32",
    "attention=dot_product", "per_device_batch_size=1", "max_target_length=32",
]


def config(extra):
  return pyconfig.initialize([sys.argv[0], os.path.join(CONFIGS, "base.yml"), *TINY, *extra])


def plain(tree):
  """nnx.State / nested mapping -> plain nested dicts of arrays (Linen layout when values are unwrapped)."""
  if hasattr(tree, "to_pure_dict"):
    return tree.to_pure_dict()
  return tree


def main():
  work = sys.argv[1]
  fixed = "--fixed" in sys.argv
  os.makedirs(work, exist_ok=True)
  cfg = config(["enable_checkpointing=false", "lora.enable_lora=true", f"lora.lora_rank={RANK}", f"lora.lora_alpha={ALPHA}"])
  model, mesh = model_creation_utils.from_pretrained(cfg)
  base_state = nnx.state(model, nnx.Param)
  base_pure = plain(base_state)
  # The base checkpoint exactly as to_maxtext saves it (Linen TrainState params under params).
  base_dir = os.path.join(work, "base")
  mngr = ocp.CheckpointManager(base_dir, item_names=("items",))
  mngr.save(0, args=ocp.args.Composite(items=ocp.args.PyTreeSave({"params": {"params": base_pure}})))
  mngr.wait_until_finished()
  with jax.set_mesh(mesh):
    lora_model = lora_utils.apply_lora_to_model(model, mesh, cfg)
  # Training moved B off its zero init: give every adapter random values.
  lora_state = nnx.state(lora_model, nnx.LoRAParam)
  rng = np.random.default_rng(0)
  lora_state = jax.tree_util.tree_map(lambda x: np.asarray(rng.normal(0, 0.05, np.shape(x)), dtype=np.float32), lora_state)
  nnx.update(lora_model, lora_state)
  lora_state = nnx.state(lora_model, nnx.LoRAParam)
  lora_root = os.path.join(work, "sft", "checkpoints")
  ckpt = ocp1.training.Checkpointer(lora_root)
  ckpt.save_checkpointables(1, {"model_params": lora_state})
  ckpt.close() if hasattr(ckpt, "close") else None
  lora_path = os.path.join(lora_root, "1", "model_params")
  flat_lora = {"-".join(str(getattr(k, "key", k)) for k in p): v for p, v in jax.tree_util.tree_leaves_with_path(plain(lora_state))}
  print("lora keys:", sorted(flat_lora)[:4], "...", file=sys.stderr)

  def export(out, lora):
    args = [sys.executable, "-m", "maxtext.checkpoint_conversion.to_huggingface", os.path.join(CONFIGS, "base.yml"), *TINY,
            f"load_parameters_path={base_dir}/0/items", f"base_output_directory={out}", "--hf_model_path=" + os.environ["TINY_TOKENIZER"],
            "--override_model_architecture"]
    if lora:
      args += [f"lora.lora_restore_path={lora}", f"lora.lora_rank={RANK}", f"lora.lora_alpha={ALPHA}"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
      sys.stderr.write(r.stdout[-3000:] + r.stderr[-6000:])
      raise SystemExit(f"to_huggingface failed ({out})")

  export(os.path.join(work, "hf-base"), None)
  restore = lora_path
  if fixed:
    restore = os.path.join(work, "lora-linen")
    r = subprocess.run(["bash", "-c", os.environ["REROOT_SCRIPT"], "reroot", lora_path, restore], capture_output=True, text=True)
    if r.returncode != 0:
      sys.stderr.write(r.stdout + r.stderr)
      raise SystemExit("re-rooting failed")
  export(os.path.join(work, "hf-merged"), restore)
  from safetensors.numpy import load_file
  import glob
  def weights(d):
    out = {}
    for f in glob.glob(os.path.join(d, "*.safetensors")):
      out.update(load_file(f))
    return out
  b, m = weights(os.path.join(work, "hf-base")), weights(os.path.join(work, "hf-merged"))
  diff = {k: float(np.max(np.abs(m[k].astype(np.float32) - b[k].astype(np.float32)))) for k in b}
  # The expected delta of each projection without a RoPE permutation, computed here from the adapters as saved (not
  # by MaxText's merge): MaxText kernels are [in, layers, out...] scanned on axis 1, HF weights [out, in] per layer, so
  # delta_l = (A[:, l, :] @ B[:, l, :]) * alpha / rank, transposed. (q_proj and k_proj are also permuted for RoPE by
  # the export's hooks: checked as changed only.)
  plain_modules = {"mlp-wi_0": "mlp.gate_proj", "mlp-wi_1": "mlp.up_proj", "mlp-wo": "mlp.down_proj",
                   "self_attention-value": "self_attn.v_proj", "self_attention-out": "self_attn.o_proj"}
  worst = {}
  for mt, hf in plain_modules.items():
    a = np.asarray(flat_lora[[k for k in flat_lora if k.endswith(f"{mt}-kernel_lora_a")][0]])
    bb = np.asarray(flat_lora[[k for k in flat_lora if k.endswith(f"{mt}-kernel_lora_b")][0]])
    for layer in range(a.shape[1]):
      want = (a[:, layer, :] @ bb[:, layer, :]).T * (ALPHA / RANK)
      k = f"model.layers.{layer}.{hf}.weight"
      got = m[k].astype(np.float32) - b[k].astype(np.float32)
      worst[hf] = max(worst.get(hf, 0.0), float(np.max(np.abs(got - want.reshape(got.shape)))))
  untouched = [k for k in b if "norm" in k or "embed" in k or "lm_head" in k]
  print(json.dumps({
      "fixed": fixed,
      "tensors": len(b),
      "changed_tensors": len([k for k, v in diff.items() if v > 0]),
      "changed": sorted({k.split(".")[-2] for k, v in diff.items() if v > 0}),
      "untouched_changed": [k for k in untouched if diff[k] > 0],
      "max_abs_error_vs_A_B_alpha_over_rank": worst,
      "gate_proj_max_abs_delta": max(diff[f"model.layers.{l}.mlp.gate_proj.weight"] for l in range(2)),
      "lora_shapes": {k: list(np.shape(v)) for k, v in flat_lora.items()},
  }))

if __name__ == "__main__":
  main()
