#!/usr/bin/env bash
# Deploys the `infra` stack after a merge, applying only what the pull request reviewed (as Atlantis and Terraform
# Cloud do): plans this commit with `terraform plan -out=plan`, reviews that plan against the pull request's reviewed
# plan (`--reviewed`: any difference, or any error finding, refuses), then applies exactly that saved plan file.
# Terraform itself refuses the saved plan if the state changed after it was made ("Saved plan is stale").
# Runs in the protected `infra` environment with Workload Identity Federation credentials and STATE_BUCKET set; the
# same for a pipeline stack in the protected `pipelines` environment (deploy-pipeline.yml): the apply creates its
# Workflow and returns, the run goes on in the cluster.
# Usage: REVIEWED_PLANS=<dir from fetch-reviewed-plans.sh> .github/scripts/deploy-infra.sh [stack]   (default: infra)
set -euo pipefail
: "${STATE_BUCKET:?deploying needs STATE_BUCKET (remote state); refusing to deploy with local state}"
reviewed="${REVIEWED_PLANS:?set REVIEWED_PLANS to the reviewed plans of the merged pull request (fetch-reviewed-plans.sh)}"
stack="${1:-infra}"
if ! [[ "$stack" =~ ^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
  echo "::error::stack must be a stack name such as infra or rl-qwen3, got '${stack}'"
  exit 2
fi
if [ -n "${PIPELINES_ONLY:-}" ] && [ "$stack" = infra ]; then
  echo "::error::this workflow deploys pipeline stacks only; infra deploys on merge (deploy-infra.yml)"
  exit 2
fi
dir="cdktf.out/stacks/${stack}"
if [ -e "${reviewed}/plan-job.failed" ]; then
  echo "::error::the pull request's plan job failed at '$(head -c 80 "${reviewed}/plan-job.failed" | tr -cd 'A-Za-z0-9 ._()/-')', so its plans were never all reviewed: nothing is applied"
  exit 1
fi
if [ -e "${reviewed}/${stack}.failed" ]; then
  echo "::error::the pull request's plan of ${stack} failed, so it was never reviewed: nothing is applied"
  exit 1
fi
if [ ! -s "${reviewed}/${stack}.json" ]; then
  echo "::error::no reviewed plan of ${stack} in ${reviewed}: nothing is applied"
  exit 1
fi

# One environment per job (CONFIG_FILE) on a fresh runner: its synthesis goes to cdktf.out, which the steps below read
# (on a workstation the npm scripts give each environment its own cdktf.out.<project>.<cluster>: scripts/cdktf.mjs).
npm run --silent synth -- --output cdktf.out
terraform -chdir="$dir" init -input=false
terraform -chdir="$dir" plan -input=false -lock-timeout=5m -out=plan
terraform -chdir="$dir" show -json plan > deploy-plan.json
code=0
npm run --silent review -- --no-synth --plan "${stack}=deploy-plan.json" --reviewed "${stack}=${reviewed}/${stack}.json" \
  --out review-report.md --quiet || code=$?
cat review-report.md >> "${GITHUB_STEP_SUMMARY:-/dev/null}" 2>/dev/null || true
if [ "$code" -ne 0 ]; then
  echo "::error::the plan to apply differs from the reviewed plan or has review errors (exit ${code}); nothing is applied (see the job summary)"
  echo "If the state moved since the review (another merge deployed, or a queued deploy dropped by the concurrency group): re-run the pull request's plan-review run, and once its review is clean re-run this deploy (docs/ci.md, \"Re-runs, skipped and cancelled jobs, queued merges\")."
  exit 1
fi
terraform -chdir="$dir" apply -input=false plan
