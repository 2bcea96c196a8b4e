from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import httpx

from authmw._apps import AsyncServerApp
from authmw._config import AuthConfig
from authmw._ops import AsyncDriver
from authmw._tokens import TokenVerifier

from ._cookies import CookieAttributes, with_session_cookies
from ._core import (
    ANONYMOUS as ANONYMOUS_OUTCOME,
)
from ._core import (
    Authenticator,
    OnRefreshUnavailable,
    Outcome,
    Refresher,
    Refusal,
    bearer_token,
)
from ._origin import OriginPolicy, WebSocketCrossSite, own_origin
from ._user import ANONYMOUS, AuthCredentials, AuthUser, key_principal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

NO_CREDENTIALS = AuthCredentials()
SIGNED_IN = AuthCredentials(["authenticated"])


class _PerLoop:
    """The driver of one event loop, and the server app that runs on it."""

    __slots__ = ("driver", "server")

    def __init__(self, config: AuthConfig, driver: AsyncDriver) -> None:
        self.driver = driver
        # Server-tier helpers of AuthUser need the secret key; without it they explain why.
        self.server = AsyncServerApp(config, driver=driver) if config.secret_server_key else None


class AuthMiddleware:
    """Puts the session's user on ``scope["user"]``, refreshing and rewriting cookies.

    ``scope["user"]`` is an :class:`AuthUser` or :class:`AnonymousUser`; ``scope["auth"]``
    has ``scopes == ["authenticated"]`` for a signed-in user. A :class:`Refusal` raised
    inside the app is answered here. ``on_refresh_unavailable``: "anonymous" (default) or
    "error" (503) when the service cannot be reached; ``http``: a factory of the
    ``httpx.AsyncClient`` to use (one per event loop). See docs/middleware.md.

    Cross-site requests (docs/security.md): an unsafe request or a WebSocket handshake
    whose session came from cookies is answered 403 (the handshake closed, or let in
    without the user when ``websocket_cross_site="anonymous"``) unless it comes from the
    app's own origin or one of ``trusted_origins``; ``csrf_check=False`` turns that off.
    ``cookie_same_site`` ("Lax", "Strict", "None") and ``cookie_secure`` (None: over
    HTTPS; True: always) are the session cookies' attributes.
    """

    def __init__(
        self,
        app: ASGIApp,
        config: AuthConfig | None = None,
        *,
        on_refresh_unavailable: OnRefreshUnavailable = "anonymous",
        http: Callable[[], httpx.AsyncClient] | None = None,
        verifier: TokenVerifier | None = None,
        refresher: Refresher | None = None,
        clock: Callable[[], float] = time.time,
        csrf_check: bool = True,
        trusted_origins: Iterable[str] = (),
        websocket_cross_site: WebSocketCrossSite = "refuse",
        cookie_same_site: str = "Lax",
        cookie_secure: bool | None = None,
    ) -> None:
        self.app = app
        self.config = config or AuthConfig.from_env()
        self.core = Authenticator(
            self.config,
            verifier=verifier,
            refresher=refresher,
            on_refresh_unavailable=on_refresh_unavailable,
            clock=clock,
            cookie_attributes=CookieAttributes(cookie_same_site, cookie_secure),
        )
        self.origin = OriginPolicy(csrf_check, trusted_origins, websocket_cross_site)
        self._http = http
        # httpx connection pools belong to one event loop; tests may run several.
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _PerLoop] = weakref.WeakKeyDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            if kind == "lifespan":
                receive = self._closing_on_shutdown(receive)
            await self.app(scope, receive, send)
            return

        scope["authmw.config"] = self.config  # for guards: the handler path, the project
        cookie, auth_header, forwarded_proto, bearer = _read_headers(scope["headers"])
        if cookie is None and auth_header is None and bearer is None:
            scope["user"], scope["auth"] = ANONYMOUS, NO_CREDENTIALS
            await _run(self.app, scope, receive, send, ())
            return

        try:
            decided = self.core.decide(cookie, auth_header, bearer, scope.get("scheme", "http"), forwarded_proto)
            if isinstance(decided, Outcome):
                outcome = decided
            else:
                outcome = await self._bound().driver.run(self.core.settle(decided))
        except Refusal as refusal:
            await _answer(scope, send, refusal)
            return

        if (
            outcome.from_cookies
            and outcome.claims is not None
            and self.origin.applies(scope.get("method", "GET"), websocket=kind == "websocket")
        ):
            cross_site = _cross_site(self.origin, scope, forwarded_proto)
            if cross_site is not None:
                if kind == "http":  # answered as a refusal inside the app: refreshed cookies are kept
                    await _run(_refusing(cross_site), scope, receive, send, outcome.cookies)
                    return
                if self.origin.websocket == "refuse":
                    await _answer(scope, send, cross_site)
                    return
                outcome = ANONYMOUS_OUTCOME

        if outcome.api_key is not None:
            scope["user"] = key_principal(outcome.api_key, self._bound().server)
            scope["auth"] = SIGNED_IN if outcome.api_key.type == "user" else NO_CREDENTIALS
        elif outcome.claims is None or outcome.access_token is None:
            scope["user"], scope["auth"] = ANONYMOUS, NO_CREDENTIALS
        else:
            server = self._bound().server
            scope["user"] = AuthUser(outcome.claims, outcome.access_token, outcome.refresh_token, server)
            scope["auth"] = SIGNED_IN
        await _run(self.app, scope, receive, send, outcome.cookies if kind == "http" else ())

    def _bound(self) -> _PerLoop:
        loop = asyncio.get_running_loop()
        bound = self._loops.get(loop)
        if bound is None:
            bound = self._loops[loop] = _PerLoop(self.config, AsyncDriver(self._http() if self._http else None))
        return bound

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        bound = self._loops.pop(loop, None)
        if bound is not None:
            await bound.driver.aclose()

    def _closing_on_shutdown(self, receive: Receive) -> Receive:
        async def wrapped() -> Message:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                await self.aclose()
            return message

        return wrapped


def _refusing(refusal: Refusal) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise refusal

    return app


def _cross_site(policy: OriginPolicy, scope: Scope, forwarded_proto: str | None) -> Refusal | None:
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        if name in _ORIGIN_HEADERS:
            headers.setdefault(name.decode("latin-1"), value.decode("latin-1"))
    own = own_origin(scope.get("scheme", "http"), headers.get("host"), forwarded_proto)
    method = scope.get("method", "GET")
    return policy.refusal(method, headers.get, own, websocket=scope["type"] == "websocket")


_ORIGIN_HEADERS = frozenset({b"host", b"origin", b"referer", b"sec-fetch-site"})


def _read_headers(raw: Any) -> tuple[str | None, str | None, str | None, str | None]:
    """Cookie, x-stack-auth, X-Forwarded-Proto and the bearer token of a request's headers."""
    cookies: list[str] = []
    auth_header = forwarded_proto = authorization = access_token = None
    for name, value in raw:
        if name == b"cookie":
            cookies.append(value.decode("latin-1"))
        elif name == b"x-stack-auth":
            auth_header = value.decode("latin-1")
        elif name == b"x-forwarded-proto":
            forwarded_proto = value.decode("latin-1")
        elif name == b"authorization":
            authorization = value.decode("latin-1")
        elif name == b"x-stack-access-token":
            access_token = value.decode("latin-1")
    bearer = None if authorization is None and access_token is None else bearer_token(authorization, access_token)
    return ("; ".join(cookies) if cookies else None), auth_header, forwarded_proto, bearer


async def _run(app: ASGIApp, scope: Scope, receive: Receive, send: Send, cookies: tuple[str, ...]) -> None:
    """Run the app, adding ``cookies`` to its response and answering a guard's Refusal."""
    started = False

    async def sending(message: Message) -> None:
        nonlocal started
        if message["type"] == "http.response.start":
            started = True
            if cookies:
                headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", ())]
                merged = with_session_cookies(headers, cookies)
                message["headers"] = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in merged]
        await send(message)

    try:
        await app(scope, receive, sending)
    except Refusal as refusal:
        if started:
            raise
        await _answer(scope, sending, refusal)


async def _answer(scope: Scope, send: Send, refusal: Refusal) -> None:
    if scope["type"] == "websocket":
        # 1008: policy violation (refused credentials); 1011: the server cannot serve now.
        await send({"type": "websocket.close", "code": 1008 if refusal.status < 500 else 1011})
        return
    body = refusal.body
    headers = [(k.encode(), v.encode("latin-1")) for k, v in refusal.headers]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
