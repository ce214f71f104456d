#!/usr/bin/env bash
# The plan review of a pull request: `npm run review` against the base branch, plus exactly the saved plans in plans/
# (the plan job's artifact, plan-stacks.sh): every <stack>.json as --plan, every <stack>.failed as --plan-failed.
# Always leaves review-report.md for the comment step; records the review's exit code in the step output `exit_code`
# instead of failing, so the comment is posted first.
# Usage: BASE_REF=main .github/scripts/review-pr.sh
set -uo pipefail
base="${BASE_REF:?set BASE_REF to the pull request base branch}"
args=(--base "origin/${base}" --out review-report.md --quiet)
if [ -d plans ]; then
  for plan in plans/*.json; do
    [ -e "$plan" ] || continue
    args+=(--plan "$(basename "$plan" .json)=${plan}")
  done
  for failed in plans/*.failed; do
    [ -e "$failed" ] || continue
    args+=(--plan-failed "$(basename "$failed" .failed)")
  done
fi
npm run --silent review -- "${args[@]}"
code=$?
if [ ! -s review-report.md ]; then
  printf '<!-- tpu-post-training:plan-review -->\n# Plan review: the review tool failed (exit %s)\n\nSee the workflow log.\n' "$code" > review-report.md
fi
echo "exit_code=${code}" >> "${GITHUB_OUTPUT:-/dev/null}"
cat review-report.md >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
exit 0
