#!/usr/bin/env bash
# CI's CPU rehearsal (.ci/run): installs the Python lock (cached in .rehearse/ by the locks' hash) and runs
# `npm run rehearse:cpu` for the four presets of config/example.json and the pipeline of every config/examples/*.json.
# Prints the time of each and a closing 'N passed, N failed'; exits 1 when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/rehearse-cpu-install.sh || exit 1
node scripts/build-if-stale.mjs || exit 1
passed=0; failed=0; start=$SECONDS
run() {  # <pipeline> [config]
  local t0=$SECONDS out
  out="$(mktemp)"
  if node dist/rehearse-cpu/cli.js "$1" ${2:+--config "$2"} >"$out" 2>&1; then
    passed=$((passed + 1)); echo "rehearse:cpu $1: passed in $((SECONDS - t0)) s"
  else
    failed=$((failed + 1)); echo "rehearse:cpu $1: FAILED in $((SECONDS - t0)) s"
  fi
  grep -E '^(PASS|FAIL|UNRUN|substitution: (model|dataset))' "$out" | sed 's/^/  /'
  rm -f "$out"
}
for p in $(node -e 'console.log(Object.keys(JSON.parse(require("fs").readFileSync("config/example.json","utf8")).pipelines).join(" "))'); do
  run "$p"
done
for f in config/examples/*.json; do
  for p in $(node -e 'console.log(Object.keys(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).pipelines).join(" "))' "$f"); do
    run "$p" "$f"
  done
done
echo "rehearse:cpu: all pipelines in $((SECONDS - start)) s"
echo "rehearse-cpu: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
