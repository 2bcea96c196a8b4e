"""`authmw dev` with bad options, run as a real process: one line naming the problem and the
fix on stderr, exit status 2, no traceback. (`AuthConfig.from_env_file` is tested alongside.)"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from oidc_provider import OidcProvider
from ports import free_port

from authmw import AuthConfig
from authmw.cli import build_parser
from authmw.errors import ConfigurationError, SettingsFileNotFound
from authmw_local.bootstrap import ProjectKeys

from . import test_oauth_flow as oauth_flow
from .conftest import Api, unique_email


def authmw_dev(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "authmw", "dev", *args], capture_output=True, text=True, timeout=120, check=False
    )


def assert_one_line(done: subprocess.CompletedProcess[str], *says: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for text in says:
        assert text in lines[0]


@pytest.mark.parametrize("port", ["70000", "65536", "-1"])
def test_a_port_out_of_range_names_the_range(tmp_path: Path, port: str) -> None:
    assert_one_line(authmw_dev("--port", port, "--data-dir", str(tmp_path)), f"--port {port} is not a port", "1-65535")


def test_a_data_dir_that_is_a_file_says_so(tmp_path: Path) -> None:
    file = tmp_path / "project.env"
    file.write_text("AUTHMW_PROJECT_ID=x\n")
    done = authmw_dev("--port", "0", "--data-dir", str(file))
    assert_one_line(done, f"--data-dir {file} is a file, not a folder", "pass a folder")
    assert "listen" not in done.stderr


@pytest.mark.parametrize("folder", ["/sys", "/sys/authmw-test-data"])
def test_a_data_dir_that_cannot_be_written_says_so(folder: str) -> None:
    # /sys cannot be written even by root, so this holds for any user running the tests.
    done = authmw_dev("--port", "0", "--data-dir", folder)
    assert_one_line(done, f"cannot write to --data-dir {folder}", "a folder you can write to")
    assert "listen" not in done.stderr


def test_a_data_dir_below_a_file_says_it_cannot_be_written(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("")
    assert_one_line(authmw_dev("--port", "0", "--data-dir", str(file / "data")), "cannot write to --data-dir")


def test_a_port_held_by_another_program_names_the_port_and_the_fix(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        done = authmw_dev("--port", str(port), "--data-dir", str(tmp_path))
    assert_one_line(done, f"cannot listen on 127.0.0.1:{port}", "--port")


def test_a_token_lifetime_of_zero_is_refused(tmp_path: Path) -> None:
    assert_one_line(authmw_dev("--access-token-ttl", "0", "--data-dir", str(tmp_path)), "--access-token-ttl")


# -- AuthConfig.from_env_file --------------------------------------------------------------


def test_from_env_file_with_a_wrong_path_names_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "project.env"
    with pytest.raises(SettingsFileNotFound) as caught:
        AuthConfig.from_env_file(missing)
    assert str(missing) in str(caught.value) and "authmw dev --data-dir" in str(caught.value)
    # Still what callers catching the old error expect.
    assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, ConfigurationError)


def test_from_env_file_given_the_data_folder_points_at_the_file_inside(tmp_path: Path) -> None:
    (tmp_path / "project.env").write_text("AUTHMW_PROJECT_ID=internal\n")
    with pytest.raises(SettingsFileNotFound, match="project.env inside it"):
        AuthConfig.from_env_file(tmp_path)
    assert AuthConfig.from_env_file(tmp_path / "project.env").project_id == "internal"


def test_background_starts_answers_refuses_a_second_start_and_stops(tmp_path: Path) -> None:
    """`authmw dev --background` returns once the service answers; `--stop` ends it."""
    import httpx

    data = str(tmp_path / ".authmw")
    started = authmw_dev("--background", "--port", "0", "--data-dir", data, "--name", "Bookshop")
    try:
        assert started.returncode == 0, started.stderr
        assert "stop it:    authmw dev --stop --data-dir" in started.stderr
        url = (tmp_path / ".authmw" / "dev.url").read_text().strip()
        assert f"mailbox:    {url}/dev/mailbox" in started.stderr
        assert httpx.get(f"{url}/dev/mailbox").status_code == 200
        # --name: the app's name on the cards (the project's display name)
        project = httpx.get(f"{url}/api/v1/projects/current", headers=client_headers(tmp_path / ".authmw")).json()
        assert project["display_name"] == "Bookshop"
        assert httpx.get(url + "/health").json() == {"status": "ok"}
        config = AuthConfig.from_env_file(tmp_path / ".authmw" / "project.env")
        assert config.api_url == url
        again = authmw_dev("--background", "--port", "0", "--data-dir", data)
        assert_one_line(again, "already running", "--stop")
        # A second `authmw dev` in the same folder says it is already running, and where.
        in_front = authmw_dev("--port", "0", "--data-dir", data)
        assert_one_line(in_front, "already running", f"on {url}", f"{url}/dev/mailbox", "authmw dev --stop")
    finally:
        stopped = authmw_dev("--stop", "--data-dir", data)
    assert stopped.returncode == 0, stopped.stderr
    assert not (tmp_path / ".authmw" / "dev.pid").exists()
    with pytest.raises(httpx.TransportError):
        httpx.get(url + "/health")
    nothing = authmw_dev("--stop", "--data-dir", data)
    assert nothing.returncode == 1 and "no local service is running" in nothing.stderr


def client_headers(data: Path) -> dict[str, str]:
    config = AuthConfig.from_env_file(data / "project.env")
    return {
        "x-stack-project-id": config.project_id,
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": config.publishable_client_key or "",
    }


def test_background_reports_a_start_that_fails(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        done = authmw_dev("--background", "--port", str(held.getsockname()[1]), "--data-dir", str(tmp_path))
    assert done.returncode == 2 and "stopped while starting" in done.stderr and "cannot listen" in done.stderr


def test_a_shared_oauth_server_that_is_not_a_url_is_refused(tmp_path: Path) -> None:
    done = authmw_dev("--shared-oauth-server", "localhost:8114", "--data-dir", str(tmp_path))
    assert_one_line(done, "--shared-oauth-server localhost:8114 is not an http(s) URL", "issuer URL")


def test_the_mock_provider_and_random_passkey_challenges_are_the_defaults() -> None:
    args = build_parser().parse_args(["dev"])
    assert (args.shared_oauth_server, args.fixed_passkey_challenge) == (None, False)
    helped = authmw_dev("--help")
    assert "--shared-oauth-server URL" in helped.stdout and "--fixed-passkey-challenge" in helped.stdout


def test_shared_oauth_server_and_fixed_passkey_challenge_from_the_command_line(tmp_path: Path) -> None:
    """`--shared-oauth-server URL`: the `shared` providers sign in at that OpenID Connect server
    (here the tests' own), not at the built-in mock; `--fixed-passkey-challenge`: every passkey
    challenge is "MOCK" (base64url `TU9DSw`). Both pass through `--background`, as `--public-url` does."""
    data = tmp_path / ".authmw"
    with OidcProvider() as provider:
        port = free_port()
        started = authmw_dev(
            "--background", "--port", str(port), "--public-url", f"http://localhost:{port}", "--data-dir", str(data),
            "--shared-oauth-server", provider.issuer, "--fixed-passkey-challenge",
        )
        try:
            assert started.returncode == 0, started.stderr
            config = AuthConfig.from_env_file(data / "project.env")
            assert config.api_url == f"http://localhost:{port}"  # not 127.0.0.1: --public-url passed on too
            keys = ProjectKeys(
                config.project_id,
                config.publishable_client_key or "",
                config.secret_server_key or "",
                config.super_secret_admin_key or "",
            )
            api = Api(config.api_url, keys)
            api.set_config(oauth_providers=[{"id": "github", "type": "shared", "enabled": True}], passkey_enabled=True)
            flow = oauth_flow.start(api, "github")
            assert flow.authorize.status_code == 307, flow.authorize.text
            assert flow.authorize.headers["location"].startswith(provider.issuer + "/authorize?")
            token = api.sign_up(unique_email())["access_token"]
            started_passkey = api.call("POST", "/auth/passkey/initiate-passkey-registration", token=token, json={})
            assert started_passkey.json()["options_json"]["challenge"] == "TU9DSw"
            said = (data / "dev.log").read_text()  # its start-up lines name both, the switch as for tests only
            assert f"shared providers served by {provider.issuer}" in said
            assert "every challenge is the fixed MOCK (--fixed-passkey-challenge: for tests only)" in said
        finally:
            stopped = authmw_dev("--stop", "--data-dir", str(data))
    assert stopped.returncode == 0, stopped.stderr


def test_background_keeps_its_log_private_and_warns_when_listening_beyond_this_machine(tmp_path: Path) -> None:
    """The first start prints the project's keys, into dev.log under --background: the log and
    the data folder are their owner's only even under umask 022 (attack: another account of the
    machine reads the keys). Listening on every interface is allowed, but said loudly: anyone
    on the network then reads the mailbox's sign-in links."""
    import os

    old = os.umask(0o022)
    try:
        for host, warned in (("127.0.0.1", False), ("0.0.0.0", True)):
            data = tmp_path / host / ".authmw"
            started = authmw_dev("--background", "--host", host, "--port", "0", "--data-dir", str(data))
            try:
                assert started.returncode == 0, started.stderr
                log = (data / "dev.log").read_text()
                keys = AuthConfig.from_env_file(data / "project.env")
                assert keys.secret_server_key and keys.secret_server_key in log  # what makes the log secret
                assert (data / "dev.log").stat().st_mode & 0o777 == 0o600
                assert data.stat().st_mode & 0o777 == 0o700
                assert ("WARNING:    listening on 0.0.0.0, not only this machine" in log) is warned, log
            finally:
                assert authmw_dev("--stop", "--data-dir", str(data)).returncode == 0
    finally:
        os.umask(old)


def test_stop_never_signals_a_process_that_reused_the_pid_of_a_killed_service(tmp_path: Path) -> None:
    """A service killed outright leaves dev.pid behind; its pid is later another program's.
    `--stop` must not SIGTERM that program, and a new start must not call it the service."""
    data = tmp_path / ".authmw"
    data.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        (data / "dev.pid").write_text(f"{other.pid}\n")
        stopped = authmw_dev("--stop", "--data-dir", str(data))
        assert stopped.returncode == 1 and "no local service is running" in stopped.stderr
        assert other.poll() is None  # still running: not signalled
        started = authmw_dev("--background", "--port", "0", "--data-dir", str(data))  # control: not "already running"
        assert started.returncode == 0, started.stderr
        assert authmw_dev("--stop", "--data-dir", str(data)).returncode == 0  # the real service stops
        assert other.poll() is None
    finally:
        other.stdin.close()  # type: ignore[union-attr]
        other.wait(timeout=30)
