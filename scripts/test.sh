#!/usr/bin/env bash
# Installs what the tests need (Python venv, npm packages, React builds) and runs every
# test: the Python (mypy) and TypeScript type checks, vitest for the React package, then pytest (local
# service over HTTP, framework test clients, and Chromium browser tests).
#
# Usage: bash scripts/test.sh [--no-browser] [pytest args...]
#   --no-browser   skip the Chromium tests (tests/browser) and the builds only they need
#   pytest args    passed through, e.g. -k sign_in, tests/dev/test_teams.py, -x
#
# Installs and builds that are already current are skipped: each step keeps a stamp (a hash of
# its inputs) next to its output, so a second run starts testing within seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

browser=1
args=()
for arg in "$@"; do
  if [ "$arg" = "--no-browser" ]; then browser=0; else args+=("$arg"); fi
done

if [ "$browser" = 1 ] && ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "Chromium is required for the browser tests: apt-get install -y chromium (or pass --no-browser)" >&2
  exit 1
fi

# The hash of the named files and folders (their paths and contents), for the stamps.
inputs_hash() {
  find "$@" -type f ! -path '*/node_modules/*' ! -path '*/dist/*' -print0 2>/dev/null \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# Runs "$@" unless the stamp file $1 holds the hash $2 and the output $3 exists; records the
# hash after success.
unless_current() {
  local stamp=$1 hash=$2 output=$3
  shift 3
  if [ -e "$output" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    return 0
  fi
  "$@"
  mkdir -p "$(dirname "$stamp")"
  echo "$hash" >"$stamp"
}

# Python
if [ ! -x .venv/bin/python ]; then
  rm -rf .venv
  python3 -m venv .venv
fi
python_install() {
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[test]"
}
unless_current .venv/.authmw-installed "$(inputs_hash pyproject.toml)-$(python3 --version)" .venv/bin/authmw python_install

# Python types (settings in pyproject.toml [tool.mypy])
.venv/bin/python -m mypy

# JavaScript: install, type-check, build the package (and the example app for the browser
# tests), run vitest
(
  cd js
  unless_current node_modules/.authmw-installed "$(inputs_hash package-lock.json)" node_modules npm ci --no-audit --no-fund
  npm run typecheck
  unless_current node_modules/.authmw-built \
    "$(inputs_hash src scripts package.json rollup.config.mjs tsconfig.build.json ../authmw/catalogue.json ../authmw/token_kinds.json ../authmw/refresh_policy.json)" dist/index.js \
    npm run build
  # Size budgets of what an app bundles (a size, not a time: it belongs in CI)
  node scripts/bundle-size.mjs --check
  if [ "$browser" = 1 ]; then
    unless_current node_modules/.authmw-example-built \
      "$(inputs_hash src ../examples/web package.json rollup.example.config.mjs tsconfig.example.json)" ../examples/web/dist \
      npm run build:example
  fi
  npm test
)

if [ "$browser" = 1 ]; then
  # The official Stack Auth SDK (2.7 and 2.8), bundled for the interoperability browser tests
  (
    cd tests/browser/official_sdk
    unless_current node_modules/.authmw-installed "$(inputs_hash package-lock.json)" node_modules npm ci --no-audit --no-fund
    unless_current node_modules/.authmw-built "$(inputs_hash entry.mjs package.json package-lock.json)" dist/official-sdk.js \
      npm run build
  )
else
  args=(--ignore=tests/browser "${args[@]}")
fi

# Python tests last, so their summary is the closing line
.venv/bin/python -m pytest "${args[@]}"
