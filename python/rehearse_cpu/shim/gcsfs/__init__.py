"""rehearse:cpu stand-in for gcsfs (the steps' `gcsfs.GCSFileSystem()` calls): the bucket is a local folder,
REHEARSE_CPU_GCS/<bucket>/... . Only on the CPU rehearsal's PYTHONPATH; printed as a substitution."""
import os

from fsspec.implementations.local import LocalFileSystem

__version__ = "rehearse-cpu-stand-in"


class GCSFileSystem(LocalFileSystem):
  protocol = ("gs", "gcs")

  def __init__(self, *args, **kwargs):
    super().__init__(auto_mkdir=True)

  def _map(self, path):
    path = str(path)
    for p in ("gs://", "gcs://"):
      if path.startswith(p):
        path = path[len(p):]
    root = os.environ["REHEARSE_CPU_GCS"]
    return path if path.startswith(root) else os.path.join(root, path.lstrip("/"))

  def _strip_protocol(self, path):  # noqa: D401 (fsspec's hook)
    if isinstance(path, (list, tuple)):
      return [self._strip_protocol(p) for p in path]
    return super()._strip_protocol(self._map(path))
