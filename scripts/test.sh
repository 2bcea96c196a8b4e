#!/usr/bin/env bash
# Installs what the tests need (Python venv, npm packages, React builds) and runs every
# test: vitest for the React package, then pytest (local service over HTTP, framework test
# clients, and Chromium browser tests). Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "Chromium is required for the browser tests: apt-get install -y chromium" >&2
  exit 1
fi

# Python
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test]"

# JavaScript: install, build the package and the example app, run vitest
(
  cd js
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  npm run build
  npm run build:example
  npm test
)

# The official Stack Auth SDK (2.7 and 2.8), bundled for the interoperability browser tests
(
  cd tests/browser/official_sdk
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  npm run build
)

# Python tests last, so their summary is the closing line
.venv/bin/python -m pytest "$@"
