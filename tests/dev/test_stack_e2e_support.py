"""What Stack Auth's own e2e suite needs of the local service: the `internal` project seeded with
given keys, Inbucket's read API over the outbox on a port of its own, and no `server` header."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from authmw.dev import LocalService
from authmw_local.bootstrap import ProjectKeys
from authmw_local.inbucket import mailbox_name
from authmw_local.seed import InternalKeys, SeedError, read_internal_keys

from .conftest import Api

#: The shape of Stack's apps/e2e/.env.development (values made up here).
E2E_ENV = """\
STACK_BACKEND_BASE_URL=http://localhost:${NEXT_PUBLIC_STACK_PORT_PREFIX:-81}02
STACK_INTERNAL_PROJECT_ID=internal
STACK_INTERNAL_PROJECT_CLIENT_KEY=publishable-key-for-local-tests
STACK_INTERNAL_PROJECT_SERVER_KEY=secret-server-key-for-local-tests
# a comment
STACK_INTERNAL_PROJECT_ADMIN_KEY="admin-key-for-local-tests"
"""
KEYS = InternalKeys("publishable-key-for-local-tests", "secret-server-key-for-local-tests", "admin-key-for-local-tests")


def seeded_api(service: LocalService) -> Api:
    return Api(
        service.url,
        ProjectKeys("internal", KEYS.publishable_client_key, KEYS.secret_server_key, KEYS.super_secret_admin_key),
    )


def test_the_e2e_env_file_gives_the_three_keys(tmp_path: Path) -> None:
    (tmp_path / ".env.development").write_text(E2E_ENV)
    assert read_internal_keys(tmp_path / ".env.development") == KEYS
    assert "local-tests" not in repr(KEYS)


def test_the_backend_seed_names_are_read_too(tmp_path: Path) -> None:
    (tmp_path / "env").write_text(
        "STACK_SEED_INTERNAL_PROJECT_PUBLISHABLE_CLIENT_KEY=publishable-key-for-local-tests\n"
        "STACK_SEED_INTERNAL_PROJECT_SECRET_SERVER_KEY=secret-server-key-for-local-tests\n"
        "STACK_SEED_INTERNAL_PROJECT_SUPER_SECRET_ADMIN_KEY=admin-key-for-local-tests\n"
    )
    assert read_internal_keys(tmp_path / "env") == KEYS


def test_a_missing_key_names_both_variables(tmp_path: Path) -> None:
    (tmp_path / "env").write_text(E2E_ENV.replace("STACK_INTERNAL_PROJECT_SERVER_KEY", "OTHER"))
    with pytest.raises(SeedError, match="neither STACK_INTERNAL_PROJECT_SERVER_KEY nor STACK_SEED_INTERNAL"):
        read_internal_keys(tmp_path / "env")


def test_a_key_with_spaces_is_refused_without_echoing_it(tmp_path: Path) -> None:
    (tmp_path / "env").write_text(E2E_ENV.replace("secret-server-key-for-local-tests", "has a space in it"))
    with pytest.raises(SeedError) as raised:
        read_internal_keys(tmp_path / "env")
    assert "STACK_INTERNAL_PROJECT_SERVER_KEY" in str(raised.value) and "has a space" not in str(raised.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SeedError, match="cannot read the keys file"):
        read_internal_keys(tmp_path / "nope.env")


def test_seeded_keys_open_the_internal_project_and_survive_a_restart(tmp_path: Path) -> None:
    for _ in range(2):  # the second start finds the set and adds nothing
        with LocalService(tmp_path, quiet=True, internal_keys=KEYS) as service:
            api = seeded_api(service)
            project = api.call("GET", "/projects/current", "client").json()
            assert project["id"] == "internal" and project["display_name"] == "Stack Dashboard"
            config = project["config"]
            assert (config["magic_link_enabled"], config["passkey_enabled"]) == (True, False)
            assert [p["id"] for p in config["enabled_oauth_providers"]] == ["github", "google", "microsoft", "spotify"]
            own = Api.of(service, service.bootstrap.internal)  # the service's own keys still work
            assert own.call("GET", "/projects/current", "client").status_code == 200
            tokens = api.sign_up()
            assert api.call("GET", "/users/me", "client", token=tokens["access_token"]).status_code == 200
    with LocalService(tmp_path, quiet=True) as service, service.app.state.service.db.tx() as c:
        rows = c.execute("SELECT COUNT(*) FROM api_key_sets WHERE project_id = 'internal'").fetchone()[0]
        assert rows == 2


def test_seeded_keys_do_not_open_another_project(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True, internal_keys=KEYS) as service:
        keys = service.bootstrap.project
        forged = Api(
            service.url,
            ProjectKeys(
                keys.project_id, KEYS.publishable_client_key, KEYS.secret_server_key, KEYS.super_secret_admin_key
            ),
        )
        response = forged.call("GET", "/projects/current", "admin")
        assert response.status_code == 401
        assert Api.of(service).call("GET", "/projects/current", "admin").status_code == 200


def test_a_key_of_another_project_cannot_be_seeded(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as service:
        taken = service.bootstrap.project.secret_server_key
    clash = InternalKeys(KEYS.publishable_client_key, taken, KEYS.super_secret_admin_key)
    with pytest.raises(SeedError, match="already belongs to another project"):
        LocalService(tmp_path, quiet=True, internal_keys=clash)


@pytest.mark.parametrize(
    ("address", "name"),
    [("alice@example.com", "alice"), ("Alice+news@Example.com", "alice"), ("a.b-c@x.y", "a.b-c")],
)
def test_mailbox_names_are_inbuckets_local_naming(address: str, name: str) -> None:
    assert mailbox_name(address) == name


def test_the_mail_api_lists_and_reads_messages_oldest_first(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True, internal_keys=KEYS, mail_api_port=0) as service:
        assert service.mail_api_url and service.mail_api_url != service.url
        api = seeded_api(service)
        # the sign-in code first: API 2.8 refuses one for an existing unverified address
        # (USER_EMAIL_ALREADY_EXISTS, service-api B14.5), so it goes out before the sign-up
        sent = api.call(
            "POST",
            "/auth/otp/send-sign-in-code",
            json={
                "email": "mail_box-1@stack-generated.example.com",
                "callback_url": "http://localhost:12345/some-callback-url",
            },
        )
        assert sent.status_code == 200, sent.text
        api.sign_up("Mail_Box-1@stack-generated.example.com")
        api.sign_up("mail_box-10@stack-generated.example.com")  # a longer name is another mailbox
        api.sign_up("mail%box@stack-generated.example.com")  # LIKE wildcards match literally

        listing = httpx.get(f"{service.mail_api_url}/api/v1/mailbox/mail_box-1")
        assert listing.status_code == 200
        messages = listing.json()
        assert [m["subject"].split(":")[0] for m in messages] == [
            "Sign in to Stack Dashboard",
            "Verify your email at Stack Dashboard",
        ]
        first = messages[0]
        assert first["from"] == "Stack Dashboard <noreply@example.com>"
        assert first["to"] == ["<mail_box-1@stack-generated.example.com>"]
        assert "body" not in first and first["mailbox"] == "mail_box-1"
        assert messages[1]["to"] == ["<mail_box-1@stack-generated.example.com>"]  # 2.8 normalises the sign-up's
        assert messages[0]["posix-millis"] <= messages[1]["posix-millis"]

        full = httpx.get(f"{service.mail_api_url}/api/v1/mailbox/mail_box-1/{messages[0]['id']}").json()
        nonce = sent.json()["nonce"]
        assert nonce in full["body"]["html"] and nonce in full["body"]["text"]
        assert full["attachments"] == [] and full["header"]["Subject"] == [messages[0]["subject"]]

        assert httpx.get(f"{service.mail_api_url}/api/v1/mailbox/mail").json() == []
        assert len(httpx.get(f"{service.mail_api_url}/api/v1/mailbox/mail%25box").json()) == 1
        other = httpx.get(f"{service.mail_api_url}/api/v1/mailbox/mail_box-10/{messages[0]['id']}")
        assert other.status_code == 404  # an id is only found in its own mailbox
        assert httpx.get(f"{service.mail_api_url}/api/v1/projects/current").status_code == 404
        assert httpx.get(f"{service.url}/api/v1/mailbox/mail_box-1").status_code == 404  # not on the API port


def test_no_server_header(service: LocalService) -> None:
    response = httpx.get(service.url + "/health")
    assert response.status_code == 200 and "server" not in response.headers


def test_cli_refuses_a_bad_keys_file_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "authmw", "dev", "--data-dir", str(tmp_path), "--internal-keys", str(tmp_path / "no")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    expected = (
        f"authmw dev: --internal-keys: cannot read the keys file {tmp_path / 'no'} (No such file or directory):"
        " pass a readable file."
    )
    assert done.stderr.strip().splitlines() == [expected]


def test_cli_refuses_the_service_port_as_mail_port(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "authmw",
            "dev",
            "--data-dir",
            str(tmp_path),
            "--port",
            "8555",
            "--mail-api-port",
            "8555",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "--mail-api-port 8555 is the service's own --port" in done.stderr


@pytest.mark.parametrize(
    ("version", "creator", "member"),
    [("2.7", [], []), ("2.8", ["team_admin"], ["team_member"])],
)
def test_the_seeded_project_has_the_team_permissions_of_its_version(
    tmp_path: Path, version: str, creator: list[str], member: list[str]
) -> None:
    with LocalService(tmp_path, quiet=True, internal_keys=KEYS, api=version) as service:
        api = seeded_api(service)
        path = "/internal/projects/current" if version == "2.8" else "/projects/current"
        config = api.call("GET", path, "admin").json()["config"]
        assert [p["id"] for p in config["team_creator_default_permissions"]] == creator
        assert [p["id"] for p in config["team_member_default_permissions"]] == member
        assert config["create_team_on_sign_up"] is (version == "2.8")
        tokens = api.sign_up()
        me = api.call("GET", "/users/me", "client", token=tokens["access_token"]).json()
        assert (me["selected_team_id"] is not None) is (version == "2.8")  # 2.8: the personal team
        team = api.call(
            "POST",
            "/teams",
            "client",
            token=tokens["access_token"],
            json={"display_name": "T", "creator_user_id": "me"},
        )
        assert team.status_code == 201, team.text
        rename = api.call(
            "PATCH", f"/teams/{team.json()['id']}", "client", token=tokens["access_token"], json={"display_name": "U"}
        )
        # 2.7.16's internal project gives a team's creator no permission; 2.8.86's team_admin may rename
        assert rename.status_code == (200 if version == "2.8" else 401), rename.text


def test_public_url_is_the_name_the_service_goes_by(tmp_path: Path) -> None:
    """Stack's suite reaches the backend as http://localhost:<prefix>02: token issuers, links in
    e-mails and project.env then name that address, not the socket's 127.0.0.1."""
    import jwt

    with LocalService(tmp_path, quiet=True, public_url="http://localhost.test:4102/") as service:
        assert service.url == "http://localhost.test:4102"
        assert "AUTHMW_API_URL=http://localhost.test:4102\n" in (tmp_path / "project.env").read_text()
        listening = Api(f"http://127.0.0.1:{service.port}", service.bootstrap.project)
        tokens = listening.sign_up()
        issuer = jwt.decode(tokens["access_token"], options={"verify_signature": False})["iss"]
        assert issuer == f"http://localhost.test:4102/api/v1/projects/{service.project_id}"
    with LocalService(tmp_path, quiet=True) as plain:
        assert plain.url == f"http://127.0.0.1:{plain.port}"
