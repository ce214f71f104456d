# Sourced by scripts/rehearse-cpu-install.sh and python/lock.sh: finds Python 3.12 (MaxText 0.2.4 needs >=3.12, its image
# uses python:3.12-slim-bookworm) and a pinned uv in the ignored folder .rehearse/.
REHEARSE_DIR="${REHEARSE_DIR:-$PWD/.rehearse}"
UV_VERSION=0.13.10
export UV_PYTHON_DOWNLOADS=never UV_CACHE_DIR="$REHEARSE_DIR/uv-cache"
PY312="${REHEARSE_PYTHON:-}"
if [ -z "$PY312" ]; then
  for c in python3.12 /root/.pyenv/versions/3.12*/bin/python3.12 /usr/bin/python3.12; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      PY312="$(command -v "$c")"; break
    fi
  done
fi
if [ -z "$PY312" ]; then
  echo "rehearse:cpu needs Python 3.12 (MaxText 0.2.4 requires >=3.12): install it, or set REHEARSE_PYTHON to one" >&2
  exit 2
fi
UV="$REHEARSE_DIR/uv-$UV_VERSION/bin/uv"
if [ ! -x "$UV" ]; then
  "$PY312" -m venv "$REHEARSE_DIR/uv-$UV_VERSION"
  "$REHEARSE_DIR/uv-$UV_VERSION/bin/pip" install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
