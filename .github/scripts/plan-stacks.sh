#!/usr/bin/env bash
# The pull request's saved plans (the plan job): for every stack, `terraform plan -out=plan` in its
# cdktf.out/stacks/<stack>/ directory (what `cdktf diff` runs there) and `terraform show -json` of that saved plan,
# into <out-dir>, which the workflow uploads as the `plans` artifact (short retention) for the review and the deploy:
#   pull-request.txt the pull request's number and base branch (PR_NUMBER, BASE_REF from the workflow's event), one
#                    line: the deploy takes a run's plans only for the pull request it merged (fetch-reviewed-plans.sh)
#   stacks.txt       the stacks of this commit's synthesis, one a line, written before any is planned: the review
#                    errors on each of them that has neither a plan nor a failure marker
#   <stack>.json     the saved plan as JSON: the review reads exactly this file; the deploy after the merge re-plans
#                    and applies only when its plan equals it (deploy-infra.sh)
#   <stack>.failed   the plan of that stack failed; the file holds the step that failed (init, plan, show)
#   plan-job.failed  the job died outside a stack's plan (STATE_BUCKET unset, synth, reading the stack list, or
#                    anything after the loop); the file holds that step. Written by the EXIT trap, so even a script
#                    killed by `set -e` before its loop leaves it: a dead plan job is never a green, empty review.
# Needs Google credentials (Workload Identity Federation) and a state bucket (STATE_BUCKET), and for pipeline
# stacks a reachable control plane: hosted runners use the DNS-based endpoint (DNS_ENDPOINT=true), IAM-authorized.
# Usage: .github/scripts/plan-stacks.sh [out-dir]   (default: plans/)
set -euo pipefail
out="${1:-plans}"
rm -rf "$out"
mkdir -p "$out"
printf '%s %s\n' "${PR_NUMBER:-none}" "${BASE_REF:-none}" | LC_ALL=C tr -cd 'A-Za-z0-9 ._/\n-' > "${out}/pull-request.txt"
step="start"
# Any exit but success outside a stack's plan leaves plan-job.failed naming the step it died in.
on_exit() {
  local code=$?
  if [ "$code" -ne 0 ] && [ -n "$step" ]; then
    printf '%s\n' "$step" > "${out}/plan-job.failed"
    echo "::error::the plan job failed at step '${step}' (exit ${code}); the review fails on it"
  fi
}
trap on_exit EXIT

step="STATE_BUCKET"
: "${STATE_BUCKET:?plans need STATE_BUCKET: without a remote state every resource would show as a create}"
step="synth"
# One environment per job (CONFIG_FILE) on a fresh runner: its synthesis goes to cdktf.out, which the steps below read
# (on a workstation the npm scripts give each environment its own cdktf.out.<project>.<cluster>: scripts/cdktf.mjs).
npm run --silent synth -- --output cdktf.out
step="reading the stack list (cdktf.out/manifest.json)"
node -e 'const m=require("./cdktf.out/manifest.json"); const s=Object.keys(m.stacks); if (!s.length) throw new Error("no stacks"); console.log(s.join("\n"))' > "${out}/stacks.txt"
status=0
while IFS= read -r stack; do
  dir="cdktf.out/stacks/${stack}"
  echo "::group::terraform plan ${stack}"
  failed=""
  terraform -chdir="$dir" init -input=false || failed="init"
  [ -n "$failed" ] || terraform -chdir="$dir" plan -input=false -lock-timeout=5m -out=plan || failed="plan"
  [ -n "$failed" ] || terraform -chdir="$dir" show -json plan > "${out}/${stack}.json" || failed="show"
  [ -n "$failed" ] || [ -s "${out}/${stack}.json" ] || failed="show (empty output)"
  if [ -z "$failed" ]; then
    echo "saved the plan of ${stack} (${out}/${stack}.json)"
  else
    rm -f "${out}/${stack}.json"
    printf '%s\n' "$failed" > "${out}/${stack}.failed"
    echo "::error::the plan of ${stack} failed at terraform ${failed}; the review fails on it"
    status=1
  fi
  echo "::endgroup::"
done < "${out}/stacks.txt"
step=""
# A failed plan fails the review (its marker file), and this step only after all stacks ran.
exit "$status"
