#!/usr/bin/env bash
# Runs every benchmark and prints every figure (about 4 minutes on 2 cores).
# Flags of the HTTP overhead benchmark can be given here, e.g. bash bench/run_all.sh --duration 5
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk is missing: sudo apt-get install -y wrk" >&2; exit 1
  fi
fi
if ! "$PY" -c "import gunicorn, flask, uvicorn, starlette" 2>/dev/null; then
  "$PY" -m pip install -q -e ".[bench]"
fi

echo "== Machine"
echo "  cores: $(nproc); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "  $("$PY" -V); $(wrk -v 2>&1 | head -1)"
"$PY" -c "
from importlib.metadata import version as v
print('  ' + ', '.join(f'{n} {v(n)}' for n in ('authmw', 'starlette', 'uvicorn', 'h11', 'httpx', 'PyJWT', 'cryptography', 'Flask', 'Werkzeug', 'gunicorn')))"
echo "  load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$PY" bench/inprocess.py
"$PY" bench/hot_path.py
"$PY" bench/keyset.py
"$PY" bench/api_keys.py
"$PY" bench/refresh_storm.py
"$PY" bench/workers.py
"$PY" bench/local_service.py
"$PY" bench/http_overhead.py "$@"
echo
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
