"""The refresh rules of service-api C4 in the middleware, on an injected clock.

A token is used while at least 20 s of it remain (``REQUIRED_VALIDITY_MS``); with less it is
refreshed, and a token this process fetched is handed to later requests under the same rule.
A refresh token the service refused is remembered, so a client repeating it costs no further
refresh calls. Each test moves the middleware's clock instead of waiting for real time.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from authmw import AuthConfig
from authmw._tokens import REQUIRED_VALIDITY_MS, token_expiry
from authmw.middleware import WSGIAuthMiddleware
from authmw.middleware._core import REFUSED_TTL

from .support import CountingSyncTransport, cookie_header, cookie_value, set_cookies

MARGIN = REQUIRED_VALIDITY_MS / 1000


class Clock:
    """The middleware's time: starts at real time and moves only when a test says so."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def whoami(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    user = environ["authmw.user"]
    start_response("200 OK", [("content-type", "application/json")])
    return [json.dumps({"id": user.id}).encode()]


class App:
    """The WSGI middleware on ``clock``, its service calls counted."""

    def __init__(self, config: AuthConfig, clock: Clock) -> None:
        self.transport = CountingSyncTransport()
        middleware = WSGIAuthMiddleware(
            whoami, config, clock=clock, http=lambda: httpx.Client(transport=self.transport)
        )
        self.client = httpx.Client(transport=httpx.WSGITransport(app=middleware), base_url="http://testserver")

    def get(self, cookie: str) -> httpx.Response:
        return self.client.get("/", headers={"cookie": cookie})

    @property
    def refreshes(self) -> int:
        return self.transport.refreshes


def expiry(token: str) -> float:
    exp = token_expiry(token)
    assert exp is not None
    return exp


def access_written(r: httpx.Response) -> str | None:
    written = set_cookies(r).get("stack-access")
    return json.loads(cookie_value(written))[1] if written else None


def test_a_token_with_exactly_the_margin_left_is_used_and_one_a_little_short_is_refreshed(local_service) -> None:
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    clock.now = expiry(s.access_token) - MARGIN
    r = app.get(cookie)
    assert r.json() == {"id": s.user_id} and app.refreshes == 0 and access_written(r) is None

    clock.now = expiry(s.access_token) - MARGIN + 0.05  # 19.95 s left: the flaky test's case
    r = app.get(cookie)
    assert r.json() == {"id": s.user_id} and app.refreshes == 1
    assert access_written(r) not in (None, s.access_token)


def test_a_fetched_token_is_handed_to_late_requests_only_while_it_has_the_margin(local_service) -> None:
    """The old rule reused a short-lived fresh token for half its life: a token with 19.95 s
    left was handed out again and the cookie was not rewritten."""
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    old_cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    clock.now = expiry(s.access_token)  # the old token has expired
    fresh = access_written(app.get(old_cookie))
    assert fresh is not None and app.refreshes == 1

    clock.now = expiry(fresh) - MARGIN  # late requests with the old cookies: reused, no call
    for _ in range(3):
        assert access_written(app.get(old_cookie)) == fresh
    assert app.refreshes == 1

    clock.now = expiry(fresh) - MARGIN + 0.05  # now the fetched token is short too: refresh again
    newer = access_written(app.get(old_cookie))
    assert app.refreshes == 2 and newer not in (None, fresh)


def test_a_repeated_cookie_is_served_from_memory_only_while_its_token_has_the_margin(local_service) -> None:
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    assert app.get(cookie).json() == {"id": s.user_id}  # remembered for this Cookie value
    clock.now = expiry(s.access_token) - MARGIN + 0.05
    r = app.get(cookie)
    assert app.refreshes == 1 and access_written(r) not in (None, s.access_token)


@pytest.mark.parametrize("length", [45, 5000])  # kept as it is / as a digest
def test_a_refused_refresh_token_costs_one_refresh_call_however_often_it_comes(local_service, length: int) -> None:
    clock = Clock()
    app = App(local_service.config, clock)
    made_up = cookie_header(local_service.project_id, "m" * length)
    for _ in range(200):
        r = app.get(made_up)
        assert r.json() == {"id": None}
        assert cookie_value(set_cookies(r)[f"stack-refresh-{local_service.project_id}"]) == ""
    assert app.refreshes == 1

    clock.now += REFUSED_TTL  # remembered for a bounded time, then asked again
    app.get(made_up)
    assert app.refreshes == 2


def test_a_refused_refresh_token_signs_out_every_cookie_that_carries_it(local_service) -> None:
    """Once this process sees the service refuse a refresh token, a still-valid access token
    paired with it (another tab's cookie, remembered or not) no longer signs anyone in."""
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    valid = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    assert app.get(valid).json() == {"id": s.user_id}  # remembered as signed in
    local_service.sign_out(s)
    refresh_only = cookie_header(local_service.project_id, s.refresh_token)
    assert app.get(refresh_only).json() == {"id": None} and app.refreshes == 1
    r = app.get(valid)
    assert r.json() == {"id": None} and app.refreshes == 1
    assert cookie_value(set_cookies(r)["stack-access"]) == ""


def test_revocation_window_ends_when_the_held_access_token_needs_refreshing(local_service) -> None:
    """docs/security.md: a refresh token revoked at the service keeps signing its user in on
    a process that has not seen it refused, until the access token it holds for it has less
    than 20 s left; then the refresh is refused and the cookies are deleted."""
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    clock.now = expiry(s.access_token)
    fresh = access_written(app.get(cookie))  # this process now holds a fresh token
    assert fresh is not None
    local_service.sign_out(s)  # revoked at the service

    clock.now = expiry(fresh) - MARGIN
    assert app.get(cookie).json() == {"id": s.user_id}  # inside the window
    clock.now = expiry(fresh) - MARGIN + 0.05
    r = app.get(cookie)
    assert r.json() == {"id": None} and app.refreshes == 2
    assert cookie_value(set_cookies(r)[f"stack-refresh-{local_service.project_id}"]) == ""


def test_the_refreshed_token_is_used_even_when_it_is_short_of_the_margin(local_service, caplog) -> None:
    """A clock 10 s short of the service's token lifetime ahead: every fresh token has 10 s
    left (+ the seconds the call takes, far less than 10). It serves the request that
    fetched it, with one warning, as the session and the React store do."""
    s, clock = local_service.sign_up(), Clock()
    app = App(local_service.config, clock)
    clock.now = time.time() + local_service.service.access_token_ttl - 10
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    r = app.get(cookie)
    assert r.json() == {"id": s.user_id} and app.refreshes == 1
    assert access_written(r) not in (None, s.access_token)
    app.get(cookie)
    assert app.refreshes == 2  # not handed out again
    assert sum("valid for only" in m for m in caplog.messages) == 1


@pytest.mark.parametrize(("scenario", "status"), [("429", 503), ("status:408", 503), ("status:400", 200)])
def test_a_rate_limited_refresh_is_the_service_unavailable_not_a_refusal(scenario: str, status: int) -> None:
    """429 (rate limited, answered again and again) and 408 say "not now", as a 5xx does: with
    on_refresh_unavailable="error" the request gets the 503, not an anonymous answer, and
    nothing is ended (an adapter keeps its own session: _core.UNCONFIRMED_SESSION). The
    control: a plain 400 is a refusal of this refresh (anonymous, cookies kept). The service is
    tests/faultserver.py over real HTTP."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from faultserver import FaultServer

    with FaultServer() as server:
        api_url = server.api_url(f"{scenario}:99" if scenario == "429" else scenario, f"rate-{scenario}")
        config = AuthConfig(
            project_id="00000000-0000-4000-8000-00000000c0de", api_url=api_url, secret_server_key="ssk_faulty"
        )
        app = WSGIAuthMiddleware(whoami, config, on_refresh_unavailable="error")
        client = httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver")
        r = client.get("/", headers={"cookie": cookie_header(config.project_id, "r" * 45)})
        assert r.status_code == status, r.text
        assert "set-cookie" not in r.headers  # never signed out


def test_a_rate_limited_refresh_is_answered_at_once_not_after_the_retry_after() -> None:
    """Inside a request the middleware does not sleep through the service's Retry-After (four
    times 3 s here; the transport honours up to 24 days): one refresh call, then the request is
    answered (anonymous, cookies kept), as team guards answer a 429 at once. A service (or the
    proxy before it) that rate limits held every request needing a refresh, and with it the
    server's workers. The control: an app's own Session still waits and retries (the holder
    "session" of the refresh policy, tests/core/test_session.py)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from faultserver import FaultServer

    with FaultServer() as server:
        scenario = "429:99:3"
        config = AuthConfig(
            project_id="00000000-0000-4000-8000-00000000c0de",
            api_url=server.api_url(scenario, "at-once"),
            secret_server_key="ssk_faulty",
        )
        app = WSGIAuthMiddleware(whoami, config)
        client = httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver")
        r = client.get("/", headers={"cookie": cookie_header(config.project_id, "r" * 45)})
        assert r.status_code == 200 and r.json()["id"] is None and "set-cookie" not in r.headers
        refreshes = [e for e in server.log(scenario, "at-once") if e["path"].endswith("/refresh")]
        assert len(refreshes) == 1, refreshes
