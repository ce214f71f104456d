#!/usr/bin/env bash
# npm run rehearse:cpu:install — installs python/maxtext.lock.txt and python/eval.lock.txt (exact pins, hashes
# required) into .rehearse/env-<hash of the locks>/{maxtext,eval}. A folder that already holds a finished install of
# the same locks is kept, so a re-run takes a second; a changed lock gets a new folder.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/rehearse-cpu-env.sh
key="$(cat python/maxtext.lock.txt python/eval.lock.txt | sha256sum | cut -c1-16)"
dest="$REHEARSE_DIR/env-$key"
if [ -f "$dest/installed" ]; then echo "rehearse:cpu: $dest already holds the locked packages"; exit 0; fi
start=$SECONDS
rm -rf "$dest"
for env in maxtext eval; do
  "$UV" venv --quiet --python "$PY312" "$dest/$env"
  VIRTUAL_ENV="$dest/$env" "$UV" pip sync --quiet --require-hashes "python/$env.lock.txt"
done
touch "$dest/installed"
ln -sfn "env-$key" "$REHEARSE_DIR/current"
echo "rehearse:cpu: installed the locks into $dest in $((SECONDS - start)) s"
