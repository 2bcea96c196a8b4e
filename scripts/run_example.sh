#!/usr/bin/env bash
# Runs the FastAPI example with the React app against the local service.
# Usage: bash scripts/run_example.sh     then open http://localhost:8080
# Run again while the example runs, it says so and where (exit 0); with only the example's own
# local service running (the `authmw dev` of its data folder), it starts the app on that service.
# Ports and data folder: PORT (8080), AUTHMW_DEV_PORT (8180), AUTHMW_DATA_DIR (.authmw).
# The ports are not the README quick start's (8102 and 8000-8002), so both can run at once.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICE_PORT=${AUTHMW_DEV_PORT:-8180}
APP_PORT=${PORT:-8080}
DATA_DIR=${AUTHMW_DATA_DIR:-.authmw}

# Python, the React package and the example app: installed and built when missing or changed
# (the stamps of scripts/steps.sh, which scripts/test.sh reuses)
# shellcheck source=scripts/steps.sh
. scripts/steps.sh
python_env all
(
  cd js
  js_install
  js_build
  js_build_example
)

# Python one-liners: does anything answer on a port; does the service there serve our project
answers() {
  .venv/bin/python -c "import socket, sys; sys.exit(socket.socket().connect_ex(('127.0.0.1', int(sys.argv[1]))) != 0)" "$1"
}
ours() {
  .venv/bin/python - "$SERVICE_PORT" "$DATA_DIR/project.env" <<'PY' >/dev/null 2>&1
import json, sys, urllib.request
from authmw._config import read_env_file
env = read_env_file(sys.argv[2])
request = urllib.request.Request(
    f"http://127.0.0.1:{sys.argv[1]}/api/v1/projects/current",
    headers={
        "x-stack-project-id": env["AUTHMW_PROJECT_ID"],
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": env["AUTHMW_PUBLISHABLE_CLIENT_KEY"],
    },
)
with urllib.request.urlopen(request, timeout=5) as response:
    sys.exit(json.load(response).get("id") != env["AUTHMW_PROJECT_ID"])
PY
}
# Does the example app on the port serve the project of $DATA_DIR (its page carries the project id)?
app_ours() {
  .venv/bin/python - "$APP_PORT" "$DATA_DIR/project.env" <<'PY' >/dev/null 2>&1
import sys, urllib.request
from authmw._config import read_env_file
env = read_env_file(sys.argv[2])
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/handler/sign-in", timeout=5) as response:
    page = response.read().decode()
sys.exit(not ("__AUTHMW_CONFIG__" in page and f'"{env["AUTHMW_PROJECT_ID"]}"' in page))
PY
}
port_taken() {
  echo "Port $1 is in use by another program, so $2 cannot start there. Stop that program, or choose" \
    "another port: $3=<port> bash scripts/run_example.sh" >&2
  exit 1
}
# A second run: the service on the port may be this example's own (`authmw dev` for $DATA_DIR,
# left by a run still going or started by hand), which is not "another program".
reused=0
if answers "$SERVICE_PORT"; then
  [ -f "$DATA_DIR/project.env" ] && ours || port_taken "$SERVICE_PORT" "the local service" AUTHMW_DEV_PORT
  if answers "$APP_PORT" && app_ours; then
    echo "The example is already running: open http://localhost:$APP_PORT" \
      "(its local service is on port $SERVICE_PORT with the data of $DATA_DIR; the e-mails it sends:" \
      "http://localhost:$SERVICE_PORT/dev/mailbox). Ctrl-C in the terminal it runs in stops it."
    exit 0
  fi
  reused=1
  echo "The local service of $DATA_DIR is already running on port $SERVICE_PORT: the example uses it" \
    "(and leaves it running when it stops; authmw dev --stop --data-dir $DATA_DIR stops it)." >&2
fi
answers "$APP_PORT" && port_taken "$APP_PORT" "the example app" PORT

# Local service in the background (unless this example's own is running already), stopped on exit
service_pid=
if [ "$reused" = 0 ]; then
  .venv/bin/python -m authmw dev --host 127.0.0.1 --port "$SERVICE_PORT" --data-dir "$DATA_DIR" --name "authmw example" &
  service_pid=$!
fi
app_pid=
stop() {
  for pid in $app_pid $service_pid; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT TERM

# Up when the process we started is alive and the service on the port serves the project of
# its project.env (not merely when something answers there).
if [ -n "$service_pid" ]; then
  for _ in $(seq 1 300); do
    if ! kill -0 "$service_pid" 2>/dev/null; then
      echo "The local service did not start on port $SERVICE_PORT (see its message above);" \
        "AUTHMW_DEV_PORT=<port> picks another port." >&2
      exit 1
    fi
    ours && break
    sleep 0.2
  done
  if ! kill -0 "$service_pid" 2>/dev/null || ! ours; then
    echo "The local service started here does not answer on port $SERVICE_PORT (another program may hold it);" \
      "stop that program or choose another port: AUTHMW_DEV_PORT=<port> bash scripts/run_example.sh" >&2
    exit 1
  fi
fi

# The example shows everything: teams (the header's switcher, Settings -> Teams) and account
# deletion on, as `authmw project set` turns them on in any project.
for setting in client_team_creation_enabled client_user_deletion_enabled; do
  .venv/bin/python -m authmw project set "$setting" on --env-file "$DATA_DIR/project.env" >/dev/null
done

export AUTHMW_ENV_FILE="$DATA_DIR/project.env"
.venv/bin/python -m uvicorn --factory examples.fastapi_app.app:create_app \
  --app-dir . --host 127.0.0.1 --port "$APP_PORT" --log-level warning &
app_pid=$!
for _ in $(seq 1 300); do
  if ! kill -0 "$app_pid" 2>/dev/null; then
    echo "The example app did not start on port $APP_PORT (see its message above); PORT=<port> picks another." >&2
    exit 1
  fi
  answers "$APP_PORT" && break
  sleep 0.2
done
answers "$APP_PORT" || { echo "The example app does not answer on port $APP_PORT." >&2; exit 1; }
echo "Open http://localhost:$APP_PORT   (Ctrl-C stops the example and the local service)"
echo "     the e-mails it sends: http://localhost:$SERVICE_PORT/dev/mailbox"
wait "$app_pid"
