#!/usr/bin/env bash
# Every job's first step after the checkout: CI runs only what the review read.
#   1. A committed path that .gitignore ignores fails the job, naming it (`git ls-files -ci --exclude-standard`): a
#      committed dist/constructs/identity.js is run instead of the reviewed TypeScript (tsconfig.json `incremental`
#      with its .tsbuildinfo in dist/: tsc skips what it thinks is built), a committed dist/node_modules/constructs
#      shadows the real package, a committed cdktf.out/stacks/infra/zz_override.tf.json is merged into the stack by
#      Terraform (cdktf-cli removes only orphaned stack folders, so a synth leaves it there).
#   2. The build outputs are removed (dist/, cdktf.out/, cdktf.out.*/, *.tsbuildinfo): every build and synth starts clean.
# Usage: .github/scripts/clean-checkout.sh   (in the checkout's root)
set -euo pipefail
committed="$(git ls-files -ci --exclude-standard)"
if [ -n "$committed" ]; then
  count="$(printf '%s\n' "$committed" | wc -l)"
  echo "::error::${count} committed file(s) are in paths .gitignore ignores (build outputs and synthesized stacks are never committed: they would run instead of what the review read):"
  # Names cut and stripped of control characters: they come from the pull request.
  printf '%s\n' "$committed" | head -n 20 | LC_ALL=C tr -cd 'A-Za-z0-9 ._/+@=,\n-' | cut -c1-200 | sed 's/^/  /'
  [ "$count" -le 20 ] || echo "  ... and $((count - 20)) more"
  echo "remove them: git rm -r --cached <path> and commit"
  exit 1
fi
rm -rf dist cdktf.out cdktf.out.*/
find . -path ./node_modules -prune -o -name '*.tsbuildinfo' -type f -print0 | xargs -0 rm -f
echo "checkout clean: no ignored path committed; dist/ and cdktf.out/ removed"
