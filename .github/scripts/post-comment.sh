#!/usr/bin/env bash
# Posts a report as ONE sticky pull-request comment: finds the comment carrying the review's hidden marker and
# updates it, or creates it. Uses the GitHub CLI (preinstalled on hosted runners) with GH_TOKEN.
# A fork's read-only token cannot comment: then the report stays in the job summary and this exits 0.
# Usage: GH_TOKEN=... REPO=owner/name PR_NUMBER=12 .github/scripts/post-comment.sh review-report.md
set -euo pipefail
file="${1:?report file}"
repo="${REPO:?owner/name}"
pr="${PR_NUMBER:?pull request number}"
marker='<!-- tpu-post-training:plan-review -->'

body=$(cat "$file")
# GitHub rejects comment bodies over 65536 characters.
if [ "${#body}" -gt 65000 ]; then
  body="${body:0:64000}

_(report truncated; the full report is in the workflow's job summary and artifact)_"
fi
[ "${body:0:${#marker}}" = "$marker" ] || body="${marker}
${body}"

# Only this workflow's own comment: written by the workflow token's user (github-actions[bot]) and starting with the
# marker. Anyone can paste the marker into a comment of their own; that one is never edited.
author="${COMMENT_AUTHOR:-github-actions[bot]}"
existing=$(gh api --paginate "repos/${repo}/issues/${pr}/comments" \
  --jq "[.[] | select(.user.login == \"${author}\" and .user.type == \"Bot\" and (.body | startswith(\"${marker}\"))) | .id] | first // empty" 2>/dev/null | head -n1 || true)
payload=$(jq -n --arg body "$body" '{body: $body}')
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/${repo}/issues/comments/${existing}" --input - <<<"$payload" >/dev/null \
    || { echo "::warning::could not update comment ${existing} (read-only token?)"; exit 0; }
  echo "updated comment ${existing}"
else
  gh api --method POST "repos/${repo}/issues/${pr}/comments" --input - <<<"$payload" >/dev/null \
    || { echo "::warning::could not comment on PR ${pr} (read-only token on a fork?); see the job summary"; exit 0; }
  echo "created review comment"
fi
