from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import httpx

from authmw._config import AuthConfig

from ._cookies import with_session_cookies
from ._refusal import Refusal
from ._resolver import READ_HEADERS, Resolved, SessionRequest, SessionResolver, tuple_new
from ._settings import Options
from ._user import AuthCredentials, AuthUser

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._settings import OptionKeywords

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

NO_CREDENTIALS = AuthCredentials()
SIGNED_IN = AuthCredentials(["authenticated"])


class AuthMiddleware:
    """Puts the session's user on ``scope["user"]``, refreshing and rewriting cookies.

    ``scope["user"]`` is an :class:`AuthUser` or :class:`AnonymousUser`; ``scope["auth"]``
    has ``scopes == ["authenticated"]`` for a signed-in user. A :class:`Refusal` raised
    inside the app is answered here. ``http`` makes the ``httpx.AsyncClient`` of each event
    loop; the other keywords are ``OptionKeywords`` (docs/middleware.md, docs/security.md).
    """

    def __init__(
        self,
        app: ASGIApp,
        config: AuthConfig | None = None,
        *,
        http: Callable[[], httpx.AsyncClient] | None = None,
        **options: Unpack[OptionKeywords],
    ) -> None:
        self.app = app
        self.config = config or AuthConfig.from_env()
        self.handler = SessionResolver(self.config, Options.of(**options), async_http=http)
        self.core = self.handler.core

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            websocket = False
        elif kind == "websocket":
            websocket = True
        else:
            if kind == "lifespan":
                receive = self._closing_on_shutdown(receive)
            await self.app(scope, receive, send)
            return

        handler = self.handler
        scope["authmw.config"] = self.config  # for guards: the handler path, the project
        scope["authmw.resolver"] = handler  # for guards: the driver, the server app, api_paths
        method, scheme = scope.get("method", "GET"), scope.get("scheme", "http")
        # (tuple_new: the SessionRequest without its Python-level __new__; every field given)
        request = tuple_new(SessionRequest, (method, scheme, _headers(scope["headers"]), websocket, None))
        try:
            resolved = handler.resolve_ready(request)  # (no coroutine when no I/O is needed)
            if not isinstance(resolved, Resolved):
                resolved = await handler.asettle(resolved, request)
        except Refusal as refused:
            await _answer(scope, send, refused)
            return
        user, cookies, _, refusal = resolved
        if websocket:
            cookies = ()
        # Run the app, adding the cookies to its response and answering a guard's Refusal
        # raised before the response started. (Written out here rather than in a helper
        # coroutine, and ``sending`` hands back send's own awaitable: each coroutine frame
        # saved is a fixed cost of every request.)
        started = False

        def sending(message: Message) -> Awaitable[None]:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cookies:
                    message["headers"] = _with_cookies(message.get("headers", ()), cookies)
            return send(message)

        if refusal is None:
            scope["user"] = user
            scope["auth"] = SIGNED_IN if isinstance(user, AuthUser) else NO_CREDENTIALS
            try:
                await self.app(scope, receive, sending)
                return
            except Refusal as raised:
                if started:
                    raise
                refusal = raised
        # A guard's refusal, or the cross-site check's (refreshed cookies are still written).
        await _answer(scope, sending, refusal)

    async def aclose(self) -> None:
        await self.handler.aclose()

    def _closing_on_shutdown(self, receive: Receive) -> Receive:
        async def wrapped() -> Message:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                await self.aclose()
            return message

        return wrapped


def _headers(raw: Any) -> Callable[[str], str | None]:
    """The headers the handler reads (repeated Cookie headers joined), by lower-case name."""
    found: dict[str, str] = {}
    for name, value in raw:
        key = _READ.get(name)
        if key is None:
            continue
        if key not in found:
            found[key] = value.decode("latin-1")
        elif key == "cookie":  # (HTTP/2 clients send one Cookie header per cookie)
            found[key] += "; " + value.decode("latin-1")
    return found.get


_READ = {name.encode("latin-1"): name for name in READ_HEADERS}


def _with_cookies(raw: Any, cookies: tuple[str, ...]) -> list[tuple[bytes, bytes]]:
    """An ASGI response's headers with the session's ``Set-Cookie`` values merged in."""
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw]
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in with_session_cookies(headers, cookies)]


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
