"""The server tier against the real local service over HTTP, each test sync and async.

``flavour(app.call(...))`` runs a call of either app to completion: sync apps return the
value, async apps a coroutine that runs on the test's own event loop. ``flavour.collect``
does the same for iterators.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import deployment
import httpx
import pytest

from authmw import (
    AdminApp,
    AsyncAdminApp,
    AsyncClientApp,
    AsyncServerApp,
    AuthConfig,
    ClientApp,
    ServerApp,
)

PASSWORD = "correct horse battery"
#: Trusted by the local project (allow_localhost is on).
CALLBACK = "http://localhost:3000/handler"


def new_email(tag: str = "user") -> str:
    return f"{tag}-{uuid.uuid4().hex[:12]}@example.com"


class Sync:
    name = "sync"
    client_class, server_class, admin_class = ClientApp, ServerApp, AdminApp

    def __call__(self, value: Any) -> Any:
        return value

    def collect(self, items: Iterable[Any]) -> list[Any]:
        return list(items)

    def close(self, app: Any) -> None:
        app.close()


class Async:
    name = "async"
    client_class, server_class, admin_class = AsyncClientApp, AsyncServerApp, AsyncAdminApp

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __call__(self, value: Any) -> Any:
        return self.loop.run_until_complete(value)

    def collect(self, items: AsyncIterator[Any]) -> list[Any]:
        async def drain() -> list[Any]:
            return [item async for item in items]

        return self(drain())

    def close(self, app: Any) -> None:
        self(app.aclose())


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> Iterator[Sync | Async]:
    runner = Sync() if request.param == "sync" else Async()
    yield runner
    if isinstance(runner, Async):
        runner.loop.close()


class LiveService:
    """A running local service: its config, the outbox, and owner-only project settings."""

    def __init__(self, running: Any) -> None:
        self._running = running
        self.url: str = running.url
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
        if isinstance(self._running, deployment.Deployment):
            deployment.needs_local("the LocalService object")
        return self._running

    def outbox(self, to: str, kind: str | None = None) -> list[dict[str, Any]]:
        return deployment.outbox(self._running, to, kind)

    @property
    def api(self) -> str:
        """The backend version the service answers as ("2.8" or "2.7")."""
        return deployment.api_version(self._running)

    @property
    def team_roles(self) -> tuple[str, str]:
        """The creator's and the member's default team permission (2.8: team_admin / team_member)."""
        return deployment.team_roles(self._running)

    def last_code(self, to: str, kind: str) -> str:
        """The code in the newest e-mail of ``kind`` to ``to``."""
        mails = self.outbox(to, kind)
        assert mails, f"no {kind} e-mail to {to} in the outbox"
        return parse_qs(urlsplit(mails[0]["link"]).query)["code"][0]

    def admin_call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {
            "x-stack-project-id": self.config.project_id,
            "x-stack-access-type": "admin",
            "x-stack-super-secret-admin-key": self.config.super_secret_admin_key or "",
        }
        return httpx.request(method, f"{self.config.api_base}{path}", json=body, headers=headers)

    def set_project_config(self, **config: Any) -> None:
        response = self.admin_call("PATCH", deployment.admin_project_path(self._running), {"config": config})
        assert response.status_code == 200, response.text

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


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with deployment.running(tmp_path_factory.mktemp("server-tier")) as running:
        yield LiveService(running)


@pytest.fixture(scope="session")
def live_27(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """A local service answering as backend 2.7.16, for what only 2.7 has or words its own way."""
    with deployment.running(tmp_path_factory.mktemp("server-tier-27"), api="2.7") as running:
        yield LiveService(running)


@pytest.fixture
def apps(request: pytest.FixtureRequest, flavour: Sync | Async) -> Iterator[Apps]:
    """Apps on the `live` service, or on `live_27` under
    ``@pytest.mark.parametrize("apps", ["2.7"], indirect=True)`` (``["2.7", "2.8"]``: both)."""
    version = getattr(request, "param", "2.8")
    live: LiveService = request.getfixturevalue("live_27" if version == "2.7" else "live")
    opened = Apps(flavour, live)
    yield opened
    opened.close()


class Apps:
    """Opens apps of the test's flavour and closes them afterwards."""

    def __init__(self, flavour: Sync | Async, live: LiveService) -> None:
        self.flavour = flavour
        self.live = live
        self._opened: list[Any] = []
        self._server: Any = None

    def _open(self, app: Any) -> Any:
        self._opened.append(app)
        return app

    @property
    def server(self) -> Any:
        if self._server is None:
            self._server = self._open(self.flavour.server_class(self.live.config))
        return self._server

    def admin(self) -> Any:
        return self._open(self.flavour.admin_class(self.live.config))

    def client(self, **tokens: Any) -> Any:
        return self._open(self.flavour.client_class(self.live.client_config, **tokens))

    def signed_in(self, email: str | None = None) -> tuple[Any, str]:
        """A client app signed in as a new password user, and that user's id."""
        app = self.client()
        result = self.flavour(
            app.sign_up_with_password(email or new_email(), PASSWORD, CALLBACK + "/email-verification")
        )
        return app, result.user_id

    def new_user(self, **fields: Any) -> Any:
        return self.flavour(self.server.users.create(**fields))

    def close(self) -> None:
        for app in self._opened:
            self.flavour.close(app)
