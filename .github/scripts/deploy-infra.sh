#!/usr/bin/env bash
# Deploys the `infra` stack after a merge: review first (errors abort), then `cdktf deploy infra`.
# Runs in the protected `infra` environment with Workload Identity Federation credentials and STATE_BUCKET set.
set -euo pipefail
: "${STATE_BUCKET:?deploying needs STATE_BUCKET (remote state); refusing to deploy with local state}"
npm run --silent review -- --out review-report.md --quiet
cat review-report.md >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
npx cdktf deploy infra --auto-approve --skip-synth
