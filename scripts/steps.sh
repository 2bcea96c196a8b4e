# The install and build steps scripts/test.sh and scripts/run_example.sh share (sourced by both,
# from the repository's root). Each step keeps a stamp (a hash of its inputs) next to its output
# and is skipped while the stamp is current, so whichever script runs second reuses the work of
# the first.

# The hash of the named files and folders (their paths and contents), for the stamps.
inputs_hash() {
  find "$@" -type f ! -path '*/node_modules/*' ! -path '*/dist/*' -print0 2>/dev/null \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# Does the stamp file $1 hold the hash $2, and the output $3 exist?
is_current() {
  [ -e "$3" ] && [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# Runs "$@" unless the stamp file $1 holds the hash $2 and the output $3 exists; records the
# hash after success.
unless_current() {
  local stamp=$1 hash=$2 output=$3
  shift 3
  if is_current "$stamp" "$hash" "$output"; then
    return 0
  fi
  "$@"
  mkdir -p "$(dirname "$stamp")"
  echo "$hash" >"$stamp"
}

# Says what a long step is doing before it starts (its own output follows).
announce() {
  echo "== $* ==" >&2
}

# The Python virtual environment in .venv with the extras $1 (e.g. all, test) installed
# (editable); pip's own progress lines show while it works.
python_env() {
  local extras=$1
  if [ ! -x .venv/bin/python ]; then
    rm -rf .venv
    python3 -m venv .venv
  fi
  _python_install() {
    announce "Installing the Python packages ($extras; about a minute the first time)"
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    # pipefail (set by both scripts): pip's failure is the pipeline's
    .venv/bin/python -m pip install --progress-bar off -e ".[$extras]" | { grep -E '^(Collecting|Successfully)' || true; } >&2
  }
  local hash
  hash="$(inputs_hash pyproject.toml)-$(python3 --version)"
  # the test extra holds all the others: its install serves run_example.sh too
  if is_current .venv/.authmw-installed-test "$hash" .venv/bin/authmw; then
    return 0
  fi
  unless_current ".venv/.authmw-installed-$extras" "$hash" .venv/bin/authmw _python_install
}

# In js/: the npm packages, the React package's build, and (with "example") the example app's.
_npm_ci() {
  announce "Installing the npm packages of js/ (npm ci; a minute or two the first time)"
  npm ci --no-audit --no-fund
}
_npm_build() {
  announce "Building @authmw/react (js/dist)"
  npm run build
}
_npm_build_example() {
  announce "Building the example's React app (examples/web/dist)"
  npm run build:example
}
js_install() {
  unless_current node_modules/.authmw-installed "$(inputs_hash package-lock.json)" node_modules _npm_ci
}
js_build() {
  unless_current node_modules/.authmw-built \
    "$(inputs_hash src scripts package.json rollup.config.mjs tsconfig.build.json ../authmw/catalogue.json ../authmw/token_kinds.json ../authmw/refresh_policy.json)" dist/index.js \
    _npm_build
}
js_build_example() {
  unless_current node_modules/.authmw-example-built \
    "$(inputs_hash src ../examples/web package.json rollup.example.config.mjs tsconfig.example.json)" ../examples/web/dist \
    _npm_build_example
}
