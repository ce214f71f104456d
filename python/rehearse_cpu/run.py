"""npm run rehearse:cpu -- <pipeline>: runs the pipeline's own step scripts (plan.json, written by rehearse-cpu/cli.ts
from the synthesized rehearsal) on this machine's CPU, to-maxtext -> train -> to-hf -> eval, with only the
substitutions it prints, then checks what the steps made. Exit 0 when every step and check passed."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from rehearse_cpu import data as datamod  # noqa: E402
from rehearse_cpu import fake_hub, tiny  # noqa: E402
from rehearse_cpu.checks import Report, run_checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
RECIPE_FILES_DIR = "/etc/tpu-post-training/files/"
TOKEN_FILE = "/var/run/secrets/hf/hf-token"
MAXTEXT_SRC = "/deps/src/maxtext"
# One step's limit. Measured on the loaded 2-core machine: to-maxtext 4-5 min, SFT train 11 min (the first step's JIT
# compile is 5 of them); a step past this is ended with its process group.
STEP_TIMEOUT_S = int(os.environ.get("REHEARSE_CPU_STEP_TIMEOUT", "3600"))


def say(msg):
  print(msg, flush=True)


class Subs:
  """The substitutions, each printed once and applied to every script."""

  def __init__(self):
    self.items = []

  def add(self, what, old, new):
    self.items.append((what, old, new))
    say(f"substitution: {what}")

  def apply(self, text):
    for _, old, new in self.items:
      text = old.sub(new, text) if hasattr(old, "sub") else text.replace(old, new)
    return text


def maxtext_defaults(method):
  import yaml
  import maxtext
  cfg = os.path.join(os.path.dirname(maxtext.__file__), "configs")
  d = yaml.safe_load(open(os.path.join(cfg, "base.yml")))
  extra = {"sft": "post_train/sft.yml", "dpo": "post_train/dpo.yml", "rl": "post_train/rl.yml"}.get(method)
  if extra and os.path.exists(os.path.join(cfg, extra)):
    d.update({k: v for k, v in (yaml.safe_load(open(os.path.join(cfg, extra))) or {}).items() if not isinstance(v, dict)})
  return d


def dataset_specs(plan, lock_path):
  """{repo: (configs, source)} for the train dataset and every eval task's dataset."""
  kind = plan["recipe"]["train"]["kind"]
  args = plan["recipe"]["train"]["args"]
  d = maxtext_defaults("dpo" if any(k.startswith("dpo.") for k in args) else kind)
  g = lambda k: args.get(k, d.get(k))  # noqa: E731
  wanted = {}  # repo -> {config: {"splits": set, "columns": {}}}

  def want(repo, config, split, columns):
    c = wanted.setdefault(repo, {}).setdefault(config or "default", {"splits": set(), "columns": {}})
    if split:
      c["splits"].add(split)
    c["columns"].update(columns)

  if kind == "rl":
    repo = g("dataset_name")
    cols = datamod.KNOWN_COLUMNS.get(repo, {})
    want(repo, g("hf_subset"), g("train_split"), cols)
    if int(g("num_test_batches") or 0) > 0:
      want(g("eval_dataset_name") or repo, g("hf_subset"), g("eval_split"), cols)
  else:
    repo = g("hf_path")
    cols = {c: ("messages" if c == "messages" else "text") for c in (g("train_data_columns") or ["messages"])}
    want(repo, g("hf_name") or None, g("train_split"), cols)
    if g("hf_eval_split") and str(g("eval_interval") or -1) not in ("-1", "0"):
      want(repo, g("hf_name") or None, g("hf_eval_split"), cols)
  # eval task files the eval step writes (dataset_path / dataset_name / test_split lines of its heredocs)
  for step in plan["steps"]:
    for task in re.findall(r"<<'TASK'\n(.*?)\nTASK", step["script"], re.S):
      path = re.search(r"^dataset_path:\s*\"?([^\"\n]+)\"?", task, re.M)
      name = re.search(r"^dataset_name:\s*\"?([^\"\n]+)\"?", task, re.M)
      split = re.search(r"^test_split:\s*\"?([^\"\n]+)\"?", task, re.M)
      if path:
        r = path.group(1).strip()
        known = wanted.get(r, {}).get(name.group(1).strip() if name else "default", {}).get("columns") or datamod.KNOWN_COLUMNS.get(r, {})
        want(r, name.group(1).strip() if name else None, split.group(1).strip() if split else None, known)
  out = {}
  for repo, configs in wanted.items():
    entry = datamod.lock_entry(lock_path, repo)
    if entry:
      out[repo] = ({c: {"splits": list(s["splits"]), "columns": s["columns"]} for c, s in entry["configs"].items()},
                   "post-training.lock.json")
    else:
      for c in configs.values():
        if not c["columns"]:
          raise SystemExit(f"rehearse:cpu: no columns known for dataset {repo}: lock it (npm run lock) so its columns are in post-training.lock.json")
      out[repo] = ({c: {"splits": sorted(s["splits"]), "columns": s["columns"]} for c, s in configs.items()},
                   "the pipeline's declared columns, config and splits (no post-training.lock.json entry)")
  return out


def maxtext_override_sub(overrides):
  """Adds the tiny sizes to every `python3 -m maxtext.` invocation (after its model_name= line), skipping keys the
  invocation already sets, and runs training on CPU."""
  def fix(m):
    block = m.group(0)
    extra = [f"  {k}={v} \\\n" for k, v in overrides.items() if not re.search(rf"^\s*{re.escape(k)}=", block, re.M)]
    return block + "".join(extra)
  return re.compile(r"python3 -m maxtext\.[a-z_.]+ \\\n  model_name=[^\s]+ \\\n"), fix


class Regex:
  def __init__(self, pattern, repl, flags=0):
    self.p = re.compile(pattern, flags)
    self.repl = repl

  def sub(self, repl, text):
    return self.p.sub(self.repl, text)


def main(plan_path):
  plan = json.load(open(plan_path))
  run = os.path.dirname(os.path.abspath(plan_path))
  env_root = os.path.realpath(os.path.join(ROOT, ".rehearse", "current"))
  say(f"rehearse:cpu {plan['pipeline']}: {plan['model']['name']} ({plan['model']['hfRepo']}), {plan['recipe']['train']['kind']}, in {run}")
  report = Report()
  t0 = time.time()
  args = plan["recipe"]["train"]["args"]
  layers = int(args.get("base_num_decoder_layers", 6))

  # the tiny model and tokenizer, served as the pipeline's model repository
  model_dir = os.path.join(run, "hub", "models", plan["model"]["hfRepo"])
  made = tiny.make_model(plan["model"]["name"], model_dir, layers)
  say(f"substitution: model {plan['model']['hfRepo']} -> a tiny {made['class']} ({made['config_class']}, {made['params']} parameters, {layers} layers, random weights) made locally from MaxText's HF config of {plan['model']['name']} with sizes {tiny.SIZES}")
  say(f"substitution: tokenizer -> made locally with `tokenizers`: the {made['family']} family's special tokens, BOS/EOS and chat template, vocab {tiny.SIZES['vocab']}")
  repos = {("models", plan["model"]["hfRepo"]): model_dir}
  tok_path = args.get("tokenizer_path")
  if tok_path and "/" in tok_path and not tok_path.startswith("/") and tok_path != plan["model"]["hfRepo"]:
    repos[("models", tok_path)] = model_dir

  # data in the declared shape
  lock_path = os.environ.get("REHEARSE_CPU_LOCK", os.path.join(ROOT, "post-training.lock.json"))
  for repo, (configs, source) in dataset_specs(plan, lock_path).items():
    droot = os.path.join(run, "hub", "datasets", repo)
    datamod.write_dataset(droot, configs)
    repos[("datasets", repo)] = droot
    say(f"substitution: dataset {repo} -> made locally from {source}: " + "; ".join(f"config {c}: splits {s['splits']}, columns {s['columns']}" for c, s in configs.items()))

  hub = fake_hub.Hub(repos)
  say(f"substitution: HF_ENDPOINT={hub.url}, a loopback stand-in Hub serving only the repositories above (python/rehearse_cpu/fake_hub.py)")

  subs = Subs()
  os.makedirs(os.path.join(run, "secrets"), exist_ok=True)
  open(os.path.join(run, "secrets", "hf-token"), "w").write("hf_rehearse_cpu_stand_in")
  subs.add(f"{TOKEN_FILE} -> {run}/secrets/hf-token (a stand-in token)", TOKEN_FILE, f"{run}/secrets/hf-token")
  files_dir = os.path.join(run, "files")
  os.makedirs(files_dir, exist_ok=True)
  for f in plan["recipe"].get("files") or []:
    open(os.path.join(files_dir, f["name"]), "w").write(f["content"])
  subs.add(f"{RECIPE_FILES_DIR} (the files ConfigMap) -> {files_dir}/", RECIPE_FILES_DIR, files_dir + "/")
  gcs = os.path.join(run, "gcs")
  for b in plan["buckets"]:
    os.makedirs(os.path.join(gcs, b), exist_ok=True)
  subs.add(f"gs://<bucket>/ -> {gcs}/<bucket>/ (gcsfs calls through a local stand-in: python/rehearse_cpu/shim/gcsfs)", "gs://", gcs + "/")
  src = os.path.join(run, "src")
  import maxtext
  shutil.rmtree(src, ignore_errors=True)
  shutil.copytree(os.path.dirname(maxtext.__file__), os.path.join(src, "maxtext"))
  with open(os.path.join(src, "maxtext", "checkpoint_conversion", "utils", "hf_model_configs.py"), "a") as f:
    f.write(f"\n# rehearse:cpu: the tiny stand-in's config in place of the full-size one\nimport transformers as _t\nHF_MODEL_CONFIGS[{plan['model']['name']!r}] = _t.AutoConfig.from_pretrained({model_dir!r})\n")
  say(f"substitution: MaxText's HF_MODEL_CONFIGS[{plan['model']['name']!r}] -> the tiny model's config (in a copy of MaxText at {src}/maxtext)")
  subs.add(f"{MAXTEXT_SRC} -> {src}/maxtext (the copy the source patches apply to)", MAXTEXT_SRC, f"{src}/maxtext")
  tmp = os.path.join(run, "tmp")
  os.makedirs(tmp, exist_ok=True)
  subs.add(f"/tmp/ -> {tmp}/", Regex(r"(?<![\w.])/tmp/", tmp + "/"), None)
  overrides = tiny.maxtext_overrides(plan["model"]["name"], layers)
  overrides.update(hardware="cpu", skip_jax_distributed_system="True")
  pat, fix = maxtext_override_sub(overrides)
  subs.add("MaxText sizes -> " + " ".join(f"{k}={v}" for k, v in overrides.items()) + " on every MaxText command", Regex(pat.pattern, fix), None)
  subs.add("skip_jax_distributed_system=False -> True (one CPU process)", "skip_jax_distributed_system=False", "skip_jax_distributed_system=True")
  subs.add("the eval step's `pip install lm_eval...` -> nothing (lm-eval 0.4.12 is in the locked eval environment)", Regex(r"^pip install [^\n]*lm_eval[^\n]*$", "true", re.M), None)
  subs.add("`vllm serve` -> python/rehearse_cpu/vllm (a loopback stand-in serving /health and /v1/completions from transformers on CPU, with the same --hf-overrides)", "vllm serve ", "vllm serve ")

  to_hf = next((st for st in plan["steps"] if st["name"] == "to-hf"), None)
  m = re.search(r"base_output_directory=(\S+)", subs.apply(to_hf["script"])) if to_hf else None
  if m:
    subs.add(f"/gcs/export (the eval pod's Cloud Storage FUSE mount of the export) -> {m.group(1)}<export run> (the folder to-hf wrote)",
             Regex(r"(?<![\w.])/gcs/export", "__EXPORT__"), None)
    export_base = m.group(1)
  rl = plan["recipe"]["train"]["kind"] == "rl"
  if rl:
    subs.add("GRPO/GSPO train -> python/rehearse_cpu/rl_probe.py with the train step's own MaxText arguments: MaxText's config, tokenizer and chat template, prepare_datasets and build_reward_fns on real completions run; the vLLM rollout, the policy update and the RL checkpoint stay unrun (vLLM runs on TPU only), so to-hf and eval stay unrun",
             "python3 -m maxtext.trainers.post_train.rl.train_rl ", f"python3 {HERE}/rl_probe.py ")
    subs.add("the train step's patch of Tunix's vLLM sampler source (jobs/maxtext.ts vllmReshardChunkPatch) -> nothing: importing tunix.generate.vllm_sampler imports vLLM, TPU only",
             Regex(r"^python3 -c \"import pathlib, sys, tunix\.generate\.vllm_sampler[^\n]*$", "true", re.M), None)
  shim = os.path.join(HERE, "shim")
  base_env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
  base_env.update(HF_ENDPOINT=hub.url, HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_ETAG_TIMEOUT="30", HF_HOME=os.path.join(run, "hf-home"),
                  REHEARSE_CPU_GCS=gcs, REHEARSE_CPU_MODEL_DIR=model_dir, JAX_PLATFORMS="cpu", TOKENIZERS_PARALLELISM="false", PYTHONUNBUFFERED="1")
  steps_ok = {}
  start_at = os.environ.get("REHEARSE_CPU_FROM") or plan["steps"][0]["name"]
  names = [s["name"] for s in plan["steps"]]
  if start_at not in names:
    raise SystemExit(f"rehearse:cpu: --from {start_at!r}: the pipeline's steps are {', '.join(names)}")
  for step in plan["steps"]:
    name = step["name"]
    if names.index(name) < names.index(start_at):
      steps_ok[name] = True
      open(os.path.join(run, f"{name}.sh"), "w").write(subs.apply(step["script"]))
      say(f"step {name}: kept from the previous run (--from {start_at})")
      continue
    if rl and name in ("to-hf", "eval"):
      report.skip(name, "needs the RL checkpoint, which needs the vLLM rollout (TPU only); proven by the one-host rehearsal")
      continue
    env = dict(base_env)
    for k, v in step["env"].items():
      if k in ("JAX_PLATFORMS", "LIBTPU_INIT_ARGS", "TPU_WORKER_HOSTNAMES", "TPU_WORKER_ID") or not v:
        continue
      env[k] = subs.apply(v)
    py_env = "eval" if name == "eval" else "maxtext"
    env["PATH"] = os.pathsep.join([os.path.join(HERE, "bin"), os.path.join(env_root, py_env, "bin"), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([shim, src] if py_env == "maxtext" else [shim])
    env["REHEARSE_CPU_EVAL_PYTHON"] = os.path.join(env_root, "eval", "bin", "python")
    script = subs.apply(step["script"])
    if "__EXPORT__" in script:
      from rehearse_cpu.checks import _export_dir
      script = script.replace("__EXPORT__", _export_dir(export_base) or export_base)
    open(os.path.join(run, f"{name}.sh"), "w").write(script)
    log_path = os.path.join(run, f"{name}.log")
    say(f"step {name}: running ({run}/{name}.sh, log {log_path})")
    s0 = time.time()
    with open(log_path, "w") as log:
      proc = subprocess.Popen(["bash", "-c", script], env=env, cwd=run, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
      try:
        rc = proc.wait(timeout=STEP_TIMEOUT_S)
      except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        rc = f"timeout ({STEP_TIMEOUT_S} s, REHEARSE_CPU_STEP_TIMEOUT)"
    took = time.time() - s0
    steps_ok[name] = rc == 0
    report.step(name, rc, took, log_path)
    if rc != 0:
      break
  run_checks(report, plan, run, gcs, model_dir, env_root, steps_ok, hub)
  hub.close()
  report.total = time.time() - t0
  return report.finish()


if __name__ == "__main__":
  sys.exit(main(sys.argv[1]))
