#!/usr/bin/env bash
# Install everything the test suite needs and run all of it (unit, AppTest and browser tests).
# Debian's chromium is installed with apt when missing (the browser tests drive it with Playwright;
# Playwright's own browser download is never used).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests..."
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
exec python3 -m pytest -q "$@"
