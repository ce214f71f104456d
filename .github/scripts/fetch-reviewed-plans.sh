#!/usr/bin/env bash
# Downloads the saved plans a merged pull request was reviewed on, for the deploy after the merge. Accepted only:
#   - the pull request: merged, into BASE_BRANCH (default main) of REPO, with merge_commit_sha == COMMIT (the pushed
#     commit is that merge, not a later or an earlier one);
#   - the run: of the workflow file .github/workflows/plan-review.yml of REPO (its workflow id and path), event
#     pull_request, at the pull request's head commit, head branch and head repository (REPO itself: a fork's run has
#     no plan identity), completed and not cancelled. Never matched on the run's `pull_requests`: GitHub's REST
#     description of a workflow run (github/rest-api-description, descriptions/api.github.com/api.github.com.json,
#     components.schemas.workflow-run.pull_requests) says it holds "Pull requests that are open with a `head_sha` or
#     `head_branch` that matches the workflow run", so it is empty once the pull request is merged (con/tinuous#28);
#   - its plan job, in the run's latest attempt (REST `runs/{id}/jobs`, `filter=latest` by default), ran: a skipped
#     plan job (the tests failed) or a cancelled one made no plan to apply;
#   - that run's `plans` artifact, which must hold stacks.txt and pull-request.txt (written by plan-stacks.sh: the
#     pull request's number and base branch, so a run of another pull request with the same head is never taken).
# Candidates are tried newest first. Refuses (exit 1) otherwise: nothing reviewed, nothing to apply. Says which run it
# used (and writes it to the job summary).
# Usage: GH_TOKEN=... REPO=owner/name COMMIT=<merged sha> [PR_NUMBER=<n>] [BASE_BRANCH=main] \
#        .github/scripts/fetch-reviewed-plans.sh <dir>
set -euo pipefail
dir="${1:?directory for the reviewed plans}"
repo="${REPO:?owner/name}"
commit="${COMMIT:?the merged commit}"
base="${BASE_BRANCH:-main}"
workflow_path=".github/workflows/plan-review.yml"
fail() { echo "::error::$*"; exit 1; }

pr="${PR_NUMBER:-}"
if [ -z "$pr" ]; then
  pr=$(gh api "repos/${repo}/commits/${commit}/pulls" \
    --jq "[.[] | select(.merged_at != null and .merge_commit_sha == \"${commit}\")] | first | .number // empty")
fi
[ -n "$pr" ] || fail "commit ${commit} is not the merge of a pull request: there is no reviewed plan to apply (merge through a pull request, or set PR_NUMBER)"
pull=$(gh api "repos/${repo}/pulls/${pr}" --jq '[.merged, .merge_commit_sha, .base.ref, .base.repo.full_name, .head.sha, .head.ref, .head.repo.full_name] | map(tostring) | join(" ")')
read -r merged merge_sha base_ref base_repo head head_ref head_repo <<<"$pull"
[ "$merged" = "true" ] || fail "pull request #${pr} is not merged: nothing reviewed to apply"
[ "$merge_sha" = "$commit" ] || fail "pull request #${pr} merged as ${merge_sha}, not as ${commit}: the plans it reviewed are not of this commit"
[ "$base_ref" = "$base" ] && [ "$base_repo" = "$repo" ] || fail "pull request #${pr} merged into ${base_repo}:${base_ref}, not ${repo}:${base}"
[ "$head_repo" = "$repo" ] || fail "pull request #${pr} came from ${head_repo}, not ${repo}: a fork's run has no plan identity, so nothing was planned"

workflow_id=$(gh api "repos/${repo}/actions/workflows/plan-review.yml" --jq '.id')
[ -n "$workflow_id" ] || fail "no workflow ${workflow_path} in ${repo}"
run_filter="[.workflow_runs[]
  | select(.workflow_id == ${workflow_id} and .path == \"${workflow_path}\" and .event == \"pull_request\"
      and .head_sha == \"${head}\" and .head_branch == \"${head_ref}\" and .repository.full_name == \"${repo}\"
      and .head_repository.full_name == \"${repo}\" and .status == \"completed\" and .conclusion != \"cancelled\")]
  | sort_by(.created_at) | reverse | .[:10][] | \"\\(.id) \\(.html_url)\""
found=$(gh api "repos/${repo}/actions/workflows/${workflow_id}/runs?event=pull_request&head_sha=${head}&per_page=100" --jq "$run_filter")
[ -n "$found" ] || fail "no completed plan-review run (${workflow_path} of ${repo}) of pull request #${pr} at ${head}: its plans were never reviewed"
refused=()
while read -r run url; do
  [ -n "$run" ] || continue
  plan_job=$(gh api "repos/${repo}/actions/runs/${run}/jobs" --jq '[.jobs[] | select(.name == "plan")] | first | .conclusion // "missing"')
  case "$plan_job" in
    success|failure) ;;
    *) refused+=("run ${run}: its plan job is ${plan_job:-missing} (skipped when the tests failed): no plan was made"); continue ;;
  esac
  rm -rf "$dir"
  if ! gh run download "$run" -R "$repo" -n plans -D "$dir"; then
    refused+=("run ${run}: no plans artifact (no plan identity, or it expired)"); continue
  fi
  [ -f "${dir}/stacks.txt" ] || { refused+=("run ${run}: the plans artifact has no stacks.txt (not written by plan-stacks.sh)"); continue; }
  read -r art_pr art_base < <(head -c 200 "${dir}/pull-request.txt" 2>/dev/null || true) || true
  [ "${art_pr:-}" = "$pr" ] && [ "${art_base:-}" = "$base" ] || { refused+=("run ${run}: its plans are of pull request ${art_pr:-?} into ${art_base:-?}, not #${pr} into ${base}"); continue; }
  used="reviewed plans of pull request #${pr} from plan-review run ${run} (${url:-no url}), head ${head}, merged as ${commit}, in ${dir}"
  echo "$used"
  echo "$used" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
  exit 0
done <<<"$found"
rm -rf "$dir"
printf '%s\n' "${refused[@]}" | sed 's/^/  /' >&2
fail "no plan-review run of pull request #${pr} at ${head} has plans to apply: $(printf '%s; ' "${refused[@]}")"
