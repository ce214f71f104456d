#!/usr/bin/env bash
# Downloads the saved plans a merged pull request was reviewed on, for the deploy after the merge: the pull request
# merged as COMMIT, the newest completed (not cancelled) plan-review run on its head commit, that run's `plans` artifact.
# Refuses (exit 1) when there is none: nothing reviewed, nothing to apply.
# Usage: GH_TOKEN=... REPO=owner/name COMMIT=<merged sha> [PR_NUMBER=<n>] .github/scripts/fetch-reviewed-plans.sh <dir>
set -euo pipefail
dir="${1:?directory for the reviewed plans}"
repo="${REPO:?owner/name}"
commit="${COMMIT:?the merged commit}"

pr="${PR_NUMBER:-}"
if [ -z "$pr" ]; then
  pr=$(gh api "repos/${repo}/commits/${commit}/pulls" --jq '[.[] | select(.merged_at != null)] | first | .number // empty')
fi
if [ -z "$pr" ]; then
  echo "::error::commit ${commit} is not the merge of a pull request: there is no reviewed plan to apply (merge through a pull request, or set PR_NUMBER)"
  exit 1
fi
head=$(gh api "repos/${repo}/pulls/${pr}" --jq '.head.sha')
run=$(gh run list -R "$repo" --workflow plan-review.yml --commit "$head" --event pull_request --limit 20 \
  --json databaseId,status,conclusion --jq '[.[] | select(.status == "completed" and .conclusion != "cancelled")] | first | .databaseId // empty')
if [ -z "$run" ]; then
  echo "::error::no completed plan-review run for pull request #${pr} at ${head}: its plans were never reviewed"
  exit 1
fi
rm -rf "$dir"
if ! gh run download "$run" -R "$repo" -n plans -D "$dir"; then
  echo "::error::plan-review run ${run} of pull request #${pr} has no plans artifact (no plan identity, or the artifact expired): nothing reviewed to apply"
  exit 1
fi
echo "reviewed plans of pull request #${pr} (run ${run}, head ${head}) in ${dir}"
