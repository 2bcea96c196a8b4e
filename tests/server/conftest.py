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

import deployment
import pytest
from deployment import LiveService

from authmw import (
    AdminApp,
    AsyncAdminApp,
    AsyncClientApp,
    AsyncServerApp,
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
