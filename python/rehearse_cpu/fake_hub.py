"""A loopback stand-in for the Hugging Face Hub (HF_ENDPOINT), serving the locally made tiny model and data under the
pipeline's own repository ids, so the steps' real huggingface_hub / datasets / transformers calls run unchanged.

Shapes read in huggingface/huggingface_hub v1.26.0 (the MaxText image's) src/huggingface_hub/hf_api.py
(`repo_info` -> GET {endpoint}/api/{models|datasets}/{repo}/revision/{rev}: `sha`, `siblings[].rfilename`;
`list_repo_tree` -> GET .../tree/{rev}[/{path}]?recursive=: a list of {type, path, size, oid};
`get_paths_info` -> POST .../paths-info/{rev} with form `paths`) and file_download.py (`hf_hub_download` HEADs
{endpoint}/{repo}/resolve/{rev}/{file}, datasets under /datasets/: `X-Repo-Commit`, `ETag`, `Content-Length`).
"""
import hashlib
import json
import os
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHA = "0" * 39 + "1"  # the fixed commit every stand-in repository answers with
API = re.compile(r"^/api/(models|datasets)/([^/]+/[^/]+?)(?:/(revision|tree|paths-info)/([^/?]+)(/[^?]*)?)?$")
RESOLVE = re.compile(r"^/(datasets/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")


class Hub:
  """repos: {("models"|"datasets", repo_id): local folder}."""

  def __init__(self, repos):
    self.repos = repos
    self.asked = []
    handler = self._handler()
    self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
    threading.Thread(target=self.server.serve_forever, daemon=True).start()

  def files(self, kind, repo):
    root = self.repos.get((kind, repo))
    if root is None:
      return None
    out = []
    for d, _, names in os.walk(root):
      for n in names:
        full = os.path.join(d, n)
        out.append(os.path.relpath(full, root))
    return root, sorted(out)

  def _handler(self):
    hub = self

    class H(BaseHTTPRequestHandler):
      def log_message(self, *a):
        pass

      def _json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Repo-Commit", SHA)
        self.end_headers()
        if self.command != "HEAD":
          self.wfile.write(data)

      def _missing(self, what):
        data = json.dumps({"error": f"{what} not found (rehearse:cpu stand-in Hub serves only the pipeline's repos)"}).encode()
        self.send_response(404)
        self.send_header("X-Error-Code", "RepoNotFound" if "repo" in what else "EntryNotFound")
        self.send_header("X-Error-Message", what)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
          self.wfile.write(data)

      def _entry(self, root, f):
        full = os.path.join(root, f)
        return {"type": "file", "path": f, "size": os.path.getsize(full), "oid": hashlib.sha1(f.encode()).hexdigest()}

      def _api(self, m, form=None):
        kind, repo, verb, _rev, sub = m.groups()
        hub.asked.append(f"{self.command} {self.path}")
        listed = hub.files(kind, repo)
        if listed is None:
          return self._missing(f"repo {kind}/{repo}")
        root, files = listed
        if verb in ("revision", None):
          body = {"id": repo, "sha": SHA, "private": False, "gated": False, "disabled": False,
                  "siblings": [{"rfilename": f} for f in files], "lastModified": "2026-01-01T00:00:00.000Z"}
          if kind == "datasets" and os.path.exists(os.path.join(root, "card.json")):
            body["cardData"] = json.load(open(os.path.join(root, "card.json")))
          return self._json(200, body)
        if verb == "tree":
          prefix = (sub or "").strip("/")
          query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
          recursive = query.get("recursive", ["false"])[0].lower() == "true"
          out, dirs = [], set()
          for f in files:
            if prefix and not f.startswith(prefix + "/"):
              continue
            rest = f[len(prefix) + 1:] if prefix else f
            if "/" in rest and not recursive:
              d = (prefix + "/" if prefix else "") + rest.split("/")[0]
              if d not in dirs:
                dirs.add(d)
                out.append({"type": "directory", "path": d, "oid": hashlib.sha1(d.encode()).hexdigest()})
              continue
            if "/" in rest and recursive:
              parts = rest.split("/")[:-1]
              for i in range(len(parts)):
                d = (prefix + "/" if prefix else "") + "/".join(parts[: i + 1])
                if d not in dirs:
                  dirs.add(d)
                  out.append({"type": "directory", "path": d, "oid": hashlib.sha1(d.encode()).hexdigest()})
            out.append(self._entry(root, f))
          if prefix and not out:
            return self._missing(f"path {prefix}")
          return self._json(200, out)
        paths = (form or {}).get("paths", [])
        out = []
        for p in paths:
          if p in files:
            out.append(self._entry(root, p))
          elif any(f.startswith(p.rstrip("/") + "/") for f in files):
            out.append({"type": "directory", "path": p, "oid": hashlib.sha1(p.encode()).hexdigest()})
        return self._json(200, out)

      def _resolve(self, m):
        ds, repo, _rev, f = m.groups()
        hub.asked.append(f"{self.command} {self.path}")
        f = urllib.parse.unquote(f.split("?")[0])
        listed = hub.files("datasets" if ds else "models", repo)
        if listed is None:
          return self._missing(f"repo {repo}")
        root, files = listed
        if f not in files:
          return self._missing(f"entry {f}")
        data = open(os.path.join(root, f), "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", '"' + hashlib.sha256(data).hexdigest() + '"')
        self.send_header("X-Repo-Commit", SHA)
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if self.command != "HEAD":
          self.wfile.write(data)

      def _route(self, form=None):
        path = urllib.parse.urlparse(self.path).path
        m = API.match(path)
        if m:
          return self._api(m, form)
        m = RESOLVE.match(path)
        if m:
          return self._resolve(m)
        hub.asked.append(f"{self.command} {self.path} (unserved)")
        return self._missing(f"endpoint {path}")

      def do_GET(self):
        self._route()

      def do_HEAD(self):
        self._route()

      def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode()
        if "json" in (self.headers.get("Content-Type") or ""):
          form = json.loads(raw or "{}")
          form = {"paths": form.get("paths", [])}
        else:
          form = urllib.parse.parse_qs(raw)
        self._route(form)

    return H

  def close(self):
    self.server.shutdown()
