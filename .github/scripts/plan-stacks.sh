#!/usr/bin/env bash
# The pull request's saved plans (the plan job): for every stack, `terraform plan -out=plan` in its
# cdktf.out/stacks/<stack>/ directory (what `cdktf diff` runs there) and `terraform show -json` of that saved plan,
# into <out-dir>, which the workflow uploads as the `plans` artifact (short retention) for the review and the deploy:
#   <stack>.json    the saved plan as JSON: the review reads exactly this file; the deploy after the merge re-plans
#                   and applies only when its plan equals it (deploy-infra.sh)
#   <stack>.failed  the plan of that stack failed: the review fails (`--plan-failed <stack>`)
# Needs Google credentials (Workload Identity Federation) and a state bucket (STATE_BUCKET), and for pipeline
# stacks a reachable control plane: hosted runners use the DNS-based endpoint (DNS_ENDPOINT=true), IAM-authorized.
# Usage: .github/scripts/plan-stacks.sh [out-dir]   (default: plans/)
set -euo pipefail
out="${1:-plans}"
: "${STATE_BUCKET:?plans need STATE_BUCKET: without a remote state every resource would show as a create}"
rm -rf "$out"
mkdir -p "$out"

# One environment per job (CONFIG_FILE) on a fresh runner: its synthesis goes to cdktf.out, which the steps below read
# (on a workstation the npm scripts give each environment its own cdktf.out.<project>.<cluster>: scripts/cdktf.mjs).
npm run --silent synth -- --output cdktf.out
stacks=$(node -e 'const m=require("./cdktf.out/manifest.json"); console.log(Object.keys(m.stacks).join("\n"))')
status=0
for stack in $stacks; do
  dir="cdktf.out/stacks/${stack}"
  echo "::group::terraform plan ${stack}"
  if terraform -chdir="$dir" init -input=false \
    && terraform -chdir="$dir" plan -input=false -lock-timeout=5m -out=plan \
    && terraform -chdir="$dir" show -json plan > "${out}/${stack}.json"; then
    echo "saved the plan of ${stack} (${out}/${stack}.json)"
  else
    rm -f "${out}/${stack}.json"
    : > "${out}/${stack}.failed"
    echo "::error::the plan of ${stack} failed; the review fails on it"
    status=1
  fi
  echo "::endgroup::"
done
# A failed plan fails the review (its marker file), and this step only after all stacks ran.
exit "$status"
