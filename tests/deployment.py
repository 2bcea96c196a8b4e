"""Where the live suites (client, server, middleware, adapters) run.

By default each suite starts the embedded local service. Setting ``AUTHMW_TEST_API_URL``
(plus the project's keys) runs the same tests against any running deployment of the service,
for example a self-hosted one::

    AUTHMW_TEST_API_URL=https://auth.example.com \\
    AUTHMW_TEST_ENV_FILE=test-project.env \\
    AUTHMW_TEST_MAIL_DIR=/var/mail/sink \\
    .venv/bin/python -m pytest tests/core tests/server tests/middleware tests/django tests/flask

The env file (or the environment) holds ``AUTHMW_PROJECT_ID``, ``AUTHMW_PUBLISHABLE_CLIENT_KEY``,
``AUTHMW_SECRET_SERVER_KEY`` and ``AUTHMW_SUPER_SECRET_ADMIN_KEY`` of a project made for the
tests (they create users, teams and settings in it). E-mailed codes are read from
``AUTHMW_TEST_MAIL_DIR``, a folder where an SMTP sink writes one ``.eml`` file per message;
``AUTHMW_TEST_OTHER_ENV_FILE`` names a second project for the cross-project tests. Tests that
need what only the local service has (its outbox without a mail folder, its clock, tokens of a
chosen lifetime, stopping it) are skipped with the reason. See docs/testing.md.
"""

from __future__ import annotations

import email
import email.policy
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from authmw import AuthConfig
from authmw._config import read_env_file

TARGET_URL = "AUTHMW_TEST_API_URL"
TARGET_ENV_FILE = "AUTHMW_TEST_ENV_FILE"
OTHER_ENV_FILE = "AUTHMW_TEST_OTHER_ENV_FILE"
MAIL_DIR = "AUTHMW_TEST_MAIL_DIR"
#: Outbox kinds by the handler page their link opens.
KIND_BY_PAGE = {
    "email-verification": "email_verification",
    "password-reset": "password_reset",
    "magic-link-callback": "magic_link",
    "team-invitation": "team_invitation",
}


def target_url() -> str | None:
    return os.environ.get(TARGET_URL) or None


def api_version(running: Any) -> str:
    """The backend version a service answers as: a LocalService's `api`, else AUTHMW_TEST_API
    (default 2.8, the hosted service's)."""
    return str(getattr(running, "api", None) or os.environ.get("AUTHMW_TEST_API", "2.8"))


def team_roles(running: Any) -> tuple[str, str]:
    """The creator's and the member's default team permission of a project the backend made:
    2.8.86's `team_admin` / `team_member` (2.7.16: `admin` / `member`)."""
    return ("team_admin", "team_member") if api_version(running) == "2.8" else ("admin", "member")


def admin_project_path(running: Any) -> str:
    """Where the admin tier reads and changes the project: 2.8 moved it (service-api B14.4)."""
    return "/internal/projects/current" if api_version(running) == "2.8" else "/projects/current"


def client_headers(running: Any) -> dict[str, str]:
    """The client tier's headers for the project of ``running``."""
    return {
        "x-stack-project-id": running.project_id,
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": running.publishable_client_key or "",
    }


def client_call(running: Any, method: str, path: str, token: str | None = None, **body: Any) -> Any:
    """``method /api/v1{path}`` on the client tier, as the user of ``token`` if given; the JSON
    of the answer, which must be a success."""
    headers = client_headers(running)
    if token:
        headers["x-stack-access-token"] = token
    response = httpx.request(method, f"{running.url}/api/v1{path}", headers=headers, json=body)
    assert response.status_code < 300, response.text
    return response.json()


def admin_call(running: Any, method: str, path: str, body: Any = None) -> httpx.Response:
    """``method /api/v1{path}`` as the owner of the project of ``running`` (the admin tier)."""
    headers = {
        "x-stack-project-id": running.project_id,
        "x-stack-access-type": "admin",
        "x-stack-super-secret-admin-key": running.super_secret_admin_key or "",
    }
    return httpx.request(method, f"{running.url}/api/v1{path}", json=body, headers=headers)


def set_project_config(running: Any, **config: Any) -> None:
    """Change settings of the project of ``running`` as its owner; the service must accept them."""
    response = admin_call(running, "PATCH", admin_project_path(running), {"config": config})
    assert response.status_code == 200, response.text


@dataclass
class Deployment:
    """A running service and one of its projects: the attributes of a ``LocalService``."""

    url: str
    project_id: str
    publishable_client_key: str | None
    secret_server_key: str | None
    super_secret_admin_key: str | None
    mail_dir: Path | None = None
    _seen: dict[tuple[str, str | None], int] = field(default_factory=dict, repr=False)

    @property
    def config(self) -> dict[str, str]:
        """The project's settings as ``AUTHMW_*`` variables, like ``LocalService.config``."""
        values = {
            "AUTHMW_API_URL": self.url,
            "AUTHMW_PROJECT_ID": self.project_id,
            "AUTHMW_PUBLISHABLE_CLIENT_KEY": self.publishable_client_key,
            "AUTHMW_SECRET_SERVER_KEY": self.secret_server_key,
            "AUTHMW_SUPER_SECRET_ADMIN_KEY": self.super_secret_admin_key,
        }
        return {key: value for key, value in values.items() if value}

    def outbox(self, to: str, kind: str | None = None) -> list[dict[str, Any]]:
        """E-mails to ``to`` (of ``kind``), newest first: ``kind``, ``to``, ``subject``,
        ``link``, ``text``.

        A deployment delivers mail after answering, so each read waits (up to
        ``AUTHMW_TEST_MAIL_WAIT`` seconds, default 30) for a message that the last read of the
        same address and kind did not see: tests read mail after asking for a new one.
        """
        if self.mail_dir is None:
            pytest.skip(f"reads e-mailed codes: set {MAIL_DIR} to the folder where the deployment's SMTP sink writes")
        folder = self.mail_dir

        def read() -> list[dict[str, Any]]:
            return [item for item in read_mail_dir(folder, to) if kind is None or item["kind"] == kind]

        key = (to.lower(), kind)
        deadline = time.monotonic() + float(os.environ.get("AUTHMW_TEST_MAIL_WAIT", "30"))
        items = read()
        while len(items) <= self._seen.get(key, 0) and time.monotonic() < deadline:
            time.sleep(0.1)  # waiting on the deployment's SMTP delivery, not on our own code
            items = read()
        self._seen[key] = len(items)
        return items


def read_mail_dir(folder: Path, to: str) -> list[dict[str, Any]]:
    found: list[tuple[float, dict[str, Any]]] = []
    for path in folder.glob("*.eml"):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if to.lower() not in str(message.get("To", "")).lower():
            continue
        body = message.get_body(preferencelist=("plain", "html"))
        text = body.get_content() if body is not None else ""
        link = next((word for word in text.split() if word.startswith(("http://", "https://")) and "code=" in word), "")
        page = urlsplit(link).path.rstrip("/").rsplit("/", 1)[-1]
        item = {
            "kind": KIND_BY_PAGE.get(page, page),
            "to": str(message["To"]),
            "subject": message["Subject"],
            "link": link,
            "text": text,
        }
        found.append((path.stat().st_mtime, item))
    return [item for _, item in sorted(found, key=lambda pair: -pair[0])]


def _from_env(env_file_var: str) -> Deployment:
    env = dict(os.environ)
    if os.environ.get(env_file_var):
        env = {**read_env_file(os.environ[env_file_var]), **{k: v for k, v in os.environ.items() if k == TARGET_URL}}
    url = os.environ[TARGET_URL].rstrip("/").removesuffix("/api/v1")
    project_id = env.get("AUTHMW_PROJECT_ID") or env.get("STACK_PROJECT_ID")
    if not project_id:
        pytest.fail(f"{TARGET_URL} is set: give the test project's AUTHMW_PROJECT_ID and keys, or {env_file_var}")
    mail = os.environ.get(MAIL_DIR)
    return Deployment(
        url=url,
        project_id=project_id,
        publishable_client_key=env.get("AUTHMW_PUBLISHABLE_CLIENT_KEY"),
        secret_server_key=env.get("AUTHMW_SECRET_SERVER_KEY"),
        super_secret_admin_key=env.get("AUTHMW_SUPER_SECRET_ADMIN_KEY"),
        mail_dir=Path(mail) if mail else None,
    )


def needs_local(what: str) -> None:
    """Skip the calling test when the suites target another deployment."""
    if target_url():
        pytest.skip(f"needs the embedded local service ({what}); {TARGET_URL} targets {target_url()}")


@contextmanager
def running(data_dir: Path, *, other_project: bool = False, **options: Any) -> Iterator[Any]:
    """The service a suite runs against: the target deployment, or a new local service.

    ``options`` are the local service's (``access_token_ttl``, ``clock``, ...); a suite that
    needs them cannot run against another deployment and is skipped there.
    """
    if target_url():
        if options:
            pytest.skip(f"needs the embedded local service ({', '.join(options)}); {TARGET_URL} targets {target_url()}")
        if other_project:
            if not os.environ.get(OTHER_ENV_FILE):
                pytest.skip(f"needs a second project of the deployment: set {OTHER_ENV_FILE}")
            deployment = _from_env(OTHER_ENV_FILE)
        else:
            deployment = _from_env(TARGET_ENV_FILE)
        health = httpx.get(f"{deployment.url}/health", timeout=10)
        if health.status_code != 200:
            pytest.fail(f"{TARGET_URL}={deployment.url} does not answer /health with 200 ({health.status_code})")
        yield deployment
        return
    from authmw.dev import LocalService

    service = LocalService(data_dir, port=0, quiet=True, **options).start()
    try:
        yield service
    finally:
        service.stop()


def local_outbox(url: str, to: str) -> list[dict[str, Any]]:
    """The local service's outbox (``GET /dev/outbox``), newest first."""
    response = httpx.get(f"{url}/dev/outbox", params={"to": to})
    assert response.status_code == 200, response.text
    return response.json()["items"]  # type: ignore[no-any-return]


def outbox(service: Any, to: str, kind: str | None = None) -> list[dict[str, Any]]:
    """E-mails to ``to`` (of ``kind``) from whichever service the suite runs against."""
    if isinstance(service, Deployment):
        return service.outbox(to, kind)
    return [item for item in local_outbox(service.url, to) if kind is None or item["kind"] == kind]


class LiveService:
    """The service a suite runs against (a ``LocalService`` or a ``Deployment``): its config, the
    outbox, and owner-only project settings."""

    def __init__(self, running: Any) -> None:
        self._running = running
        self.url: str = running.url
        self.project_id: str = running.project_id
        self.config = AuthConfig(
            project_id=running.project_id,
            api_url=running.url,
            publishable_client_key=running.publishable_client_key,
            secret_server_key=running.secret_server_key,
            super_secret_admin_key=running.super_secret_admin_key,
        )
        self.client_config = self.config.with_(secret_server_key=None, super_secret_admin_key=None)

    @property
    def running(self) -> Any:
        """The ``LocalService`` itself; skips the test when the suites target another deployment."""
        if isinstance(self._running, Deployment):
            needs_local("the LocalService object")
        return self._running

    def outbox(self, to: str, kind: str | None = None) -> list[dict[str, Any]]:
        return outbox(self._running, to, kind)

    @property
    def api(self) -> str:
        """The backend version the service answers as ("2.8" or "2.7"); for a deployment,
        AUTHMW_TEST_API (default 2.8)."""
        return api_version(self._running)

    @property
    def team_roles(self) -> tuple[str, str]:
        """The creator's and the member's default team permission (2.8: team_admin / team_member)."""
        return team_roles(self._running)

    @property
    def admin_project_path(self) -> str:
        """Where the admin tier reads and changes the project: 2.8 moved it (service-api B14.4)."""
        return admin_project_path(self._running)

    def last_code(self, to: str, kind: str) -> str:
        """The code in the newest e-mail of ``kind`` to ``to``."""
        mails = self.outbox(to, kind)
        assert mails, f"no {kind} e-mail to {to} in the outbox"
        return parse_qs(urlsplit(mails[0]["link"]).query)["code"][0]

    def admin_call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        return admin_call(self._running, method, path, body)

    def set_project_config(self, **config: Any) -> None:
        set_project_config(self._running, **config)

    def lacks(self, method: str, path: str) -> bool:
        """Whether the service has no route for ``method path`` (a plain 404 or 405)."""
        response = self.admin_call(method, path, {} if method != "GET" else None)
        unknown = response.status_code == 404 and "does not exist" in response.text
        return unknown or response.status_code == 405

    def require(self, method: str, path: str, section: str) -> None:
        """Fail the test, naming the gap, when the local service lacks an endpoint of the contract
        (a missing endpoint is a failure, never an expected one)."""
        if self.lacks(method, path):
            pytest.fail(f"local service gap: {method} /api/v1{path} is not implemented (contract {section})")
