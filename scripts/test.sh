#!/usr/bin/env bash
# Install everything the test suite needs and run all of it (unit, AppTest and browser tests).
# Debian's chromium is installed with apt when missing (the browser tests drive it with Playwright;
# Playwright's own browser download is never used).
set -euo pipefail
cd "$(dirname "$0")/.."

# The app itself needs none of these. chromium: the browser tests; fonts-noto-cjk: screenshots show
# the Chinese demo questions; graphviz: only for the tests of the system-`dot` layout path (the app
# lays its graph out with graphviz-pure from requirements.txt). No emoji font: the pages use none,
# so the screenshots show what a machine without one shows. postgresql: the shared-history tests start a
# throw-away cluster with initdb/pg_ctl (tests/support/postgres.py); only its binaries are needed.
APT_PACKAGES=(chromium fonts-noto-cjk graphviz)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages for the browser tests: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Debian keeps the PostgreSQL server programs out of PATH (/usr/lib/postgresql/<version>/bin).
if ! command -v initdb >/dev/null 2>&1; then
  for bin in /usr/lib/postgresql/*/bin; do [ -x "$bin/initdb" ] && PATH="$bin:$PATH"; done
  export PATH
fi

python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
echo "ruff: lint and import order (pyproject.toml)"
python3 -m ruff check .
echo "mypy: types of rag/ and rag_debugger/, with the pydantic plugin (pyproject.toml; cached in .mypy_cache)"
python3 -m mypy
echo "real-model lane: llama.cpp's server and SmolLM2 in .cache/real-model/ (the engine is built once, then cached)"
bash scripts/real_model.sh >/dev/null
exec python3 -m pytest -q -n 2 --dist loadgroup "$@"
