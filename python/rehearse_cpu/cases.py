"""npm run rehearse:cpu:cases: each case of cases/cases.json is a pipeline that must NOT pass: a config (an example with
the keys `set` changes) and the datasets of a post-training.lock.json. It passes when `npm run rehearse:cpu` (or synth,
once the program refuses the combination) fails naming the expected step and cause. Prints 'N passed, N failed'."""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(names):
  cases = json.load(open(os.path.join(ROOT, "python", "rehearse_cpu", "cases", "cases.json")))
  passed = failed = 0
  for name, case in cases.items():
    if names and name not in names:
      continue
    config = json.load(open(os.path.join(ROOT, case["config"])))
    pipeline = next(iter(config["pipelines"]))
    for key, value in (case.get("set") or {}).items():
      node = config["pipelines"][pipeline]
      parts = key.split(".")
      for p in parts[:-1]:
        node = node.setdefault(p, {})
      node[parts[-1]] = value
    folder = os.path.join(ROOT, ".rehearse", "cases", name)
    os.makedirs(folder, exist_ok=True)
    cfg_path = os.path.join(folder, "config.json")
    json.dump(config, open(cfg_path, "w"), indent=1)
    lock_path = os.path.join(folder, "post-training.lock.json")
    json.dump({"datasets": case.get("lock") or {}}, open(lock_path, "w"), indent=1)
    env = dict(os.environ, REHEARSE_CPU_LOCK=lock_path)
    r = subprocess.run(["node", "dist/rehearse-cpu/cli.js", pipeline, "--config", cfg_path], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    fails = [l for l in out.splitlines() if l.startswith("FAIL ")]
    synth = [l for l in out.splitlines() if l.strip().startswith("- ") and "ConfigError" in out]
    step_re, cause_re = re.compile(case["expect"]["step"]), re.compile(case["expect"]["cause"], re.I)
    hit = [l for l in fails if step_re.match(l[5:].split(":")[0]) and cause_re.search(l)]
    if "synth" in case["expect"]["step"]:
      hit += [l for l in synth if cause_re.search(l)]
    if r.returncode != 0 and hit:
      passed += 1
      print(f"case {name}: detected — {hit[0].strip()[:300]}")
    else:
      failed += 1
      print(f"case {name}: NOT detected ({case['why']}); exit {r.returncode}; failures: {fails[:3] or out[-500:]}")
  print(f"rehearse-cpu cases: {passed} passed, {failed} failed")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
