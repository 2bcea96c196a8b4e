#!/usr/bin/env bash
# Run Stack Auth's own end-to-end API suite (apps/e2e, tests/backend/endpoints/api/v1) against
# the local service, and print passed/total per directory. A developer tool, not part of the
# test command: the first run installs the suite's node_modules (about 4 minutes, ~1.5 GB).
#
#   bash scripts/stack_e2e.sh --source GIT [--commit REV] [-- RUN OPTIONS AND TEST PATHS]
#
#   --source GIT   a clone of https://github.com/stack-auth/stack-auth (bare or not); or set
#                  STACK_AUTH_GIT. Only needed until the copy exists.
#   --commit REV   the revision to test (default 2f719903b, backend 2.8.86, when the clone has
#                  it; else HEAD). A different revision replaces the copy.
#   after --       options of `scripts/stack_e2e.py run` (--all, --api 2.7|2.8, --depth N, --workers N,
#                  --failures FILE, --timeout-minutes M) and test paths relative to the suite
#                  folder, e.g. `-- auth/otp users.test.ts`.
#
# The suite's OAuth tests need its mock OAuth server (apps/mock-oauth-server): installed from the
# same workspace once, and started by the run on port <prefix>14 (stack_e2e.py).
#
# The copy and its install live in ${AUTHMW_STACK_E2E_DIR:-$HOME/.cache/authmw-stack-e2e}
# (outside this repository); nothing of the suite is copied here. Needs Node 20+ and npm (for
# the repository's own pnpm version) and the npm registry; the tests themselves run offline.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${AUTHMW_STACK_E2E_DIR:-$HOME/.cache/authmw-stack-e2e}"
source_git="${STACK_AUTH_GIT:-}"
commit=""
run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_git="$2"; shift 2 ;;
    --commit) commit="$2"; shift 2 ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "stack_e2e.sh: unknown option $1 (see --help); pass run options after --" >&2; exit 2 ;;
  esac
done

python="$here/.venv/bin/python"
[ -x "$python" ] || python="$(command -v python3)"
stack="$cache/stack"
stamp="$stack/.authmw-stack-e2e-commit"

# 1. The copy of the repository, at the wanted commit.
if [ -n "$source_git" ]; then
  git_dir="$source_git"
  [ -d "$source_git/.git" ] && git_dir="$source_git/.git"
  if [ -z "$commit" ]; then
    if git --git-dir="$git_dir" cat-file -e "2f719903b^{commit}" 2>/dev/null; then commit=2f719903b; else commit=HEAD; fi
  fi
  full="$(git --git-dir="$git_dir" rev-parse --verify "$commit^{commit}")" || {
    echo "stack_e2e.sh: $commit is not a commit of $source_git" >&2; exit 2; }
  if [ "$(cat "$stamp" 2>/dev/null)" != "$full" ]; then
    echo "stack_e2e.sh: extracting stack-auth $full into $stack" >&2
    rm -rf "$stack" && mkdir -p "$stack"
    git --git-dir="$git_dir" archive "$full" | tar -x -C "$stack"
    "$python" "$here/scripts/stack_e2e.py" prepare "$stack"
    echo "$full" > "$stamp"
  fi
elif [ ! -f "$stamp" ]; then
  echo "stack_e2e.sh: no copy of stack-auth in $stack yet: pass --source <clone of stack-auth/stack-auth>" >&2
  exit 2
fi

# 2. The repository's pnpm, and the e2e package with its workspace dependencies and the root
#    (vitest and its plugins are root devDependencies). --ignore-scripts: no SDK generation.
pnpm_version="$(node -e 'console.log(require(process.argv[1]).packageManager.split("@")[1])' "$stack/package.json")"
pnpm="$cache/tools/pnpm-$pnpm_version/node_modules/.bin/pnpm"
if [ ! -x "$pnpm" ]; then
  npm install --silent --prefix "$cache/tools/pnpm-$pnpm_version" "pnpm@$pnpm_version" >&2
fi
if [ ! -f "$stack/.authmw-installed" ]; then
  echo "stack_e2e.sh: installing the e2e package (pnpm $pnpm_version; a few minutes the first time)" >&2
  (cd "$stack" && CI=true "$pnpm" install --frozen-lockfile --ignore-scripts --reporter=append-only \
      --filter "@stackframe/e2e-tests..." --filter "@stackframe/monorepo" >"$cache/install.log" 2>&1) || {
    echo "stack_e2e.sh: pnpm install failed; see $cache/install.log" >&2; exit 2; }
  touch "$stack/.authmw-installed"
fi
# The suite's OAuth tests sign in at its mock OAuth server (apps/mock-oauth-server, an
# oidc-provider app): its dependencies, from the same workspace and lockfile, once.
if [ -d "$stack/apps/mock-oauth-server" ] && [ ! -f "$stack/.authmw-mock-oauth-installed" ]; then
  echo "stack_e2e.sh: installing the mock OAuth server" >&2
  (cd "$stack" && CI=true "$pnpm" install --frozen-lockfile --ignore-scripts --reporter=append-only \
      --filter "@stackframe/e2e-tests..." --filter "@stackframe/monorepo" \
      --filter "@stackframe/mock-oauth-server" >"$cache/install-mock-oauth.log" 2>&1) || {
    echo "stack_e2e.sh: installing the mock OAuth server failed; see $cache/install-mock-oauth.log" >&2; exit 2; }
  touch "$stack/.authmw-mock-oauth-installed"
fi
# 3. The suite imports @stackframe/stack-shared/dist: build it, after the workspace packages it
#    depends on (@stackframe/stack-sc in 2.7), once (about 2 minutes).
if [ ! -f "$stack/.authmw-built" ]; then
  echo "stack_e2e.sh: building @stackframe/stack-shared" >&2
  (cd "$stack" && "$pnpm" --filter "@stackframe/stack-shared..." run build >"$cache/build-stack-shared.log" 2>&1) || {
    echo "stack_e2e.sh: building stack-shared failed; see $cache/build-stack-shared.log" >&2; exit 2; }
  touch "$stack/.authmw-built"
fi

# 4. The run: the mock OAuth server, a fresh local service, the suite against it, the table.
cd "$here"
exec "$python" "$here/scripts/stack_e2e.py" run "$stack" "${run_args[@]}"
