"""The transport over real sockets against the fault-injection server, sync and async."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from faultserver import LEAKED_ACCESS_TOKEN, LEAKED_REFRESH_TOKEN, FaultServer

from authmw import AuthConfig
from authmw._ops import AsyncDriver, SyncDriver
from authmw._session import Session
from authmw._transport import Transport
from authmw.errors import HttpStatusError, InvalidServerResponse, ServiceUnreachable, UserNotFound

from .conftest import unsigned_token

PROJECT = str(uuid.uuid4())
KEY = "pck_" + "k" * 45


@pytest.fixture(scope="module")
def fault() -> Iterator[FaultServer]:
    with FaultServer() as server:
        yield server


class Runner:
    """Runs operations under a real driver whose sleep only records."""

    def __init__(self, flavour: str) -> None:
        self.flavour = flavour
        self.sleeps: list[float] = []
        if flavour == "sync":
            self.driver: Any = SyncDriver(sleep=self.sleeps.append, timeout=5)
        else:

            async def sleep(seconds: float) -> None:
                self.sleeps.append(seconds)

            self.loop = asyncio.new_event_loop()
            self.driver = AsyncDriver(sleep=sleep, timeout=5)

    def run(self, op: Any) -> Any:
        if self.flavour == "sync":
            return self.driver.run(op)
        return self.loop.run_until_complete(self.driver.run(op))

    def close(self) -> None:
        if self.flavour == "sync":
            self.driver.close()
        else:
            self.loop.run_until_complete(self.driver.aclose())
            self.loop.close()


@pytest.fixture(params=["sync", "async"])
def runner(request) -> Iterator[Runner]:
    r = Runner(request.param)
    yield r
    r.close()


@pytest.fixture
def call(fault, runner):
    """call(scenario, method="GET") -> (the result or the exception, the server's log)."""

    def call(scenario: str, method: str = "GET", **kwargs: Any) -> tuple[Any, list[dict[str, Any]]]:
        run = uuid.uuid4().hex
        config = AuthConfig(project_id=PROJECT, api_url=fault.api_url(scenario, run), publishable_client_key=KEY)
        transport = Transport(config, "client", uniform=lambda a, b: 1.0)
        if method in ("POST", "PATCH"):
            kwargs.setdefault("json", {})
        try:
            result: Any = runner.run(transport.call_json(method, "/users/me", **kwargs))
        except Exception as exc:  # the test inspects it
            result = exc
        return result, fault.log(scenario, run)

    return call


def test_ok_carries_the_headers(call):
    result, log = call("ok")
    assert result["ok"] is True
    (entry,) = log
    headers = {k.lower(): v for k, v in entry["headers"].items()}
    assert entry["path"] == "/api/v1/users/me"
    assert headers["x-stack-project-id"] == PROJECT and headers["x-stack-publishable-client-key"] == KEY


def test_dropped_connections_on_get_are_retried(call, runner):
    result, log = call("drop:4")
    assert result["attempt"] == 5 and len(log) == 5
    assert runner.sleeps == [1.0, 2.0, 4.0, 8.0]
    nonces = {e["headers"]["x-stack-random-nonce"] for e in log}
    assert len(nonces) == 5  # every attempt is a new request


def test_get_that_never_connects_is_diagnosed(call, runner):
    result, log = call("drop:99")
    assert isinstance(result, ServiceUnreachable)
    assert result.attempts == 5 and len(log) == 5 and len(runner.sleeps) == 4
    assert "HTTP 200" in result.health and KEY not in str(result)


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_dropped_connection_on_non_idempotent_method_fails_at_once(call, runner, method):
    result, log = call("drop:1", method)
    assert isinstance(result, ServiceUnreachable) and result.attempts == 1
    assert len(log) == 1 and runner.sleeps == []


def test_service_down_health_check_fails_too(call):
    result, _ = call("down", "POST")
    assert isinstance(result, ServiceUnreachable) and "unreachable too" in result.health


def test_nothing_listening(runner):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = AuthConfig(project_id=PROJECT, api_url=f"http://127.0.0.1:{port}", publishable_client_key=KEY)
    with pytest.raises(ServiceUnreachable) as info:
        runner.run(Transport(config, "client").call("POST", "/x", json={}))
    assert f"127.0.0.1:{port}" in str(info.value) and "unreachable too" in info.value.health


def test_429_waits_retry_after(call, runner):
    result, _ = call("429:2:3", "POST")
    assert result["attempt"] == 3 and runner.sleeps == [3.0, 3.0]


def test_429_with_http_date(call, runner):
    result, _ = call("429date:1:30")
    assert (
        result["ok"] and len(runner.sleeps) == 1 and 10 <= runner.sleeps[0] <= 31
    )  # 30 s less however long the machine took


def test_429_without_retry_after_backs_off(call, runner):
    result, _ = call("429bare:2")
    assert result["ok"] and runner.sleeps == [1.0, 2.0]


def test_429_forever_gives_up(call):
    result, log = call("429:99:1")
    assert isinstance(result, HttpStatusError) and result.status == 429 and len(log) == 5


def test_508_with_marker_is_retried(call, runner):
    result, _ = call("508:1", "POST")
    assert result["attempt"] == 2 and runner.sleeps == [1.0]


def test_508_without_marker_is_an_error(call):
    result, log = call("508plain:1")
    assert isinstance(result, HttpStatusError) and result.status == 508 and len(log) == 1


def test_5xx_is_an_http_status_error(call):
    result, log = call("status:503")
    assert isinstance(result, HttpStatusError) and result.status == 503 and result.reason == "Service Unavailable"
    assert "Injected 503" in str(result) and len(log) == 1


def test_known_error(call):
    result, _ = call("known:USER_NOT_FOUND:404")
    assert isinstance(result, UserNotFound) and result.message == "Injected USER_NOT_FOUND"


@pytest.mark.parametrize("scenario", ["mismatch", "malformed", "badjson"])
def test_broken_answers_are_invalid_server_responses(call, scenario):
    result, _ = call(scenario)
    assert isinstance(result, InvalidServerResponse)


@pytest.mark.parametrize(("status", "kind"), [("200", InvalidServerResponse), ("502", HttpStatusError)])
def test_an_answer_that_quotes_tokens_is_reported_without_them(call, status, kind):
    # What the service answered goes into the error's message, and the message into logs: a
    # broken service or proxy that echoes a session must not put its tokens there.
    result, _ = call(f"leaky:{status}")
    assert isinstance(result, kind)
    text = f"{result} {result!r}"
    assert "access_token=[redacted]" in text and "refresh_token=[redacted]" in text
    assert LEAKED_ACCESS_TOKEN[:20] not in text and LEAKED_REFRESH_TOKEN not in text
    if isinstance(result, HttpStatusError):
        assert LEAKED_REFRESH_TOKEN in result.body  # the body itself stays for the program


def test_runs_as_a_script_and_prints_its_url():
    script = Path(__file__).resolve().parent.parent / "faultserver.py"
    proc = subprocess.Popen([sys.executable, str(script), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        response = httpx.get(
            f"{url}/known:USER_NOT_FOUND:404/t/api/v1/users/me", headers={"x-stack-override-error-status": "true"}
        )
        assert response.status_code == 200 and response.headers["x-stack-actual-status"] == "404"
        assert httpx.get(f"{url}/ok/t/health").json() == {"status": "ok"}
        assert [e["path"] for e in httpx.get(f"{url}/__log/known:USER_NOT_FOUND:404/t").json()] == ["/api/v1/users/me"]
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.mark.parametrize("server_tier", [True, False])
def test_expired_access_token_is_refreshed_and_the_call_retried(fault, runner, server_tier):
    run = uuid.uuid4().hex
    config = AuthConfig(
        project_id=PROJECT,
        api_url=fault.api_url("expired:1", run),
        publishable_client_key=KEY,
        secret_server_key="ssk_" + "s" * 45 if server_tier else None,
    )
    stale = unsigned_token({"sub": "u", "exp": time.time() + 600})
    session = Session(config, access_token=stale, refresh_token="r" * 45)
    result = runner.run(Transport(config, "client").call_json("GET", "/users/me", session=session))
    assert result["ok"] is True
    paths = [e["path"] for e in fault.log("expired:1", run)]
    refresh = "/api/v1/auth/sessions/current/refresh" if server_tier else "/api/v1/auth/oauth/token"
    assert paths == ["/api/v1/users/me", refresh, "/api/v1/users/me"]
    assert session.access_token != stale


def test_cors_preflight_is_answered_and_not_counted(fault):
    run = uuid.uuid4().hex
    url = fault.api_url("drop:1", run) + "/api/v1/users/me"
    preflight = httpx.options(url, headers={"origin": "http://localhost:3000", "access-control-request-method": "GET"})
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "*"
    assert fault.log("drop:1", run) == []
