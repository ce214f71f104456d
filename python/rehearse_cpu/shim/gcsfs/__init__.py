"""rehearse:cpu stand-in for gcsfs (the steps' `gcsfs.GCSFileSystem()` calls): the bucket is a local folder,
REHEARSE_CPU_GCS/<bucket>/... . Only on the CPU rehearsal's PYTHONPATH; printed as a substitution."""
import os

from fsspec.implementations.local import LocalFileSystem

__version__ = "rehearse-cpu-stand-in"


def _map(path):
  if isinstance(path, (list, tuple)):
    return type(path)(_map(p) for p in path)
  path = str(path)
  for p in ("gs://", "gcs://"):
    if path.startswith(p):
      path = path[len(p):]
  root = os.environ["REHEARSE_CPU_GCS"]
  return path if path.startswith(root) else os.path.join(root, path.lstrip("/"))


class GCSFileSystem:
  """Every method of fsspec's LocalFileSystem, its first argument (a bucket path) mapped to the local folder."""

  def __init__(self, *args, **kwargs):
    self._fs = LocalFileSystem(auto_mkdir=True)

  def pipe(self, path, value=None, **kw):
    os.makedirs(os.path.dirname(_map(path)), exist_ok=True)
    return self._fs.pipe(_map(path), value, **kw)

  def __getattr__(self, name):
    attr = getattr(self._fs, name)
    if not callable(attr):
      return attr

    def call(*args, **kw):
      if args:
        args = (_map(args[0]),) + args[1:]
      return attr(*args, **kw)
    return call
