"""scripts/run_example.sh starts the local service and the example, and stops both."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_run_example_serves_the_app_and_stops_the_service_on_exit(tmp_path: Path, web_dist: Path) -> None:
    app_port, service_port = free_port(), free_port()
    env = {**os.environ, "PORT": str(app_port), "AUTHMW_DEV_PORT": str(service_port), "AUTHMW_DATA_DIR": str(tmp_path)}
    script = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "run_example.sh")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert script.stdout is not None
        lines = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = script.stdout.readline()
            assert line, "run_example.sh ended early:\n" + "".join(lines)
            lines.append(line)
            if line.startswith("Open "):
                break
        assert f"Open http://localhost:{app_port}" in lines[-1]
        assert (tmp_path / "project.env").is_file()

        for _ in range(100):
            if listening(app_port):
                break
            time.sleep(0.1)
        page = httpx.get(f"http://127.0.0.1:{app_port}/handler/sign-up")
        assert page.status_code == 200 and "window.__AUTHMW_CONFIG__" in page.text
        assert "ssk_" not in page.text and "sak_" not in page.text
        me = httpx.get(f"http://127.0.0.1:{app_port}/api/me")
        assert (me.status_code, me.json()["code"]) == (401, "USER_AUTHENTICATION_REQUIRED")

        script.send_signal(signal.SIGTERM)
        script.wait(timeout=15)
        assert not listening(app_port)
        assert not listening(service_port)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
