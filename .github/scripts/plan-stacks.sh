#!/usr/bin/env bash
# Real Terraform plans for every stack, as JSON for `npm run review -- --plan <stack>=<file>`.
# Needs Google credentials (Workload Identity Federation) and a state bucket (STATE_BUCKET), and for pipeline
# stacks a reachable control plane: hosted runners use the DNS-based endpoint (DNS_ENDPOINT=true), IAM-authorized.
# Usage: .github/scripts/plan-stacks.sh [out-dir]   (default: plans/)
set -euo pipefail
out="${1:-plans}"
mkdir -p "$out"
: "${STATE_BUCKET:?plans need STATE_BUCKET: without a remote state every resource would show as a create}"

npm run --silent synth
stacks=$(node -e 'const m=require("./cdktf.out/manifest.json"); console.log(Object.keys(m.stacks).join("\n"))')
status=0
for stack in $stacks; do
  echo "::group::cdktf diff ${stack}"
  # `cdktf diff` runs `terraform plan -out plan` in cdktf.out/stacks/<stack>/ (cdktf-gke-terraform.md §1.2).
  if npx cdktf diff "$stack" --skip-synth; then
    terraform -chdir="cdktf.out/stacks/${stack}" show -json plan > "${out}/${stack}.json"
  else
    echo "::warning::cdktf diff ${stack} failed; the review will not include its plan"
    status=1
  fi
  echo "::endgroup::"
done
# A failed plan is reported in the comment (missing stack) and fails this step only after all stacks ran.
exit "$status"
