"""scripts/run_example.sh starts the local service and the example, and stops both."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from ports import another_program_on_a_port, free_port

from authmw import AdminApp, AuthConfig

ROOT = Path(__file__).resolve().parents[2]


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
        # Generous: the script may rebuild the React package first on a loaded machine.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            line = script.stdout.readline()
            assert line, "run_example.sh ended early:\n" + "".join(lines)
            lines.append(line)
            if line.startswith("Open "):
                break
        assert f"Open http://localhost:{app_port}" in lines[-1]
        assert (tmp_path / "project.env").is_file()
        # The mailbox's address, from the script and from `authmw dev` itself
        assert f"http://localhost:{service_port}/dev/mailbox" in script.stdout.readline()
        assert f"mailbox:    http://127.0.0.1:{service_port}/dev/mailbox" in "".join(lines)
        assert httpx.get(f"http://127.0.0.1:{service_port}/dev/mailbox").status_code == 200
        # A showcase: the app's name on the cards, teams and account deletion on
        with AdminApp(AuthConfig.from_env_file(tmp_path / "project.env")) as admin:
            project = admin.get_project()
        assert project.display_name == "authmw example"
        assert project.config.client_team_creation_enabled and project.config.client_user_deletion_enabled

        assert listening(app_port)  # the script says "Open" only once the app answers
        page = httpx.get(f"http://127.0.0.1:{app_port}/handler/sign-up")
        assert page.status_code == 200 and "window.__AUTHMW_CONFIG__" in page.text
        assert "ssk_" not in page.text and "sak_" not in page.text
        me = httpx.get(f"http://127.0.0.1:{app_port}/api/me")
        assert (me.status_code, me.json()["code"]) == (401, "USER_AUTHENTICATION_REQUIRED")

        # Run again meanwhile: its own service and app are not "another program"; it says where
        # the running example is and leaves it alone.
        again = subprocess.run(
            ["bash", str(ROOT / "scripts" / "run_example.sh")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
        )
        assert again.returncode == 0, again.stderr
        assert "another program" not in again.stdout + again.stderr
        assert f"The example is already running: open http://localhost:{app_port}" in again.stdout
        assert f"http://localhost:{service_port}/dev/mailbox" in again.stdout
        assert listening(app_port) and listening(service_port) and script.poll() is None

        script.send_signal(signal.SIGTERM)
        script.wait(timeout=15)
        assert not listening(app_port)
        assert not listening(service_port)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()


@pytest.mark.parametrize("held", ["service", "app"])
def test_run_example_stops_with_the_port_named_when_another_program_holds_it(
    tmp_path: Path, web_dist: Path, held: str
) -> None:
    """The issue's case: another program answered the health check on the service's port and
    the script said "Open ..." although its own service had failed to start."""
    with another_program_on_a_port() as taken:
        service_port, app_port = (taken, free_port()) if held == "service" else (free_port(), taken)
        variable = "AUTHMW_DEV_PORT" if held == "service" else "PORT"
        env = {**os.environ, "PORT": str(app_port), "AUTHMW_DEV_PORT": str(service_port), "AUTHMW_DATA_DIR": str(tmp_path)}
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "run_example.sh")],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode != 0
    assert "Open http" not in done.stdout + done.stderr
    assert f"Port {taken} is in use by another program" in done.stderr
    assert f"{variable}=<port>" in done.stderr
    assert not listening(service_port if held == "app" else app_port)  # nothing of ours left running


def test_run_example_uses_its_own_local_service_when_that_runs_alone(tmp_path: Path, web_dist: Path) -> None:
    """The `authmw dev` of the example's data folder runs (started by hand, or left over): the
    script starts the app on it, and leaves it running when it stops."""
    app_port, service_port = free_port(), free_port()
    env = {**os.environ, "PORT": str(app_port), "AUTHMW_DEV_PORT": str(service_port), "AUTHMW_DATA_DIR": str(tmp_path)}
    authmw = [str(ROOT / ".venv" / "bin" / "python"), "-m", "authmw", "dev", "--data-dir", str(tmp_path)]
    subprocess.run([*authmw, "--background", "--port", str(service_port)], cwd=ROOT, check=True, capture_output=True, timeout=300)
    script = None
    try:
        script = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "run_example.sh")],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        assert script.stdout is not None
        lines: list[str] = []
        while not lines or not lines[-1].startswith("Open "):
            line = script.stdout.readline()
            assert line, "run_example.sh ended early:\n" + "".join(lines)
            lines.append(line)
        said = "".join(lines)
        assert "another program" not in said
        assert f"already running on port {service_port}: the example uses it" in said
        page = httpx.get(f"http://127.0.0.1:{app_port}/handler/sign-in")
        assert page.status_code == 200 and "window.__AUTHMW_CONFIG__" in page.text
        script.send_signal(signal.SIGTERM)
        script.wait(timeout=15)
        assert not listening(app_port)
        assert listening(service_port)  # not the script's to stop
    finally:
        if script is not None and script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
        subprocess.run([*authmw, "--stop"], cwd=ROOT, check=False, capture_output=True, timeout=60)
