"""First start, restarts, project.env and the `authmw dev` command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jwt
import pytest

from authmw.dev import LocalService, create_app
from authmw_local.bootstrap import ProjectKeys

from .conftest import Api

KEY_RE = {
    "AUTHMW_PUBLISHABLE_CLIENT_KEY": r"pck_[0-9a-hjkmnp-tv-z]{45}",
    "AUTHMW_SECRET_SERVER_KEY": r"ssk_[0-9a-hjkmnp-tv-z]{45}",
    "AUTHMW_SUPER_SECRET_ADMIN_KEY": r"sak_[0-9a-hjkmnp-tv-z]{45}",
}


def read_env(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line)


def test_first_start_writes_project_env_with_the_keys(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as service:
        env = read_env(tmp_path / "project.env")
        assert env == service.config
        assert env["AUTHMW_API_URL"] == service.url
        assert env["AUTHMW_PROJECT_ID"] == service.project_id
        for name, pattern in KEY_RE.items():
            assert re.fullmatch(pattern, env[name]), name
        assert (tmp_path / "authmw.sqlite3").is_file()


def test_first_start_prints_the_keys_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    LocalService(tmp_path).stop()
    first = capsys.readouterr().err
    LocalService(tmp_path).stop()
    second = capsys.readouterr().err
    env = read_env(tmp_path / "project.env")
    assert env["AUTHMW_SECRET_SERVER_KEY"] in first and env["AUTHMW_PROJECT_ID"] in first
    assert second == ""


def test_restart_reuses_project_keys_and_signing_key(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as first:
        api = Api.of(first)
        tokens = api.sign_up()
        before = dict(first.config)
        jwks_before = api.http.get(f"/api/v1/projects/{first.project_id}/.well-known/jwks.json").json()

    with LocalService(tmp_path, quiet=True) as second:
        api = Api.of(second)
        after = dict(second.config)
        assert after.pop("AUTHMW_API_URL") == second.url
        before.pop("AUTHMW_API_URL")
        assert after == before
        assert read_env(tmp_path / "project.env")["AUTHMW_API_URL"] == second.url
        jwks = api.http.get(f"/api/v1/projects/{second.project_id}/.well-known/jwks.json").json()
        assert jwks == jwks_before
        key = jwt.PyJWK(jwks["keys"][0]).key
        jwt.decode(tokens["access_token"], key, algorithms=["ES256"], audience=second.project_id)
        # The session survives: its refresh token gives a token the restarted service accepts.
        # (2.8 issuers name the service's URL, here a new port: the old access token says another
        # issuer. `authmw dev` on its fixed port keeps them valid too.)
        refresh = api.call(
            "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": tokens["refresh_token"]}
        )
        assert refresh.status_code == 200
        fresh = refresh.json()["access_token"]
        assert api.call("GET", "/users/me", token=fresh).json()["id"] == tokens["user_id"]


def test_old_tokens_still_work_after_a_restart_on_the_same_url(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as first:
        tokens = Api.of(first).sign_up()
        port = first.port
    with LocalService(tmp_path, quiet=True, port=port) as second:
        me = Api.of(second).call("GET", "/users/me", token=tokens["access_token"])
        assert me.status_code == 200 and me.json()["id"] == tokens["user_id"]


async def test_create_app_serves_in_process_without_a_socket(tmp_path: Path) -> None:
    app = create_app(tmp_path, access_token_ttl=5)
    assert not (tmp_path / "project.env").exists()  # no URL known, nothing to write
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://local") as client:
        assert (await client.get("/health")).json() == {"status": "ok"}
        missing = await client.get("/api/v1/users/me")
        assert missing.headers["x-stack-known-error"] == "ACCESS_TYPE_REQUIRED"


def test_port_zero_picks_a_free_port_and_stop_releases_it(tmp_path: Path) -> None:
    service = LocalService(tmp_path, port=0, quiet=True).start()
    try:
        assert service.port > 0 and service.url == f"http://127.0.0.1:{service.port}"
        assert httpx.get(service.url + "/health").status_code == 200
    finally:
        service.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(service.url + "/health", timeout=1)


def test_cli_dev_command_serves_and_writes_project_env(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "authmw", "dev", "--port", "0", "--data-dir", str(data_dir), "--access-token-ttl", "30"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = None
        deadline = time.monotonic() + 120  # generous: a loaded machine starts the process slowly
        assert process.stderr is not None
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            match = re.search(r"authmw local service on (http://\S+)", line)
            url = match.group(1) if match else None
        assert url, "the CLI did not announce its URL"
        assert httpx.get(url + "/health").json() == {"status": "ok"}
        env = read_env(data_dir / "project.env")
        assert env["AUTHMW_API_URL"] == url
        keys = ProjectKeys(
            env["AUTHMW_PROJECT_ID"],
            env["AUTHMW_PUBLISHABLE_CLIENT_KEY"],
            env["AUTHMW_SECRET_SERVER_KEY"],
            env["AUTHMW_SUPER_SECRET_ADMIN_KEY"],
        )
        api = Api(url, keys)
        tokens = api.sign_up()
        claims = jwt.decode(tokens["access_token"], options={"verify_signature": False})
        assert claims["exp"] - claims["iat"] == 30
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_deleted_project_is_created_afresh_on_the_next_start(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as first:
        old_id = first.project_id
        api = Api.of(first)
        assert api.call("DELETE", api.admin_project_path, "admin").json() == {"success": True}
        gone = api.call("GET", "/projects/current", "admin")
        assert gone.headers["x-stack-known-error"] == "CURRENT_PROJECT_NOT_FOUND"
    with LocalService(tmp_path, quiet=True) as second:
        assert second.project_id != old_id
        assert read_env(tmp_path / "project.env")["AUTHMW_PROJECT_ID"] == second.project_id
        assert Api.of(second).call("GET", "/projects/current").status_code == 200


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_files_that_hold_keys_are_their_owners_only(tmp_path: Path) -> None:
    """Attack: another account of the machine reads the database (every key and session in
    clear) or project.env. Under the usual umask 022 a new folder and file are world-readable,
    so the service must ask for owner-only modes itself."""
    old = os.umask(0o022)
    try:
        data = tmp_path / "data"
        with LocalService(data, quiet=True) as service:
            api = Api.of(service)
            api.sign_up()  # writes, so the WAL files exist
            assert mode(data) == 0o700
            for name in ("authmw.sqlite3", "authmw.sqlite3-wal", "authmw.sqlite3-shm", "project.env"):
                assert mode(data / name) == 0o600, name
        # A database of an older version (world-readable) is narrowed on the next start, and
        # still serves: the control that the keys and users are kept.
        for name in ("authmw.sqlite3", "project.env"):
            (data / name).chmod(0o644)
        with LocalService(data, quiet=True) as again:
            assert again.bootstrap.project == service.bootstrap.project
            assert mode(data / "authmw.sqlite3") == 0o600 and mode(data / "project.env") == 0o600
            assert httpx.get(again.url + "/health").status_code == 200
    finally:
        os.umask(old)


def test_project_env_is_never_written_through_a_planted_temporary_file(tmp_path: Path) -> None:
    """A `project.env.tmp` left in the folder (a crash, or a link planted to another file) is
    replaced, not written through: the keys never reach the link's target."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("untouched\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "project.env.tmp").symlink_to(target)
    with LocalService(data, quiet=True) as service:
        assert read_env(data / "project.env") == service.config
    assert target.read_text() == "untouched\n" and not (data / "project.env.tmp").exists()
