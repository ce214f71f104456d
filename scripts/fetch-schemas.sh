#!/usr/bin/env bash
# Downloads the upstream CRD schemas the CRD suite validates against (__tests__/crd-schemas.test.ts) from the
# upstream repositories' raw files at the tags the project pins, and checks each against the committed SHA-256 list
# (scripts/crd-schemas.sha256). The files themselves stay out of the repository.
#
# Usage: npm run fetch-schemas -- <dir>     then: CRD_SCHEMAS_DIR=<dir> npm test
# Fails (exit 1) naming every file that could not be downloaded or whose SHA-256 differs; a file that fails is
# removed from <dir>, so the suite never reads a stale or tampered copy.
set -euo pipefail

dir="${1:-}"
if [ -z "$dir" ]; then
  echo "fetch-schemas: usage: npm run fetch-schemas -- <dir>" >&2
  exit 2
fi
sums="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/crd-schemas.sha256"

# <file> <repository> <tag> <folder>: the controllers' versions the infra stack installs (config/example.json
# controllers; __tests__/ci/fetch-schemas.test.ts keeps them equal) and the Secret Manager add-on's driver.
sources=(
  "jobset.x-k8s.io_jobsets.yaml kubernetes-sigs/jobset v0.12.0 config/components/crd/bases"
  "kueue.x-k8s.io_resourceflavors.yaml kubernetes-sigs/kueue v0.19.2 config/components/crd/bases"
  "kueue.x-k8s.io_clusterqueues.yaml kubernetes-sigs/kueue v0.19.2 config/components/crd/bases"
  "kueue.x-k8s.io_localqueues.yaml kubernetes-sigs/kueue v0.19.2 config/components/crd/bases"
  "secrets-store.csi.x-k8s.io_secretproviderclasses.yaml kubernetes-sigs/secrets-store-csi-driver v1.6.0 deploy"
  "argoproj.io_workflows.yaml argoproj/argo-workflows v4.1.2 manifests/base/crds/full"
)

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

mkdir -p "$dir"
failed=()
for entry in "${sources[@]}"; do
  read -r file repo tag folder <<<"$entry"
  url="https://raw.githubusercontent.com/${repo}/${tag}/${folder}/${file}"
  target="${dir}/${file}"
  rm -f "$target" "${target}.part"
  expected="$(awk -v f="$file" '$2 == f { print $1 }' "$sums")"
  if [ -z "$expected" ]; then
    echo "fetch-schemas: ${file}: no SHA-256 for it in ${sums}" >&2
    failed+=("$file")
    continue
  fi
  if ! curl --fail --silent --show-error --location --retry 3 --proto '=https' --output "${target}.part" "$url"; then
    echo "fetch-schemas: ${file}: download failed from ${url}" >&2
    rm -f "${target}.part"
    failed+=("$file")
    continue
  fi
  actual="$(sha256 "${target}.part")"
  if [ "$actual" != "$expected" ]; then
    echo "fetch-schemas: ${file}: SHA-256 mismatch: got ${actual}, expected ${expected} (from ${url})" >&2
    rm -f "${target}.part"
    failed+=("$file")
    continue
  fi
  mv "${target}.part" "$target"
  echo "fetch-schemas: ${file}: ok (${repo} ${tag})"
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fetch-schemas: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fetch-schemas: ${#sources[@]} CRD schemas in ${dir}; run the suite with CRD_SCHEMAS_DIR=${dir}"
