"""The tiny stand-in model: MaxText's own HF config of the model (maxtext-v0.2.4
src/maxtext/checkpoint_conversion/utils/hf_model_configs.py HF_MODEL_CONFIGS, the config to_maxtext maps and checks
against) with its structural fields kept (class, attention kind and layer types, MoE experts and routing, tied
embeddings, RoPE parameters, norm placement) and only sizes cut; random weights from transformers; a tokenizer made
with `tokenizers` carrying the family's special tokens, BOS/EOS behaviour and chat template; the MaxText overrides
giving MaxText the same sizes (every name checked in maxtext-v0.2.4 src/maxtext/configs/base.yml)."""
import copy
import json
import os

SIZES = dict(hidden=64, heads=4, kv_heads=2, head_dim=16, mlp=128, moe_mlp=32, experts=4, experts_per_tok=2, vocab=512,
             window=16)

# Per family: special tokens (first ids), which of them is BOS / EOS / PAD, whether BOS is added, the chat template.
# Templates follow the families' published tokenizer_config.json chat templates in their essentials (the originals are
# not reachable here; post-training.lock.json records each original's hash).
FAMILIES = {
    "llama3": dict(
        specials=["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                  "<|finetune_right_pad_id|>"],
        bos="<|begin_of_text|>", eos="<|eot_id|>", pad="<|finetune_right_pad_id|>", add_bos=True,
        template=("{{- bos_token }}{%- for message in messages %}{{- '<|start_header_id|>' + message['role'] + "
                  "'<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}{%- endfor %}"
                  "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{%- endif %}")),
    "qwen3": dict(
        specials=["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"],
        bos=None, eos="<|im_end|>", pad="<|endoftext|>", add_bos=False,
        template=("{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + "
                  "'<|im_end|>' + '\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}"
                  "{%- endif %}")),
    "gemma": dict(
        specials=["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"],
        bos="<bos>", eos="<eos>", pad="<pad>", add_bos=True,
        template=("{{ bos_token }}{%- for message in messages %}{%- set role = 'model' if message['role'] == 'assistant' "
                  "else message['role'] %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + "
                  "'<end_of_turn>\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{%- endif %}")),
}


def family_of(model_name):
  if model_name.startswith("llama3"):
    return "llama3"
  if model_name.startswith("qwen3"):
    return "qwen3"
  if model_name.startswith("gemma3") or model_name.startswith("gemma4"):
    return "gemma"
  raise SystemExit(f"rehearse:cpu: no tiny stand-in for model {model_name!r} (families: llama3, qwen3, gemma3, gemma4)")


def _cut_text_config(d, layers, ids, model_name):
  s = SIZES
  d.update(hidden_size=s["hidden"], intermediate_size=s["mlp"], num_attention_heads=s["heads"],
           num_key_value_heads=s["kv_heads"], head_dim=s["head_dim"], num_hidden_layers=layers, vocab_size=s["vocab"],
           )
  d.update(ids)
  for key in ("num_experts", "num_local_experts"):
    if d.get(key):
      d.update({key: s["experts"], "num_experts_per_tok": s["experts_per_tok"], "moe_intermediate_size": s["moe_mlp"]})
  if "max_window_layers" in d:
    d["max_window_layers"] = layers
  if d.get("layer_types"):
    d["layer_types"] = list(d["layer_types"][:layers])
  if d.get("sliding_window"):
    d["sliding_window"] = s["window"]
  if "global_head_dim" in d and d.get("global_head_dim"):
    d["global_head_dim"] = 2 * s["head_dim"]
  if d.get("num_global_key_value_heads"):
    d["num_global_key_value_heads"] = 1
  if "vocab_size_per_layer_input" in d and d.get("vocab_size_per_layer_input"):
    d["vocab_size_per_layer_input"] = s["vocab"]
  if d.get("hidden_size_per_layer_input"):
    d["hidden_size_per_layer_input"] = 16
  return d


def maxtext_overrides(model_name, layers):
  """The same sizes for MaxText, as command-line keys (base.yml names)."""
  s = SIZES
  o = {"override_model_config": "True", "base_emb_dim": s["hidden"], "base_num_query_heads": s["heads"],
       "base_num_kv_heads": s["kv_heads"], "head_dim": s["head_dim"], "base_mlp_dim": s["mlp"],
       "base_num_decoder_layers": layers, "vocab_size": s["vocab"]}
  if "-a3b" in model_name or "moe" in model_name:
    o.update(num_experts=s["experts"], num_experts_per_tok=s["experts_per_tok"], base_moe_mlp_dim=s["moe_mlp"],
             base_mlp_dim=s["moe_mlp"])
  if model_name.startswith("gemma"):
    o["sliding_window_size"] = s["window"]
  if model_name.startswith("gemma4"):
    o.update(global_head_dim=2 * s["head_dim"], global_num_kv_heads=1)
  return {k: str(v) for k, v in o.items()}


def make_tokenizer(family, out):
  from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers, processors
  from transformers import PreTrainedTokenizerFast
  f = FAMILIES[family]
  tok = Tokenizer(models.BPE())
  tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
  tok.decoder = decoders.ByteLevel()
  corpus = [" ".join(f"word{i} the answer is {i} plus {j} equals {i + j}." for j in range(20)) for i in range(200)]
  corpus += ["Solve the math problem. Reason step by step, then give the final number.", "user assistant system model"]
  trainer = trainers.BpeTrainer(vocab_size=SIZES["vocab"], special_tokens=f["specials"], show_progress=False,
                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
  tok.train_from_iterator(corpus, trainer)
  if f["add_bos"]:
    bos = f["bos"]
    tok.post_processor = processors.TemplateProcessing(single=f"{bos} $A", pair=f"{bos} $A {bos} $B",
                                                       special_tokens=[(bos, tok.token_to_id(bos))])
  fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=f["bos"], eos_token=f["eos"], pad_token=f["pad"])
  fast.chat_template = f["template"]
  fast.save_pretrained(out)
  cfg_path = os.path.join(out, "tokenizer_config.json")
  cfg = json.load(open(cfg_path))
  cfg["add_bos_token"] = f["add_bos"]
  cfg["chat_template"] = f["template"]
  json.dump(cfg, open(cfg_path, "w"), indent=1)
  ids = {"bos_token_id": tok.token_to_id(f["bos"]) if f["bos"] else None, "eos_token_id": tok.token_to_id(f["eos"]),
         "pad_token_id": tok.token_to_id(f["pad"])}
  return ids, len(tok.get_vocab())


def make_model(model_name, out, layers, seed=0):
  """Writes config.json, model.safetensors and the tokenizer files into out; returns what it made."""
  import torch
  import transformers
  from maxtext.checkpoint_conversion.utils.hf_model_configs import HF_MODEL_CONFIGS
  os.makedirs(out, exist_ok=True)
  family = family_of(model_name)
  ids, vocab = make_tokenizer(family, out)
  if vocab != SIZES["vocab"]:
    raise SystemExit(f"rehearse:cpu: the tiny tokenizer has {vocab} tokens, not {SIZES['vocab']}")
  original = HF_MODEL_CONFIGS[model_name]
  d = copy.deepcopy(original.to_dict())
  if "text_config" in d and d["text_config"]:
    d["text_config"] = _cut_text_config(d["text_config"], layers, ids, model_name)
    if "vision_config" in d and d["vision_config"]:
      v = d["vision_config"]
      for k, val in dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2).items():
        if k in v:
          v[k] = val
  else:
    d = _cut_text_config(d, layers, ids, model_name)
  config = type(original).from_dict(d)
  arch = (config.architectures or [None])[0]
  torch.manual_seed(seed)
  if arch and hasattr(transformers, arch):
    model = getattr(transformers, arch)._from_config(config, dtype=torch.float32)
  else:
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
  model.save_pretrained(out)
  return {"class": type(model).__name__, "config_class": type(config).__name__, "family": family,
          "params": sum(p.numel() for p in model.parameters())}
