"""The ASGI middleware's per-request shortcuts keep their meaning: each event loop has its
own driver (the last loop's is remembered, never a collected or closed one's), and a guard's
Refusal is answered before the response starts and raised again after it. Real tokens from
the local service; the middleware is called with raw ASGI scopes."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from typing import Any

import httpx
import pytest

from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AuthMiddleware, AuthUser, Refusal, WSGIAuthMiddleware
from authmw.middleware._core import Outcome
from authmw.middleware._resolver import Resolved, SessionRequest

from .support import cookie_header


class Clients:
    """The ``http`` factory of a middleware: every AsyncClient it made (one per event loop)."""

    def __init__(self) -> None:
        self.made: list[httpx.AsyncClient] = []

    def __call__(self) -> httpx.AsyncClient:
        self.made.append(httpx.AsyncClient())
        return self.made[-1]


async def _send(message: Any) -> None:
    pass


def signed_in(local_service: Any) -> tuple[AuthMiddleware, Clients, str, str]:
    """A middleware over an app that keeps the request's user, and a cookie it has decided
    already (on its sync driver), so that requests on event loops need no I/O."""
    clients = Clients()
    seen: list[Any] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["user"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    middleware = AuthMiddleware(app, local_service.config, http=clients)
    middleware.seen = seen  # type: ignore[attr-defined]
    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    warm = middleware.handler.resolve(SessionRequest("GET", "http", {"cookie": cookie}.get))
    assert isinstance(warm.user, AuthUser)
    return middleware, clients, cookie, s.user_id


def request(loop: asyncio.AbstractEventLoop, middleware: AuthMiddleware, cookie: str) -> Any:
    """One GET with the cookie on ``loop``: the user the app saw."""
    scope = {"type": "http", "method": "GET", "scheme": "http", "path": "/", "headers": [(b"cookie", cookie.encode())]}
    loop.run_until_complete(middleware(scope, None, _send))
    return middleware.seen.pop()  # type: ignore[attr-defined]


def test_each_event_loop_has_its_own_driver_also_when_they_take_turns(local_service) -> None:
    middleware, clients, cookie, user_id = signed_in(local_service)
    first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        a = request(first, middleware, cookie)
        b = request(second, middleware, cookie)
        a_again = request(first, middleware, cookie)
        b_again = request(second, middleware, cookie)
    finally:
        first.close()
        second.close()
    assert a.id == b.id == user_id
    assert len(clients.made) == 2  # one client per loop, made once
    assert a.server is not b.server
    assert a_again.server is a.server and b_again.server is b.server


def test_a_loop_in_another_thread_has_its_own_driver(local_service) -> None:
    middleware, clients, cookie, _ = signed_in(local_service)
    here = asyncio.new_event_loop()
    users: list[Any] = []

    def elsewhere() -> None:
        loop = asyncio.new_event_loop()
        try:
            users.append(request(loop, middleware, cookie))
        finally:
            loop.close()

    try:
        mine = request(here, middleware, cookie)
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        mine_again = request(here, middleware, cookie)
    finally:
        here.close()
    assert len(clients.made) == 2
    assert users[0].server is not mine.server and mine_again.server is mine.server


def test_a_collected_loops_driver_is_neither_kept_nor_used_again(local_service) -> None:
    middleware, clients, cookie, _ = signed_in(local_service)
    loop = asyncio.new_event_loop()
    user = request(loop, middleware, cookie)
    assert len(clients.made) == 1
    made = weakref.ref(clients.made.pop())
    loop.close()
    del loop, user  # (the user's server app runs on the loop's driver)
    gc.collect()
    assert made() is None  # the middleware no longer holds the collected loop's client

    loop = asyncio.new_event_loop()  # (it may well get the collected loop's address)
    try:
        user = request(loop, middleware, cookie)
    finally:
        loop.close()
    assert len(clients.made) == 1 and user.server is not None


def test_aclose_forgets_the_loops_driver(local_service) -> None:
    middleware, clients, cookie, _ = signed_in(local_service)
    loop = asyncio.new_event_loop()
    try:
        before = request(loop, middleware, cookie)
        loop.run_until_complete(middleware.aclose())
        assert clients.made[0].is_closed
        after = request(loop, middleware, cookie)
    finally:
        loop.close()
    assert len(clients.made) == 2 and not clients.made[1].is_closed
    assert after.server is not before.server


async def test_a_refusal_before_the_response_is_answered_and_after_it_raised_again(local_service) -> None:
    refusal = Refusal.of(UserAuthenticationRequired())
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def refuses_at_once(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise refusal

    async def refuses_after_starting(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise refusal

    scope = {"type": "http", "method": "GET", "scheme": "http", "path": "/", "headers": []}
    at_once = AuthMiddleware(refuses_at_once, local_service.config)
    await at_once(dict(scope), None, send)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 401 and b"USER_AUTHENTICATION_REQUIRED" in sent[1]["body"]

    sent.clear()
    after = AuthMiddleware(refuses_after_starting, local_service.config)
    with pytest.raises(Refusal) as raised:
        await after(dict(scope), None, send)
    assert raised.value is refusal
    assert [(m["type"], m["status"]) for m in sent] == [("http.response.start", 200)]  # nothing sent after it
    await at_once.aclose()
    await after.aclose()


def test_wsgi_a_refusal_after_the_response_started_is_raised_again(local_service) -> None:
    refusal = Refusal.of(UserAuthenticationRequired())
    started: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [])
        raise refusal

    middleware = WSGIAuthMiddleware(app, local_service.config)
    environ = {"REQUEST_METHOD": "GET", "wsgi.url_scheme": "http", "HTTP_HOST": "testserver"}
    with pytest.raises(Refusal) as raised:
        middleware(environ, lambda status, headers, exc_info=None: started.append(status))
    middleware.close()
    assert raised.value is refusal and started == ["200 OK"]


def test_the_tuples_the_hot_path_makes_or_unpacks_whole_have_the_fields_it_gives() -> None:
    # The shells make SessionRequest, and the resolver a signed-in Resolved, with tuple.__new__
    # and every field by position; the resolver unpacks Outcome whole. A field added to one of
    # them must be added there too (asgi.py, wsgi.py, SessionResolver._resolved).
    assert SessionRequest._fields == ("method", "scheme", "header", "websocket", "host")
    assert Resolved._fields == ("user", "cookies", "from_cookies", "refusal")
    assert Outcome._fields == (
        "claims",
        "access_token",
        "refresh_token",
        "cookies",
        "from_cookies",
        "api_key",
        "refused",
    )
