"""`authmw project|keys|users` and `--version` against a local service of this module's own:
output and exit status of each command (main(argv) with capsys, and one real subprocess)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from authmw import AdminApp, AuthConfig, ClientApp, ServerApp, __version__, _cli_admin
from authmw._production import LOCALHOST_ALLOWED, ProductionModeError
from authmw.cli import main
from authmw.errors import InvalidSecretServerKey, SignUpRejected

dev = pytest.importorskip("authmw_local")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with dev.LocalService(tmp_path_factory.mktemp("cli-admin"), quiet=True) as running:
        yield running


@pytest.fixture
def env_file(service: Any) -> str:
    return str(service.env_file)


@pytest.fixture
def run(env_file: str, capsys: pytest.CaptureFixture[str]):
    """run(*argv) -> (exit status, stdout, stderr) of `authmw <argv> --env-file <project.env>`."""

    def run(*argv: str, env: bool = True) -> tuple[int, str, str]:
        status = main([*argv, "--env-file", env_file] if env else list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return run


def admin(service: Any) -> AdminApp:
    return AdminApp(AuthConfig.from_env_file(service.env_file))


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"authmw {__version__}\n"


def test_project_show_summary_and_json(run, service):
    status, out, err = run("project", "show")
    assert status == 0 and err == ""
    assert re.search(rf"^Project\s+authmw local project \({service.project_id}\)$", out, re.MULTILINE)
    assert re.search(r"^allow_localhost\s+on$", out, re.MULTILINE) and re.search(r"^E-mail\s+shared", out, re.MULTILINE)
    # API 2.8 does not count the users in the project's view: no "Users  -" row then.
    assert not re.search(r"^Users\s", out, re.MULTILINE)
    status, out, _ = run("project", "show", "--json")
    data = json.loads(out)
    assert status == 0 and data["id"] == service.project_id and data["config"]["allow_localhost"] is True


def test_project_show_hides_secrets_unless_asked(run, service):
    with admin(service) as app:
        # enabled: API 2.8 keeps listed providers only (a disabled one is left out, service-api B14.4)
        gitlab = {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "gl", "client_secret": "gl-SECRET"}
        # github and google are on in the local project from the start; an update lists them too
        shared = [{"id": p, "type": "shared", "enabled": True} for p in ("github", "google")]
        app.update_project(config={"oauth_providers": [*shared, gitlab]})
    for argv in (("project", "show"), ("project", "show", "--json")):
        status, out, _ = run(*argv)
        assert status == 0 and "gl-SECRET" not in out and _cli_admin.HIDDEN in out
    status, out, _ = run("project", "show", "--json", "--show-secrets")
    providers = {p["id"]: p for p in json.loads(out)["config"]["oauth_providers"]}
    assert providers["gitlab"]["client_secret"] == "gl-SECRET"


def test_project_set_and_check(run, service):
    status, out, _ = run("project", "check")
    assert status == 1
    # a local service has no dashboard: the fix is the command that changes the setting
    assert out == (
        "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings "
        "(fix: authmw project set allow-localhost off)\n"
    )
    assert run("project", "set", "allow-localhost", "off")[:2] == (0, "allow_localhost = off\n")
    status, out, _ = run("project", "set", "domains", "http://app.example.com, https://10.1.2.3")
    assert (status, out) == (0, "domains = http://app.example.com, https://10.1.2.3\n")
    status, out, _ = run("project", "check", "--dashboard-url", "http://dash.test")
    assert status == 1
    fix = f"(fix: authmw project set domains https://app.example.com,..., or http://dash.test/projects/{service.project_id}/domains)"
    assert out.splitlines() == [
        f"Trusted domains should be HTTPS: http://app.example.com {fix}",
        f"Direct IPs are not valid for trusted domains in production mode: https://10.1.2.3 {fix}",
    ]
    assert run("project", "set", "domains", "https://app.example.com")[0] == 0
    status, out, _ = run("project", "check")
    assert status == 0 and out == f"authmw local project ({service.project_id}) is ready for production mode.\n"
    assert run("project", "set", "name", "Renamed")[:2] == (0, "display_name = Renamed\n")
    assert run("project", "set", "production_mode", "yes")[:2] == (0, "is_production_mode = on\n")
    with admin(service) as app:
        project = app.get_project()
        assert (project.display_name, project.is_production_mode) == ("Renamed", True)
        app.update_project(
            display_name="authmw local project",
            is_production_mode=False,
            config={"allow_localhost": True, "domains": []},
        )


@pytest.mark.parametrize(
    ("api_url", "given", "fix"),
    [
        # the local service: no dashboard, the command is the fix
        ("http://localhost:8102", None, "authmw project set allow-localhost off"),
        # the hosted service: its dashboard
        (
            "https://api.stack-auth.com",
            None,
            "authmw project set allow-localhost off, or https://app.stack-auth.com/projects/P/domains",
        ),
        # self-hosted: its dashboard's address is not known unless given
        (
            "https://auth.example.com",
            None,
            (
                "authmw project set allow-localhost off, or your dashboard's /projects/P/domains"
                " (--dashboard-url URL prints the link)"
            ),
        ),
        (
            "https://auth.example.com",
            "https://dash.example.com",
            "authmw project set allow-localhost off, or https://dash.example.com/projects/P/domains",
        ),
    ],
)
def test_project_check_fix_links_local_hosted_self_hosted(api_url, given, fix):
    dashboard = _cli_admin.dashboard_for(api_url, given)
    problem = ProductionModeError(LOCALHOST_ALLOWED, "/projects/P/domains", f"{dashboard}/projects/P/domains")
    assert _cli_admin.fix_text(problem, api_url, dashboard) == fix


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("project", "set", "colour", "blue"), "unknown setting 'colour'; one of: display_name,"),
        (("project", "set", "allow_localhost", "maybe"), "allow_localhost takes true or false"),
        (("project", "set", "domains", "ftp://a.example"), "URL must start with http:// or https://"),
        (("keys", "create", "--expires-in", "soon"), "--expires-in takes a number and a unit"),
        (("keys", "revoke", "00000000-0000-4000-8000-000000000000"), "no key set 00000000-0000-4000-8000-000000000000"),
        (("keys", "revoke", "not-a-key-id"), "'not-a-key-id' is not a key set id: ids are UUIDs"),
        (("users", "create", "--email", "not-an-email"), "primary_email"),
    ],
)
def test_errors_are_one_line_with_exit_status_2(run, argv, message):
    status, out, err = run(*argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"authmw {argv[0]}: ") and message in err
    assert "SCHEMA_ERROR" not in err and "=..." not in err  # CLI words, not the wire's or Python's


def test_missing_settings_are_one_line_errors(run, service, tmp_path, monkeypatch):
    for name in ("AUTHMW_PROJECT_ID", "STACK_PROJECT_ID", "NEXT_PUBLIC_STACK_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .authmw/project.env here or above
    status, _, err = run("keys", "list", env=False)
    assert status == 2 and err.count("\n") == 1 and "AUTHMW_PROJECT_ID" in err and "--env-file" in err
    assert "authmw dev --background" in err and "Pass project_id" not in err
    status, _, err = run("keys", "list", "--env-file", str(tmp_path / "nope.env"), env=False)
    assert status == 2 and err.startswith("authmw keys: --env-file: there is no settings file at") and "nope.env" in err
    assert "AuthConfig" not in err and "Pass " not in err  # the command's words, not the Python API's
    status, _, err = run("keys", "list", "--env-file", str(service.env_file.parent), env=False)
    folder = f"authmw keys: --env-file: {service.env_file.parent} is a folder; pass the project.env inside it"
    assert (status, err) == (2, f"{folder} ({service.env_file})\n")
    no_project = tmp_path / "keys-only.env"
    no_project.write_text("AUTHMW_SUPER_SECRET_ADMIN_KEY=sak_x\n")
    status, _, err = run("keys", "list", "--env-file", str(no_project), env=False)
    assert status == 2 and err == (
        f"authmw keys: --env-file {no_project} has no AUTHMW_PROJECT_ID line: use the project.env that "
        "`authmw dev` writes, or add AUTHMW_PROJECT_ID=<the project's id>\n"
    )
    no_admin_key = tmp_path / "server.env"
    no_admin_key.write_text(f"AUTHMW_PROJECT_ID={uuid.uuid4()}\nAUTHMW_SECRET_SERVER_KEY=ssk_x\n")
    status, _, err = run("project", "show", "--env-file", str(no_admin_key), env=False)
    assert status == 2 and err.count("\n") == 1 and "AUTHMW_SUPER_SECRET_ADMIN_KEY" in err
    assert err.startswith(f"authmw project: --env-file {no_admin_key} has no super secret admin key")
    assert "=..." not in err and "A admin" not in err


def test_keys_create_list_revoke(run, service):
    status, out, err = run("keys", "create", "--description", "deploy", "--expires-in", "30d")
    assert status == 0 and "not shown again" in err
    values = dict(line.split("=", 1) for line in out.splitlines())
    assert values["AUTHMW_PROJECT_ID"] == service.project_id
    assert values["AUTHMW_SECRET_SERVER_KEY"].startswith("ssk_") and "AUTHMW_SUPER_SECRET_ADMIN_KEY" not in values
    key_id = re.search(r"Created key set (\S+),", err).group(1)
    status, out, _ = run("keys", "list")
    assert status == 0 and out.splitlines()[0].split() == ["ID", "DESCRIPTION", "STATUS", "CREATED", "EXPIRES", "KEYS"]
    row = next(line for line in out.splitlines() if line.startswith(key_id))
    assert "deploy" in row and " valid " in row and "ssk_..." + values["AUTHMW_SECRET_SERVER_KEY"][-4:] in row
    assert values["AUTHMW_SECRET_SERVER_KEY"] not in out

    config = AuthConfig.from_env(values, api_url=service.url)
    with ServerApp(config) as server:
        assert server.get_project().id == service.project_id
        assert run("keys", "revoke", key_id)[:2] == (0, f"Revoked key set {key_id} (deploy).\n")
        with pytest.raises(InvalidSecretServerKey):
            server.get_project()
    assert run("keys", "revoke", key_id)[:2] == (0, f"Key set {key_id} (deploy) was already revoked.\n")
    listed = json.loads(run("keys", "list", "--json")[1])
    assert next(k for k in listed if k["id"] == key_id)["status"] == "revoked"
    status, out, _ = run("keys", "create", "--admin", "--no-publishable", "--expires-in", "1h")
    assert status == 0 and "AUTHMW_SUPER_SECRET_ADMIN_KEY=sak_" in out and "PUBLISHABLE" not in out


def test_project_permissions_create_list_delete(run, service):
    assert run("permissions", "list")[:2] == (0, "No project permissions.\n")
    assert run("permissions", "create", "docs:read", "--description", "Read the docs")[:2] == (
        0,
        "Created project permission docs:read.\n",
    )
    status, out, _ = run("permissions", "create", "docs:write", "--contains", "docs:read")
    assert status == 0
    status, out, _ = run("permissions", "list")
    assert out.splitlines()[0].split() == ["ID", "DESCRIPTION", "CONTAINS"]
    assert out.splitlines()[2].split() == ["docs:write", "-", "docs:read"]
    listed = json.loads(run("permissions", "list", "--json")[1])
    assert listed[0] == {"id": "docs:read", "description": "Read the docs", "contained_permission_ids": []}
    status, _, err = run("permissions", "create", "docs:read")
    assert status == 2 and "already exists" in err
    status, _, err = run("permissions", "create", "x", "--contains", "admin")  # a team permission
    assert status == 2 and 'Contained permission with ID "admin" not found' in err
    assert run("permissions", "delete", "docs:write")[:2] == (0, "Deleted project permission docs:write (and every grant of it).\n")
    run("permissions", "delete", "docs:read")
    # the API-key settings of API 2.8 are project settings like the others
    assert run("project", "set", "allow_user_api_keys", "on")[0] == 0
    assert admin(service).get_project().config.allow_user_api_keys is True
    run("project", "set", "allow_user_api_keys", "off")


def test_sign_up_rules_set_list_delete(run, service):
    assert run("sign-up-rules", "list")[:2] == (0, "No sign-up rules.\nWhen no rule decides: allow\n")
    status, out, _ = run(
        "sign-up-rules", "set", "no-temp", "--condition", 'emailDomain == "tempmail.example"', "--action", "reject",
        "--name", "Throwaway mail", "--message", "spam wave",
    )
    assert (status, out) == (0, 'Sign-up rule no-temp (on): reject when emailDomain == "tempmail.example"\n')
    assert run("sign-up-rules", "set", "staff", "--condition", "true", "--action", "allow", "--priority", "2")[0] == 0
    assert run("project", "set", "sign-up-default-action", "reject")[:2] == (0, "When no rule decides: reject\n")
    status, out, _ = run("sign-up-rules", "list")
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "PRIORITY", "ACTION", "ON", "CONDITION", "NAME"]
    assert lines[1].split()[:4] == ["staff", "2", "allow", "on"] and lines[2].split()[:4] == ["no-temp", "0", "reject", "on"]
    assert lines[-1] == "When no rule decides: reject"
    listed = json.loads(run("sign-up-rules", "list", "--json")[1])
    assert listed["rules"]["no-temp"]["message"] == "spam wave" and listed["default_action"] == "reject"
    # the rules act: the client tier is refused by the default, the staff rule lets everyone in
    run("sign-up-rules", "set", "staff", "--condition", "true", "--action", "allow", "--disabled")
    with ClientApp(AuthConfig.from_env_file(service.env_file)) as client:
        with pytest.raises(SignUpRejected):
            client.sign_up_with_password(f"cli-{uuid.uuid4().hex[:8]}@example.com", "correct horse")
        run("sign-up-rules", "set", "staff", "--condition", "true", "--action", "allow")
        assert client.sign_up_with_password(f"cli-{uuid.uuid4().hex[:8]}@example.com", "correct horse").user_id
    # bad input: one line naming the problem, exit status 2
    status, _, err = run("sign-up-rules", "set", "bad", "--condition", "email ==", "--action", "reject")
    assert status == 2 and "auth.signUpRules.bad.condition does not parse" in err and "\n" not in err.rstrip("\n")
    status, _, err = run("project", "set", "sign_up_default_action", "maybe")
    assert status == 2 and "takes allow or reject" in err
    assert run("sign-up-rules", "delete", "no-temp")[:2] == (0, "Deleted sign-up rule no-temp.\n")
    run("sign-up-rules", "delete", "staff")
    run("sign-up-rules", "default", "allow")
    assert run("sign-up-rules", "list")[:2] == (0, "No sign-up rules.\nWhen no rule decides: allow\n")


def test_project_set_require_email_verification(run, service):
    with ServerApp(AuthConfig.from_env_file(service.env_file)) as server:
        user = server.users.create(primary_email=f"cli-gate-{uuid.uuid4().hex[:10]}@example.com")
        assert not server.users.get(user.id).is_restricted  # the setting is off by default
        try:
            assert run("project", "set", "require-email-verification", "on")[:2] == (
                0,
                "require_email_verification = on\n",
            )
            assert server.users.get(user.id).restricted_reason == "email_not_verified"
        finally:
            assert run("project", "set", "require_email_verification", "off")[:2] == (
                0,
                "require_email_verification = off\n",
            )
        assert not server.users.get(user.id).is_restricted
    # the admin view does not show the setting (as the service's does not): "-", never a guess
    assert re.search(r"^require_email_verification\s+-$", run("project", "show")[1], re.MULTILINE)


def test_users_create_and_list(run, monkeypatch):
    email = f"cli-{uuid.uuid4().hex[:10]}@example.com"
    monkeypatch.setattr(sys, "stdin", _Stdin("a long enough password\n"))
    status, out, err = run(
        "users", "create", "--email", email, "--display-name", "Ada", "--verified", "--password-stdin"
    )
    user_id = out.strip()
    assert status == 0 and re.fullmatch(r"[0-9a-f-]{36}", user_id) and email in err
    status, out, _ = run("users", "list", "--query", email)
    assert status == 0
    assert out.splitlines()[0].split() == ["ID", "E-MAIL", "NAME", "SIGNED", "UP"]
    assert out.splitlines()[1].split()[:3] == [user_id, email, "Ada"]
    data = json.loads(run("users", "list", "--query", email, "--json")[1])
    assert [u["id"] for u in data] == [user_id] and data[0]["primary_email_verified"] is True
    assert run("users", "list", "--query", "nobody-" + uuid.uuid4().hex)[1].startswith("No users match")


class _Stdin:
    def __init__(self, text: str) -> None:
        self.text = text

    def readline(self) -> str:
        line, _, self.text = self.text.partition("\n")
        return line + "\n"


def test_progress_shows_for_slow_calls(run, monkeypatch):
    monkeypatch.setattr(_cli_admin, "PROGRESS_DELAY_SECONDS", 0)  # every call counts as slow
    status, _, err = run("keys", "list")
    assert status == 0 and err == "Listing the keys...\n"
    monkeypatch.setattr(_cli_admin, "PROGRESS_DELAY_SECONDS", 3600)  # none does
    assert run("keys", "list")[2] == ""


def test_output_into_a_pipe_whose_reader_left_ends_quietly(run, env_file):
    """`authmw users list | head -1`: the reader may be gone before the list is written."""
    email = f"pipe-{uuid.uuid4().hex[:10]}@example.com"
    ServerApp(AuthConfig.from_env_file(env_file)).users.create(primary_email=email)
    command = [sys.executable, "-m", "authmw", "users", "list", "--env-file", env_file]
    # The control: into a pipe that is read, the list is written.
    listed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert listed.returncode == 0 and email in listed.stdout, listed.stderr
    # The reader's end is closed before the command starts: its first write fails (EPIPE).
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")
    # As a person types it.
    shell = subprocess.run(
        f"{sys.executable} -m authmw users list --env-file {env_file} | head -1",
        shell=True, capture_output=True, text=True, timeout=60, check=False,
    )
    assert shell.stderr == "" and shell.stdout.split()[:2] == ["ID", "E-MAIL"]


def test_the_command_in_a_process_of_its_own(env_file):
    done = subprocess.run(
        [sys.executable, "-m", "authmw", "project", "check", "--env-file", env_file],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("Localhost is not allowed in production mode")


def _local_project_folder(service: Any, folder: Any) -> Any:
    """``folder`` with ``.authmw/project.env`` as `authmw dev` writes it there."""
    (folder / ".authmw").mkdir(parents=True)
    (folder / ".authmw" / "project.env").write_text(service.env_file.read_text())
    return folder / ".authmw" / "project.env"


def test_finds_the_project_env_in_this_folder_or_above(run, service, tmp_path, monkeypatch):
    for name in ("AUTHMW_PROJECT_ID", "STACK_PROJECT_ID", "NEXT_PUBLIC_STACK_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    found = _local_project_folder(service, tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, err = run("project", "show", "--json", env=False)
    assert status == 0 and json.loads(out)["id"] == service.project_id and err == ""
    deeper = tmp_path / "src" / "app"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    status, out, err = run("project", "show", "--json", "-v", env=False)
    assert status == 0 and json.loads(out)["id"] == service.project_id
    assert err == f"authmw: settings from {found.resolve()}\n"


def test_the_environment_variables_when_no_project_env_is_found(run, service, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    values = _read_env(service.env_file)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    status, out, err = run("project", "show", "--json", "-v", env=False)
    assert status == 0 and json.loads(out)["id"] == service.project_id
    assert err == (
        f"authmw: settings from the AUTHMW_* environment variables (no .authmw/project.env in {tmp_path} "
        "or a folder above it)\n"
    )
    # a project.env found in the folder comes first; --env-file before both
    other = tmp_path / "other.env"
    other.write_text("AUTHMW_PROJECT_ID=not-a-uuid\n")
    monkeypatch.setenv("AUTHMW_PROJECT_ID", "also-not-a-uuid")
    found = _local_project_folder(service, tmp_path)
    status, out, err = run("project", "show", "--json", "-v", env=False)
    assert status == 0 and err == f"authmw: settings from {found.resolve()}\n"
    status, _, err = run("project", "show", "-v", "--env-file", str(other), env=False)
    assert status == 2 and err.splitlines()[0] == f"authmw: settings from --env-file {other}"
    assert "'not-a-uuid' is not a UUID" in err.splitlines()[1]


def _read_env(path: Any) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_a_service_that_does_not_answer_fails_at_once_in_one_line(run, service, tmp_path):
    from faultserver import FaultServer

    with FaultServer() as server:
        settings = tmp_path / "down.env"
        settings.write_text(service.env_file.read_text() + f"AUTHMW_API_URL={server.api_url('down', 'cli')}\n")
        status, out, err = run("keys", "list", "--env-file", str(settings), env=False)
        assert server.log("down", "cli") and [e["path"] for e in server.log("down", "cli")] == [
            "/api/v1/internal/api-keys"
        ]  # one attempt: no retry of the GET
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"authmw keys: no answer from the service at {server.api_url('down', 'cli')} (")
    assert err.rstrip().endswith(f"or point AUTHMW_API_URL in --env-file {settings} at it.")
    assert "Traceback" not in err


def test_project_set_oauth_provider(run, service):
    """One provider set from JSON (for a real Google sign-in on the local service,
    docs/local-service.md); the project's other providers stay."""
    with admin(service) as app:
        before = {p.id for p in app.get_project().config.oauth_providers}
    google = {
        "id": "google",
        "type": "standard",
        "client_id": "123.apps.googleusercontent.com",
        "client_secret": "GOCSPX-secret",
        "oidc_issuer_url": "https://accounts.google.com",
    }
    status, out, _ = run("project", "set", "oauth-provider", json.dumps(google))
    assert (status, out) == (0, "oauth_provider google = standard (the real provider), issuer https://accounts.google.com\n")
    with admin(service) as app:
        providers = {p.id: p for p in app.get_project().config.oauth_providers}
    assert before <= set(providers)
    assert (providers["google"].client_id, providers["google"].oidc_issuer_url) == (
        google["client_id"],
        "https://accounts.google.com",
    )
    status, _, err = run("project", "set", "oauth_provider", "google")
    assert status == 2 and "takes a JSON object" in err


def test_a_project_env_of_another_account_is_not_used_unless_named(run, service, tmp_path, monkeypatch):
    """Attack: in a shared folder (/tmp) another account leaves `.authmw/project.env` pointing
    at its own service; a command run below it would send what it carries (new users and their
    passwords) there. A found file must be the user's own; naming it with --env-file still works."""
    planted = _local_project_folder(service, tmp_path)
    if os.geteuid() == 0:
        os.chown(planted, 65534, 65534)  # nobody's
    else:  # cannot give a file away: be another account instead
        real = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real + 1)
    deeper = tmp_path / "work"
    deeper.mkdir()
    monkeypatch.chdir(deeper)
    email = f"victim-{uuid.uuid4().hex[:10]}@example.com"
    monkeypatch.setattr(sys, "stdin", _Stdin("their own password\n"))
    status, out, err = run("users", "create", "--email", email, "--password-stdin", env=False)
    assert status == 2 and out == "" and "belongs to another account" in err and f"--env-file {planted}" in err
    assert run("users", "list", "--query", email)[1].startswith("No users match")  # nothing was sent
    status, out, _ = run("project", "show", "--json", "--env-file", str(planted), env=False)  # control: named
    assert status == 0 and json.loads(out)["id"] == service.project_id
