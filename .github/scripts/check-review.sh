#!/usr/bin/env bash
# Fails the job when the review found errors (after the comment was posted), or when the tool itself failed.
# Usage: REVIEW_EXIT_CODE=<code from review-pr.sh> .github/scripts/check-review.sh
set -euo pipefail
code="${REVIEW_EXIT_CODE:-2}"
case "$code" in
  0) echo "plan review: no errors" ;;
  1) echo "::error::the plan review found errors; see the pull request comment"; exit 1 ;;
  *) echo "::error::the plan review tool failed (exit ${code}); see the log"; exit "$code" ;;
esac
