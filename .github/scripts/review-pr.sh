#!/usr/bin/env bash
# The plan review of a pull request: `npm run review` against the base branch, plus exactly the saved plans in plans/
# (the plan job's artifact, plan-stacks.sh): every <stack>.json as --plan, every <stack>.failed as
# --plan-failed <stack>=<step>, every stack of plans/stacks.txt as --expect-plan (an error when it has neither),
# plans/plan-job.failed as --plan-job-failed <step>. PLAN_JOB_RESULT (the plan job's `needs.plan.result`) catches a
# plan job that failed without leaving a marker (the upload, the runner): `failure` or `cancelled` is an error too,
# and `skipped` (the tests failed) is one: nothing was planned.
# Always leaves review-report.md for the comment step; records the review's exit code in the step output `exit_code`
# instead of failing, so the comment is posted first.
# PLANNED (the plans step's conclusion) says plans were made: then a missing artifact is an error, not a fork's review.
# Usage: BASE_REF=main [PLAN_JOB_RESULT=success] [PLANNED=success] .github/scripts/review-pr.sh
set -uo pipefail
base="${BASE_REF:?set BASE_REF to the pull request base branch}"
args=(--base "origin/${base}" --out review-report.md --quiet)
# A marker's first line, cut to 80 characters of [A-Za-z0-9 ._()/-]: it becomes an argument.
step_of() { head -c 200 "$1" 2>/dev/null | head -n1 | tr -cd 'A-Za-z0-9 ._()/-' | cut -c1-80; }
markers=0
if [ -d plans ]; then
  for plan in plans/*.json; do
    [ -e "$plan" ] || continue
    args+=(--plan "$(basename "$plan" .json)=${plan}")
  done
  for failed in plans/*.failed; do
    [ -e "$failed" ] || continue
    name="$(basename "$failed" .failed)"
    step="$(step_of "$failed")"
    markers=1
    if [ "$name" = "plan-job" ]; then args+=(--plan-job-failed "${step:-unknown step}")
    else args+=(--plan-failed "${name}=${step:-unknown step}"); fi
  done
  if [ -f plans/stacks.txt ]; then
    while IFS= read -r stack; do
      [ -n "$stack" ] && args+=(--expect-plan "$stack")
    done < <(head -c 65536 plans/stacks.txt)
  fi
fi
# The plans step ran (PLANNED, the plan job's output) but no artifact came: the plans were not reviewed.
case "${PLANNED:-}" in
  success|failure) [ -f plans/stacks.txt ] || [ -f plans/plan-job.failed ] || { args+=(--plan-job-failed "downloading the plans artifact (the plans step ran: ${PLANNED})"); markers=1; } ;;
esac
case "${PLAN_JOB_RESULT:-}" in
  failure|cancelled) [ "$markers" = 1 ] || args+=(--plan-job-failed "the plan job (${PLAN_JOB_RESULT}, no marker: see its log)") ;;
  # Skipped: the tests failed, so nothing was planned. Not a fork's offline review (there the plan job succeeds with
  # its plans step skipped): the review says no plan was made, and fails.
  skipped) args+=(--plan-job-failed "the plan job (skipped: the tests failed, nothing was planned)") ;;
esac
npm run --silent review -- "${args[@]}"
code=$?
if [ ! -s review-report.md ]; then
  printf '<!-- tpu-post-training:plan-review -->\n# Plan review: the review tool failed (exit %s)\n\nSee the workflow log.\n' "$code" > review-report.md
fi
echo "exit_code=${code}" >> "${GITHUB_OUTPUT:-/dev/null}"
cat review-report.md >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
exit 0
