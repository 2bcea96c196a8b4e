#!/usr/bin/env bash
# Installs what the tests need (Python venv, npm packages, React builds) and runs every
# test: the Python lint (ruff) and type (mypy) checks, the TypeScript type check, ESLint's React
# hooks rules, vitest for the React package, then pytest (local service over HTTP, framework test
# clients, and Chromium browser tests).
#
# Usage: bash scripts/test.sh [--no-browser] [pytest args...]
#   --no-browser   skip the Chromium tests (tests/browser) and the builds only they need
#   pytest args    passed through, e.g. -k sign_in, tests/dev/test_teams.py, -x
#   --help, -h     print this and stop (nothing is installed or run)
#
# Installs and builds that are already current are skipped: each step keeps a stamp (a hash of
# its inputs) next to its output (scripts/steps.sh, shared with scripts/run_example.sh), so a
# second run, or a run after run_example.sh, starts testing within seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

for arg in "$@"; do
  if [ "$arg" = "--help" ] || [ "$arg" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
  fi
done

browser=1
args=()
for arg in "$@"; do
  if [ "$arg" = "--no-browser" ]; then browser=0; else args+=("$arg"); fi
done

if [ "$browser" = 1 ] && ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "Chromium is required for the browser tests: apt-get install -y chromium (or pass --no-browser)" >&2
  exit 1
fi

# shellcheck source=scripts/steps.sh
. scripts/steps.sh

python_env test

# Python lint and types (settings in pyproject.toml [tool.ruff], [tool.mypy])
.venv/bin/ruff check .
.venv/bin/python -m mypy

# JavaScript: install, type-check, build the package (and the example app for the browser
# tests), run vitest
(
  cd js
  js_install
  npm run typecheck
  npm run lint  # React's rules of hooks and effects' dependencies, the example app's too (js/eslint.config.mjs)
  js_build
  # Size budgets of what an app bundles (a size, not a time: it belongs in CI)
  node scripts/bundle-size.mjs --check
  if [ "$browser" = 1 ]; then
    js_build_example
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
