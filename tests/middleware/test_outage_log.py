"""When the auth service cannot be reached: one warning per outage naming the URL tried, one
when it answers again, and one look at start-up that never delays the app. The outage is
real: the local service is stopped and started again on the same port and data folder."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from authmw import AuthConfig
from authmw.dev import LocalService
from authmw.middleware import WSGIAuthMiddleware

from .support import cookie_header

WAIT = 60  # seconds: a generous bound for the start-up check's thread, never a race


def whoami(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    start_response("200 OK", [("content-type", "application/json")])
    return [json.dumps({"id": environ["authmw.user"].id}).encode()]


class Outage:
    """A local service that a test stops and starts again on the same port and data."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.service = LocalService(data_dir, quiet=True).start()
        self.port = self.service.port
        self.config = AuthConfig(
            project_id=self.service.project_id,
            api_url=self.service.url,
            publishable_client_key=self.service.publishable_client_key,
            secret_server_key=self.service.secret_server_key,
        )

    def sign_up(self) -> str:
        r = httpx.post(
            f"{self.service.url}/api/v1/auth/password/sign-up",
            headers={
                "x-stack-project-id": self.config.project_id,
                "x-stack-access-type": "client",
                "x-stack-publishable-client-key": self.config.publishable_client_key or "",
            },
            json={
                "email": f"outage-{time.time_ns()}@example.com",
                "password": "correct horse battery",
                "verification_callback_url": "http://localhost/verify",
            },
        )
        assert r.status_code == 200, r.text
        return str(r.json()["refresh_token"])

    def stop(self) -> None:
        self.service.stop()

    def start(self) -> None:
        self.service = LocalService(self.data_dir, port=self.port, quiet=True).start()


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[Outage]:
    running = Outage(tmp_path)
    yield running
    running.stop()


def warnings(caplog: pytest.LogCaptureFixture, outage: Outage) -> list[str]:
    """This service's warnings (start-up checks of other tests' middleware may log meanwhile)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name.startswith("authmw") and outage.service.url in r.getMessage()
    ]


def test_one_warning_per_outage_naming_the_url_and_one_when_it_answers_again(outage: Outage, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="authmw")
    refresh = outage.sign_up()
    middleware = WSGIAuthMiddleware(whoami, outage.config)
    assert middleware.core.watch.checked.wait(WAIT)
    assert warnings(caplog, outage) == []  # the service answered the start-up check
    client = httpx.Client(transport=httpx.WSGITransport(app=middleware), base_url="http://testserver")
    # Each request needs a refresh: only the refresh token is sent.
    cookie = cookie_header(outage.config.project_id, refresh)

    outage.stop()
    for _ in range(5):
        assert client.get("/", headers={"cookie": cookie}).json() == {"id": None}
    refresh_url = f"{outage.service.url}/api/v1/auth/sessions/current/refresh"
    [warning] = warnings(caplog, outage)
    assert refresh_url in warning and "continuing as anonymous" in warning
    assert refresh not in caplog.text

    outage.start()
    caplog.clear()
    assert client.get("/", headers={"cookie": cookie}).json()["id"] is not None
    client.get("/", headers={"cookie": cookie})
    assert warnings(caplog, outage) == [f"authmw: the auth service at {outage.service.url} answers again."]

    caplog.clear()
    outage.stop()
    other = cookie_header(outage.config.project_id, refresh + "x")  # not remembered: needs the service
    for _ in range(3):
        client.get("/", headers={"cookie": other})
    assert (
        len(warnings(caplog, outage)) == 1 and refresh_url in warnings(caplog, outage)[0]
    )  # a new outage, logged once


def test_a_service_that_does_not_answer_at_start_up_is_logged_without_delaying_it(outage: Outage, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="authmw")
    outage.stop()
    began = time.monotonic()
    middleware = WSGIAuthMiddleware(whoami, outage.config)
    built_in = time.monotonic() - began
    assert middleware.core.watch.checked.wait(WAIT)
    [warning] = warnings(caplog, outage)
    assert f"{outage.service.url}/health failed" in warning and "AUTHMW_API_URL" in warning
    # The check ran in its own thread: building the middleware did not wait for it.
    assert middleware.core.watch.down and built_in < WAIT

    # Requests during the same outage add nothing; the first answer ends it.
    client = httpx.Client(transport=httpx.WSGITransport(app=middleware), base_url="http://testserver")
    client.get("/", headers={"cookie": cookie_header(outage.config.project_id, "r" * 45)})
    assert len(warnings(caplog, outage)) == 1
    outage.start()
    client.get("/", headers={"cookie": cookie_header(outage.config.project_id, "r" * 45)})
    assert warnings(caplog, outage)[1:] == [f"authmw: the auth service at {outage.service.url} answers again."]
