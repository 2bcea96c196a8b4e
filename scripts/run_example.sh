#!/usr/bin/env bash
# Runs the FastAPI example with the React app against the local service.
# Usage: bash scripts/run_example.sh     then open http://localhost:8000
# Ports and data folder: PORT (8000), AUTHMW_DEV_PORT (8102), AUTHMW_DATA_DIR (.authmw).
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICE_PORT=${AUTHMW_DEV_PORT:-8102}
APP_PORT=${PORT:-8000}
DATA_DIR=${AUTHMW_DATA_DIR:-.authmw}

# Python
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import authmw, authmw_fastapi, uvicorn" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q -e ".[all]"
fi

# React package and example app: rebuilt when missing or older than their sources
(
  cd js
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  index=../examples/web/dist/index.html
  sources="src ../examples/web package.json rollup.config.mjs rollup.example.config.mjs"
  # shellcheck disable=SC2086 # word splitting of $sources is intended
  if [ ! -f "$index" ] || [ -n "$(find $sources -path ../examples/web/dist -prune -o -type f -newer "$index" -print -quit)" ]; then
    npm run build
    npm run build:example
  fi
)

# Local service in the background, stopped on exit
.venv/bin/python -m authmw dev --host 127.0.0.1 --port "$SERVICE_PORT" --data-dir "$DATA_DIR" &
service_pid=$!
app_pid=
stop() {
  for pid in $app_pid $service_pid; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT TERM

healthy() {
  .venv/bin/python -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)" \
    "http://127.0.0.1:$SERVICE_PORT/health" >/dev/null 2>&1
}
for _ in $(seq 1 100); do
  healthy && break
  if ! kill -0 "$service_pid" 2>/dev/null; then echo "The local service did not start." >&2; exit 1; fi
  sleep 0.2
done
healthy || { echo "The local service does not answer on port $SERVICE_PORT." >&2; exit 1; }

export AUTHMW_ENV_FILE="$DATA_DIR/project.env"
.venv/bin/python -m uvicorn --factory examples.fastapi_app.app:create_app \
  --app-dir . --host 127.0.0.1 --port "$APP_PORT" --log-level warning &
app_pid=$!
echo "Open http://localhost:$APP_PORT   (Ctrl-C stops the example and the local service)"
wait "$app_pid"
