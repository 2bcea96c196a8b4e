from __future__ import annotations

from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import httpx

from authmw._config import AuthConfig

from ._cookies import with_session_cookies
from ._refusal import Refusal
from ._resolver import READ_HEADERS, SessionRequest, SessionResolver, tuple_new
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
        method, scheme = environ.get("REQUEST_METHOD", "GET"), environ.get("wsgi.url_scheme", "http")
        host = environ.get("HTTP_HOST") or f"{environ.get('SERVER_NAME')}:{environ.get('SERVER_PORT')}"
        # (tuple_new: the SessionRequest without its Python-level __new__; every field given)
        request = tuple_new(SessionRequest, (method, scheme, _header(environ), False, host))
        try:
            user, cookies, _, refusal = self.handler.resolve(request)
        except Refusal as refused:
            return _answer(start_response, refused)
        # Call the app, adding the cookies to its response and answering a guard's Refusal
        # raised before the response started (written out here: a call saved per request).
        started = False

        def starting(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal started
            started = True
            if cookies:
                headers = with_session_cookies(headers, cookies)
            return start_response(status, headers, exc_info)

        if refusal is None:
            environ["authmw.user"] = user
            try:
                return self.app(environ, starting)
            except Refusal as raised:
                if started:
                    raise
                refusal = raised
        # A guard's refusal, or the cross-site check's (refreshed cookies are still written).
        return _answer(starting, refusal)

    def close(self) -> None:
        self.handler.close()


def _header(environ: Environ) -> Callable[[str], str | None]:
    def header(name: str) -> str | None:
        key = _ENVIRON_KEYS.get(name)
        return environ.get(key if key is not None else _cgi_name(name))

    return header


def _cgi_name(name: str) -> str:
    return "HTTP_" + name.upper().replace("-", "_")


#: The CGI names of the headers the handler reads (others are made on the fly).
_ENVIRON_KEYS = {name: _cgi_name(name) for name in READ_HEADERS}


def _answer(start_response: StartResponse, refusal: Refusal) -> list[bytes]:
    body = refusal.body
    start_response(
        f"{refusal.status} {HTTPStatus(refusal.status).phrase}",
        [*refusal.headers, ("content-length", str(len(body)))],
    )
    return [body]
