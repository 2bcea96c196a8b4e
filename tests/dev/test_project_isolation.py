"""Project isolation: project A's keys can neither read nor change anything of project B.

Every route of the service's route table (taken from the running app, so a new route is
covered without editing this file) is called with project A's server key, A's admin key and
A's client key plus B's user tokens, with B's ids in the path, the query and the body. Each
call must be refused (or, for a list filtered by a B id, answer nothing of B), and B's
state, read over HTTP with B's own keys, must be the same afterwards.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from authmw.dev import LocalService
from authmw_local.bootstrap import ProjectKeys
from authmw_local.routes import all_routes

from .conftest import Api, unique_email

CALLBACK = "http://localhost:3000/handler/team-invitation"

#: Routes that name no id of anyone and act only on the caller's own project as a whole.
#: Calling them with A's keys could only change A (DELETE /projects/current would remove A and
#: end the test); they are left out because they cannot reach B by construction.
NO_TARGET = {("DELETE", "/api/v1/projects/current"), ("DELETE", "/api/v1/internal/projects/current")}

#: Public by design (service-api A3.2): every project's verification keys are readable by anyone.
PUBLIC = {
    "/api/v1/projects/{project_id}/.well-known/jwks.json",
    "/api/v1/projects-anonymous-users/{project_id}/.well-known/{rest:path}",
}


class ProjectB:
    """A second project made the way a real owner makes one, filled with one of everything."""

    def __init__(self, service: LocalService) -> None:
        internal = Api.of(service, service.bootstrap.internal)
        owner = internal.sign_up()
        internal.version = service.api
        created = internal.create_owned_project(owner, {"display_name": "Project B"})
        assert created.status_code == 201, created.text
        self.project_id: str = created.json()["id"]
        self.admin_headers = {
            "x-stack-project-id": self.project_id,
            "x-stack-access-type": "admin",
            "x-stack-admin-access-token": owner["access_token"],
        }
        self.http = httpx.Client(base_url=service.url, timeout=10)
        self.version = service.api
        self.project_path = "/internal/projects/current" if service.api == "2.8" else "/projects/current"
        self.admin("PATCH", self.project_path, json={"config": {"credential_enabled": True, "sign_up_enabled": True}})
        keys = self.admin(
            "POST",
            "/internal/api-keys",
            json={
                "description": "isolation test",
                "expires_at_millis": int(time.time() * 1000) + 3_600_000,
                "has_publishable_client_key": True,
                "has_secret_server_key": True,
                "has_super_secret_admin_key": False,
            },
        )
        self.api_key_id: str = keys["id"]
        self.api = Api(
            service.url, ProjectKeys(self.project_id, keys["publishable_client_key"], keys["secret_server_key"], "")
        )
        self.admin("POST", "/team-permission-definitions", json={"id": "b_secret", "description": "B only"})
        self.member = self.api.sign_up(unique_email())
        self.other = self.api.sign_up(unique_email())
        self.user_id: str = self.member["user_id"]
        claims = jwt.decode(self.member["access_token"], options={"verify_signature": False})
        # a 2.7 token names no session (nor does 2.7 have the session routes): any uuid then
        self.session_id: str = claims.get("refresh_token_id") or str(uuid.uuid4())
        team = self.server("POST", "/teams", json={"display_name": "B team", "creator_user_id": self.user_id})
        self.team_id: str = team["id"]
        self.server("POST", f"/team-memberships/{self.team_id}/{self.other['user_id']}", json={})
        self.server("POST", f"/team-permissions/{self.team_id}/{self.user_id}/b_secret", json={})
        channel = self.server("POST", "/contact-channels", json=_channel_body(self.user_id))
        self.channel_id: str = channel["id"]
        self.invitation_id: str = self.server(
            "POST",
            "/team-invitations/send-code",
            json={"team_id": self.team_id, "email": unique_email(), "callback_url": CALLBACK},
        )["id"]
        endpoint = self.admin("POST", "/internal/webhook-endpoints", json={"url": "http://127.0.0.1:9/b-hooks"})
        self.webhook_endpoint_id: str = endpoint["id"]
        # 2.8: an e-mail template and a theme of B's own (templates need B's own e-mail server)
        self.template_id, self.theme_id, self.draft_id = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
        if service.api == "2.8":
            smtp = {"type": "standard", "host": "127.0.0.1", "port": 9, "username": "b", "password": "b"}
            smtp |= {"sender_name": "B", "sender_email": "b@b.example"}
            self.admin("PATCH", self.project_path, json={"config": {"email_config": smtp}})
            self.template_id = self.admin("POST", "/internal/email-templates", json={"display_name": "B mail"})["id"]
            self.theme_id = self.admin("POST", "/internal/email-themes", json={"display_name": "B theme"})["id"]
            self.draft_id = self.admin("POST", "/internal/email-drafts", json={"display_name": "B draft"})["id"]

    def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, "/api/v1" + path, headers=self.admin_headers, **kwargs)
        assert response.status_code in (200, 201), response.text
        return response.json()

    def server(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.api.call(method, path, "server", **kwargs)
        assert response.status_code in (200, 201), response.text
        return response.json()

    @property
    def ids(self) -> set[str]:
        return {
            self.project_id,
            self.user_id,
            self.other["user_id"],
            self.team_id,
            self.channel_id,
            self.invitation_id,
            self.api_key_id,
            self.template_id,
            self.theme_id,
            self.draft_id,
        }

    def state(self) -> dict[str, Any]:
        """Everything of B that a refused call could have changed, read with B's own keys."""
        users = self.server("GET", "/users", params={"include_anonymous": "true"} if self.version == "2.8" else {})
        users = users["items"]
        state = {
            "project": self.admin("GET", self.project_path),
            "users": users,
            "each_user": [self.server("GET", f"/users/{u['id']}") for u in users],
            "teams": self.server("GET", "/teams")["items"],
            "profiles": self.server("GET", "/team-member-profiles", params={"team_id": self.team_id})["items"],
            "permissions": self.server("GET", "/team-permissions", params={"team_id": self.team_id})["items"],
            "channels": self.server("GET", "/contact-channels", params={"user_id": self.user_id})["items"],
            "invitations": self.server("GET", "/team-invitations", params={"team_id": self.team_id})["items"],
            "definitions": self.admin("GET", "/team-permission-definitions")["items"],
            "api_keys": self.admin("GET", "/internal/api-keys")["items"],
            "webhook_endpoints": self.admin("GET", "/internal/webhook-endpoints")["items"],
        }
        if self.version == "2.8":
            state["sessions"] = self.server("GET", "/auth/sessions", params={"user_id": self.user_id})["items"]
            state["email_templates"] = self.admin("GET", "/internal/email-templates")["templates"]
            state["email_themes"] = self.admin("GET", "/internal/email-themes")["themes"]
            state["email_theme"] = self.admin("GET", f"/internal/email-themes/{self.theme_id}")
            state["email_drafts"] = self.admin("GET", "/internal/email-drafts")["drafts"]
        else:
            state["templates"] = self.admin("GET", "/email-templates")["items"]
        return state


def _channel_body(user_id: str) -> dict[str, Any]:
    return {"user_id": user_id, "type": "email", "value": unique_email(), "used_for_auth": False, "is_verified": False}


@pytest.fixture(scope="module", params=["2.7", "2.8"])
def isolated(request: pytest.FixtureRequest) -> Iterator[tuple[Api, ProjectB]]:
    """A service of its own (of each API version): the calls below change project A freely."""
    import tempfile

    with tempfile.TemporaryDirectory() as data_dir, LocalService(data_dir, quiet=True, api=request.param) as service:
        yield Api.of(service), ProjectB(service)


def _path_values(b: ProjectB) -> dict[str, str]:
    return {
        "user_id": b.user_id,
        "team_id": b.team_id,
        "permission_id": "b_secret",
        "contact_channel_id": b.channel_id,
        "api_key_id": b.api_key_id,
        "invitation_id": b.invitation_id,
        "provider_id": "github",
        "provider_account_id": "b-account",
        "notification_category_id": "4f6f8873-3d04-46bd-8bef-18338b1a1b4c",
        "type": "email_verification",
        "project_id": b.project_id,
        "session_id": b.session_id,
        "endpoint_id": b.webhook_endpoint_id,
        "level": "environment",
        "templateId": b.template_id,
        "id": b.theme_id,
        "draft_id": b.draft_id,
        # payments: B's team as a customer (only `internal` has items; A must not see B's team)
        "customer_type": "team",
        "customer_id": b.team_id,
        "item_id": "dashboard_admins",
    }


def _calls() -> list[tuple[str, str]]:
    calls = []
    for route in all_routes():
        path = getattr(route, "path", "")
        if not path.startswith("/api/v1/") or path in PUBLIC:
            continue
        for method in sorted(set(getattr(route, "methods", None) or ()) - {"HEAD"}):
            if (method, path) not in NO_TARGET:
                calls.append((method, path))
    return calls


CALLS = _calls()
ID_IN_PATH = re.compile(
    r"\{(user_id|team_id|contact_channel_id|api_key_id|invitation_id|permission_id|session_id|endpoint_id"
    r"|templateId|id|draft_id|customer_id)\}"
)


def test_the_route_table_is_covered() -> None:
    """A guard against the enumeration silently finding nothing (or losing the id routes)."""
    assert len(CALLS) > 60
    assert ("DELETE", "/api/v1/team-memberships/{team_id}/{user_id}") in CALLS
    assert ("PATCH", "/api/v1/internal/api-keys/{api_key_id}") in CALLS


def _send(a: Api, b: ProjectB, method: str, path: str, tier: str, *, as_b_user: bool) -> httpx.Response:
    url = re.sub(r"\{(\w+)\}", lambda m: _path_values(b)[m.group(1)], path)
    ids = {
        "user_id": b.user_id,
        "team_id": b.team_id,
        "creator_user_id": b.user_id,
        "contact_channel_id": b.channel_id,
        "selected_team_id": b.team_id,
    }
    headers = a.headers(tier, access_token=b.member["access_token"] if as_b_user else None)
    if as_b_user:
        headers["x-stack-refresh-token"] = b.member["refresh_token"]
    kwargs: dict[str, Any] = {"params": ids}
    if method != "GET":
        kwargs["json"] = {**ids, "email": unique_email(), "callback_url": CALLBACK}
    return a.http.request(method, url, headers=headers, **kwargs)


@pytest.mark.parametrize(("tier", "as_b_user"), [("server", False), ("admin", False), ("client", True)])
def test_project_a_cannot_reach_project_b(isolated: tuple[Api, ProjectB], tier: str, as_b_user: bool) -> None:
    a, b = isolated
    before = b.state()
    leaks = []
    for method, path in CALLS:
        response = _send(a, b, method, path, tier, as_b_user=as_b_user)
        names_b_in_path = ID_IN_PATH.search(path) is not None
        if response.status_code >= 500:
            leaks.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
        elif names_b_in_path and response.status_code < 400:
            leaks.append(f"{method} {path}: {response.status_code} for B's ids {response.text[:200]}")
        elif response.status_code < 400 and any(i in response.text for i in b.ids):
            leaks.append(f"{method} {path}: answered with B's data {response.text[:200]}")
    assert leaks == []
    assert b.state() == before
    # B's own session still works: nothing of it was revoked or changed by A's calls.
    refreshed = b.api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": b.member["refresh_token"]}
    )
    assert refreshed.status_code == 200, refreshed.text


def test_the_membership_delete_of_the_report_is_refused(isolated: tuple[Api, ProjectB]) -> None:
    """The reported hole: A's server key removed a membership of B."""
    a, b = isolated
    for tier in ("server", "admin"):
        response = a.call("DELETE", f"/team-memberships/{b.team_id}/{b.other['user_id']}", tier)
        assert response.status_code == 404, response.text
        assert response.headers["x-stack-known-error"] in ("TEAM_NOT_FOUND", "TEAM_MEMBERSHIP_NOT_FOUND")
    members = b.server("GET", "/team-member-profiles", params={"team_id": b.team_id})["items"]
    assert {m["user_id"] for m in members} == {b.user_id, b.other["user_id"]}


#: Tables without a project column, or read across projects on purpose: the service's own
#: metadata, signing keys (scoped by their `scope` string), the developer's mailbox of every
#: project on this machine (/dev/outbox, /dev/mailbox: no keys, localhost only) and SQLite's catalogue.
UNSCOPED_TABLES = ("meta", "signing_keys", "sent_emails", "sqlite_master")


#: Statements that find the project of an OAuth flow from its unguessable state (the provider's
#: redirect carries no project header), and the project of a refresh token handed to CLI
#: sign-in (routes/cli_auth.py: another project's token is refused with the service's own
#: message, and a row is used only when its project is the request's); everything read
#: afterwards is scoped to that project.
FINDS_THE_PROJECT = (
    "SELECT project_id FROM verification_codes",
    "SELECT project_id, data, expires_at_millis",
    "SELECT id, project_id, user_id, expires_at_millis FROM refresh_tokens WHERE token_hash = ?",
)

#: Webhooks (authmw/dev/webhooks.py) read the messages of every project on purpose: the sender
#: serves them all (each message names its project and endpoint), the pre-commit hook renders
#: the rows the committing transaction wrote, and /dev/webhooks lists them all like the mailbox.
SERVES_EVERY_PROJECT = (
    "SELECT DISTINCT id, project_id, type, subject FROM webhook_messages WHERE payload IS NULL",
    "SELECT m.rowid AS n, m.project_id",
    "SELECT 1 FROM webhook_messages WHERE status = ?",
    "SELECT m.*, e.url FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id ORDER BY",
)


def _top_level(sql: str) -> str:
    """`sql` with every parenthesised group emptied, so that only its top level remains."""
    previous = None
    while previous != sql:
        previous, sql = sql, re.sub(r"\([^()]*\)", "()", sql)
    return sql


def test_every_sql_statement_names_its_project() -> None:
    """The audit as a test: a literal SQL statement on a project table must say its project.

    A WHERE clause must test project_id at its top level, joined by AND: `WHERE project_id = ?
    AND (a = ? OR b = ?)` passes, `WHERE a = ? OR (project_id = ? AND b = ?)` does not.
    """
    import ast
    from pathlib import Path

    import authmw_local

    unscoped, checked = [], 0
    for file in sorted(Path(authmw_local.__file__).parent.rglob("*.py")):
        if file.name == "db.py":  # schema and migrations
            continue
        source = file.read_text()
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("execute", "executemany")):
                continue
            if not node.args or isinstance(node.args[0], ast.Name):  # built above from a scoped prefix
                continue
            segment = ast.get_source_segment(source, node.args[0]) or ""
            if segment.startswith("sql +"):
                continue
            try:
                sql = ast.literal_eval(node.args[0])
            except ValueError:  # an f-string: judge its source text
                sql = segment
            if any(re.search(rf"\b{table}\b", sql) for table in UNSCOPED_TABLES) or sql == "SELECT 1":
                continue
            if sql.startswith(FINDS_THE_PROJECT + SERVES_EVERY_PROJECT):
                continue
            checked += 1
            top = _top_level(sql)
            where = re.search(r"\bWHERE\b(.*)", top, re.S)
            if re.search(r"\b(FROM|UPDATE|INTO) projects\b", top):
                scoped = where is None or "id" in where.group(1)
            elif where is None:
                scoped = "project_id" in sql  # an INSERT names the column
            else:
                scoped = "project_id" in where.group(1) and not re.search(r"\bOR\b", where.group(1))
            if not scoped:
                unscoped.append(f"{file.name}:{node.lineno}: {sql[:120]}")
    assert checked > 80  # the walk found the statements (97 when written)
    assert unscoped == []
