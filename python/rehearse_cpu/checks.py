"""The CPU rehearsal's checks, each a pass or a fail naming the step and the cause."""
import glob
import json
import os
import re

CAUSE = re.compile(r"(Error|Exception|assert|Traceback|error:|refus|cannot|not found|No such)", re.I)


def cause_of(log_path):
  """The last line of a log that says what went wrong."""
  try:
    lines = [l.rstrip() for l in open(log_path, errors="replace") if l.strip()]
  except OSError:
    return "no log"
  hits = [l for l in lines if CAUSE.search(l) and not l.lstrip().startswith("File ")]
  return (hits[-1] if hits else (lines[-1] if lines else "no output"))[:400]


class Report:
  def __init__(self):
    self.rows = []
    self.total = 0.0

  def add(self, step, check, ok, detail):
    self.rows.append((step, check, ok, detail))
    print(f"{'PASS' if ok else 'FAIL'} {step}: {check}{' — ' + detail if detail else ''}", flush=True)

  def skip(self, step, why):
    self.skipped = getattr(self, "skipped", []) + [(step, why)]
    print(f"UNRUN {step}: {why}", flush=True)

  def step(self, name, rc, seconds, log_path):
    if rc == 0:
      self.add(name, "exits 0", True, f"{seconds:.0f} s")
    else:
      self.add(name, "exits 0", False, f"exit {rc} after {seconds:.0f} s: {cause_of(log_path)} (log {log_path})")

  def finish(self):
    failed = [r for r in self.rows if not r[2]]
    print(f"rehearse:cpu: {len(self.rows) - len(failed)} passed, {len(failed)} failed, {len(getattr(self, 'skipped', []))} unrun on CPU in {self.total:.0f} s", flush=True)
    return 1 if failed else 0


def _arg(script, key):
  m = re.search(rf"{re.escape(key)}=(\S+)", script or "")
  return m.group(1).strip("'\"") if m else None


def _tensors(folder):
  from safetensors.torch import load_file  # the export is bfloat16, which numpy cannot read
  out = {}
  for f in sorted(glob.glob(os.path.join(folder, "*.safetensors"))):
    out.update({k: v.float().numpy() for k, v in load_file(f).items()})
  return out


def _export_dir(base):
  """The folder under to-hf's base_output_directory holding config.json."""
  for d, _, files in os.walk(base or "/nonexistent"):
    if "config.json" in files and any(f.endswith(".safetensors") for f in files):
      return d
  return None


def run_checks(report, plan, run, gcs, model_dir, env_root, steps_ok, hub):
  scripts = {s: open(os.path.join(run, f"{s}.sh")).read() for s in steps_ok}
  args = plan["recipe"]["train"]["args"]
  method = "lora" if args.get("lora.enable_lora") else ("dpo" if any(k.startswith("dpo.") for k in args) else plan["recipe"]["train"]["kind"])
  if steps_ok.get("to-hf"):
    export = _export_dir(_arg(scripts["to-hf"], "base_output_directory"))
    if not export:
      report.add("to-hf", "writes an HF export", False, f"no config.json with safetensors under {_arg(scripts['to-hf'], 'base_output_directory')}")
      return
    _check_loads(report, plan, scripts, export)
    _check_moved(report, method, export, model_dir)
  for line in open(os.path.join(run, "train.log"), errors="replace") if os.path.exists(os.path.join(run, "train.log")) else []:
    if line.startswith("rl probe: PASS "):
      report.add("train", line[len("rl probe: PASS "):].strip()[:300], True, "")
  skipped = {s for s, _ in getattr(report, "skipped", [])}
  unrun = [s["name"] for s in plan["steps"] if s["name"] not in steps_ok and s["name"] not in skipped]
  if unrun:
    report.add(unrun[0], "runs", False, f"not run: an earlier step failed ({', '.join(unrun)} left)")
  if steps_ok.get("eval"):
    results = glob.glob(os.path.join(run, "tmp", "eval", "**", "results_*.json"), recursive=True)
    report.add("eval", "lm-eval wrote results for the base and the trained model", len(results) >= 2, f"{len(results)} results files")
  unserved = [a for a in hub.asked if "(unserved)" in a]
  if unserved:
    report.add("all", "the stand-in Hub answered every request", False, "; ".join(unserved[:5]))


def _check_loads(report, plan, scripts, export):
  import transformers
  m = re.search(r"--hf-overrides '(\{[^']*\})'", scripts.get("eval", "") or "")
  overrides = json.loads(m.group(1)) if m else {}
  config = transformers.AutoConfig.from_pretrained(export)
  arch = (overrides.get("architectures") or config.architectures or ["?"])[0]
  cls = getattr(transformers, arch, None)
  if cls is None:
    report.add("to-hf", f"the export loads as {arch}", False, f"transformers {transformers.__version__} has no class {arch}")
    return
  try:
    for k, v in overrides.items():
      setattr(config, k, v)
    cls.from_pretrained(export, config=config)
    report.add("to-hf", f"the export loads in transformers {transformers.__version__} as {arch} (the class the serve/eval stack asks vLLM for{' via hf_overrides' if overrides else ''})", True, export)
  except Exception as e:  # noqa: BLE001
    report.add("to-hf", f"the export loads as {arch}", False, f"{type(e).__name__}: {str(e)[:300]}")


def _check_moved(report, method, export, model_dir):
  import numpy as np
  base, trained = _tensors(model_dir), _tensors(export)
  common = sorted(set(base) & set(trained))
  if not common:
    report.add("to-hf", "the export's tensors match the base model's names", False, f"no common tensor names (base {sorted(base)[:3]}, export {sorted(trained)[:3]})")
    return
  moved = [k for k in common if base[k].shape == trained[k].shape and not np.allclose(base[k].astype(np.float32), trained[k].astype(np.float32), atol=0, rtol=0)]
  delta = max((float(np.abs(base[k].astype(np.float32) - trained[k].astype(np.float32)).max()) for k in common if base[k].shape == trained[k].shape), default=0.0)
  if moved:
    report.add("to-hf", f"the trained export differs from the base model ({method})", True, f"{len(moved)}/{len(common)} tensors moved, max |delta| {delta:.3g}")
  else:
    why = ("the LoRA delta was not merged: the export equals its base (LoRA merged export defect: to_huggingface.py _get_lora_delta found no LoRA params)"
           if method == "lora" else f"the {method} step did not move any weight")
    report.add("to-hf", f"the trained export differs from the base model ({method})", False, why)
