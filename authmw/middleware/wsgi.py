from __future__ import annotations

from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import httpx

from authmw._config import AuthConfig

from ._cookies import with_session_cookies
from ._refusal import Refusal
from ._resolver import SessionRequest, SessionResolver
from ._settings import Options

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._settings import OptionKeywords

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


class WSGIAuthMiddleware:
    """Puts the session's user on ``environ["authmw.user"]``, refreshing and rewriting cookies.

    Same decisions and options as :class:`authmw.middleware.AuthMiddleware` (WSGI has no
    WebSockets); only the I/O differs.
    """

    def __init__(
        self,
        app: WSGIApp,
        config: AuthConfig | None = None,
        *,
        http: Callable[[], httpx.Client] | None = None,
        **options: Unpack[OptionKeywords],
    ) -> None:
        self.app = app
        self.config = config or AuthConfig.from_env()
        self.handler = SessionResolver(self.config, Options.of(**options), http=http)
        self.core = self.handler.core

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        environ["authmw.config"] = self.config  # for guards: the handler path, the project
        scheme = environ.get("wsgi.url_scheme", "http")
        host = environ.get("HTTP_HOST") or f"{environ.get('SERVER_NAME')}:{environ.get('SERVER_PORT')}"
        request = SessionRequest(environ.get("REQUEST_METHOD", "GET"), scheme, _header(environ), host=host)
        try:
            resolved = self.handler.resolve(request)
        except Refusal as refusal:
            return _answer(start_response, refusal)
        if resolved.refusal is not None:  # answered as a refusal inside the app: refreshed cookies are kept
            return _run(_refusing(resolved.refusal), environ, start_response, resolved.cookies)
        environ["authmw.user"] = resolved.user
        return _run(self.app, environ, start_response, resolved.cookies)

    def close(self) -> None:
        self.handler.close()


def _header(environ: Environ) -> Callable[[str], str | None]:
    def header(name: str) -> str | None:
        key = _ENVIRON_KEYS.get(name) or "HTTP_" + name.upper().replace("-", "_")
        return environ.get(key)

    return header


#: The CGI names of the headers the handler reads (others are made on the fly).
_ENVIRON_KEYS = {
    "cookie": "HTTP_COOKIE",
    "x-stack-auth": "HTTP_X_STACK_AUTH",
    "authorization": "HTTP_AUTHORIZATION",
    "x-stack-access-token": "HTTP_X_STACK_ACCESS_TOKEN",
    "x-forwarded-proto": "HTTP_X_FORWARDED_PROTO",
}


def _refusing(refusal: Refusal) -> WSGIApp:
    def app(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        raise refusal

    return app


def _run(app: WSGIApp, environ: Environ, start_response: StartResponse, cookies: tuple[str, ...]) -> Iterable[bytes]:
    """Call the app, adding ``cookies`` to its response and answering a guard's Refusal."""
    started = False

    def starting(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        nonlocal started
        started = True
        if cookies:
            headers = with_session_cookies(headers, cookies)
        return start_response(status, headers, exc_info)

    try:
        return app(environ, starting)
    except Refusal as refusal:
        if started:
            raise
        return _answer(starting, refusal)


def _answer(start_response: StartResponse, refusal: Refusal) -> list[bytes]:
    body = refusal.body
    start_response(
        f"{refusal.status} {HTTPStatus(refusal.status).phrase}",
        [*refusal.headers, ("content-length", str(len(body)))],
    )
    return [body]
