"""Arize Phoenix from PyPI on loopback, for tests that read traces back through Phoenix's own REST API.

Why a venv of its own: Phoenix pulls ~200 packages and downgrades some the app pins. The venv is made on
first use (about a minute) in a folder outside the repo, kept between runs; a clean CI machine builds it
itself. If it cannot be built or Phoenix does not start, `PhoenixError` says why: the test fails with
that reason, never skips. Phoenix is started quiet and local (no telemetry, no external resources).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

PHOENIX_VERSION = "20.26.1"
VENV = Path(os.environ.get("RAG_PHOENIX_VENV") or Path.home() / ".cache" / "rag-debugger" / "phoenix-venv")


class PhoenixError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def phoenix_python() -> Path:
    """The venv's interpreter, with Phoenix installed (built on first use)."""
    python = VENV / "bin" / "python"
    marker = VENV / f".phoenix-{PHOENIX_VERSION}"
    if marker.exists() and python.exists():
        return python
    VENV.parent.mkdir(parents=True, exist_ok=True)
    steps = [[sys.executable, "-m", "venv", "--clear", str(VENV)],
             [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"arize-phoenix=={PHOENIX_VERSION}"]]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            raise PhoenixError(f"could not build the Phoenix venv ({' '.join(cmd[:4])}...): "
                               f"{(done.stderr or done.stdout)[-1500:]}")
    marker.write_text(PHOENIX_VERSION)
    return python


@dataclass
class Phoenix:
    url: str
    otlp_http: str
    otlp_grpc: str

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    def spans(self, project: str) -> list[dict]:
        out, cursor = [], None
        while True:
            query = "?limit=1000" + (f"&cursor={cursor}" if cursor else "")
            try:
                page = self.get(f"/v1/projects/{project}/spans{query}")
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return []
                raise
            out += page.get("data") or []
            cursor = page.get("next_cursor")
            if not cursor:
                return out


@contextmanager
def running_phoenix() -> Iterator[Phoenix]:
    python = phoenix_python()
    port, grpc = _free_port(), _free_port()
    with tempfile.TemporaryDirectory(prefix="phoenix-") as work:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))},
               "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(grpc),
               "PHOENIX_WORKING_DIR": work, "PHOENIX_TELEMETRY_ENABLED": "false",
               "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false"}
        log = open(Path(work) / "phoenix.log", "w+")
        proc = subprocess.Popen([str(python), "-m", "phoenix.server.main", "serve"], env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise PhoenixError(f"Phoenix exited with {proc.returncode}: {log.read()[-2000:]}")
                try:
                    with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise PhoenixError("Phoenix did not answer /healthz within 120 s")
                time.sleep(0.5)
            yield Phoenix(url=url, otlp_http=url, otlp_grpc=f"http://127.0.0.1:{grpc}")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()


if __name__ == "__main__":  # build the venv ahead of a test run
    print(phoenix_python())
