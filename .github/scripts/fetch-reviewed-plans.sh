#!/usr/bin/env bash
# Downloads the saved plans a merged pull request was reviewed on, for the deploy after the merge. Accepted only:
#   - the pull request: merged, into BASE_BRANCH (default main) of REPO, with merge_commit_sha == COMMIT (the pushed
#     commit is that merge, not a later or an earlier one);
#   - the run: of the workflow file .github/workflows/plan-review.yml of REPO (its workflow id, read from REPO, and
#     its path), event pull_request, in REPO, whose pull_requests list holds THIS pull request, at the pull request's
#     head commit; the newest such run that completed (not cancelled). A run of another pull request, or of a fork, or
#     of another workflow file that calls itself plan-review, at the same commit is never taken (GitHub lists those
#     too for the commit);
#   - that run's `plans` artifact, which must hold stacks.txt (written by plan-stacks.sh before it plans anything).
# Refuses (exit 1) otherwise: nothing reviewed, nothing to apply. Says which run it used (and writes it to the job
# summary).
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
pull=$(gh api "repos/${repo}/pulls/${pr}" --jq '[.merged, .merge_commit_sha, .base.ref, .base.repo.full_name, .head.sha] | map(tostring) | join(" ")')
read -r merged merge_sha base_ref base_repo head <<<"$pull"
[ "$merged" = "true" ] || fail "pull request #${pr} is not merged: nothing reviewed to apply"
[ "$merge_sha" = "$commit" ] || fail "pull request #${pr} merged as ${merge_sha}, not as ${commit}: the plans it reviewed are not of this commit"
[ "$base_ref" = "$base" ] && [ "$base_repo" = "$repo" ] || fail "pull request #${pr} merged into ${base_repo}:${base_ref}, not ${repo}:${base}"

workflow_id=$(gh api "repos/${repo}/actions/workflows/plan-review.yml" --jq '.id')
[ -n "$workflow_id" ] || fail "no workflow ${workflow_path} in ${repo}"
run_filter="[.workflow_runs[]
  | select(.workflow_id == ${workflow_id} and .path == \"${workflow_path}\" and .event == \"pull_request\"
      and .head_sha == \"${head}\" and .repository.full_name == \"${repo}\" and .head_repository.full_name == \"${repo}\"
      and ([.pull_requests[]? | select(.number == ${pr} and .base.repo.name == \"${repo#*/}\")] | length > 0)
      and .status == \"completed\" and .conclusion != \"cancelled\")]
  | sort_by(.created_at) | last | select(. != null) | \"\\(.id) \\(.html_url)\""
found=$(gh api "repos/${repo}/actions/workflows/${workflow_id}/runs?event=pull_request&head_sha=${head}&per_page=100" --jq "$run_filter")
read -r run url <<<"${found:-}" || true
[ -n "${run:-}" ] || fail "no completed plan-review run (${workflow_path} of ${repo}) of pull request #${pr} at ${head}: its plans were never reviewed"
rm -rf "$dir"
gh run download "$run" -R "$repo" -n plans -D "$dir" \
  || fail "plan-review run ${run} of pull request #${pr} has no plans artifact (no plan identity, or the artifact expired): nothing reviewed to apply"
[ -f "${dir}/stacks.txt" ] || fail "the plans artifact of run ${run} has no stacks.txt: not written by plan-stacks.sh, nothing applied"
used="reviewed plans of pull request #${pr} from plan-review run ${run} (${url:-no url}), head ${head}, merged as ${commit}, in ${dir}"
echo "$used"
echo "$used" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
