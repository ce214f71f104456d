#!/usr/bin/env bash
# Rewrites python/maxtext.lock.txt and python/eval.lock.txt (exact pins with hashes) from maxtext.in and eval.in.
# Needs PyPI. Run after changing an .in file; commit the locks with it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/rehearse-cpu-env.sh
for env in maxtext eval; do
  "$UV" pip compile "python/$env.in" --python "$PY312" --python-platform x86_64-manylinux_2_28 \
    --generate-hashes --no-header --annotation-style line -o "python/$env.lock.txt"
done
