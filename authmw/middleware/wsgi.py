from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

import httpx

from authmw._apps import ServerApp
from authmw._config import AuthConfig
from authmw._ops import SyncDriver
from authmw._tokens import TokenVerifier

from ._cookies import CookieAttributes, with_session_cookies
from ._core import (
    Authenticator,
    OnRefreshUnavailable,
    Outcome,
    Refresher,
    Refusal,
    bearer_token,
)
from ._origin import OriginPolicy, own_origin
from ._user import ANONYMOUS, AnonymousUser, AuthUser, key_principal

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
        on_refresh_unavailable: OnRefreshUnavailable = "anonymous",
        http: Callable[[], httpx.Client] | None = None,
        verifier: TokenVerifier | None = None,
        refresher: Refresher | None = None,
        clock: Callable[[], float] = time.time,
        csrf_check: bool = True,
        trusted_origins: Iterable[str] = (),
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
        self.origin = OriginPolicy(csrf_check, trusted_origins)
        self.driver = SyncDriver(http() if http else None)
        # Server-tier helpers of AuthUser need the secret key; without it they explain why.
        self.server = ServerApp(self.config, driver=self.driver) if self.config.secret_server_key else None

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        environ["authmw.config"] = self.config  # for guards: the handler path, the project
        cookie = environ.get("HTTP_COOKIE")
        auth_header = environ.get("HTTP_X_STACK_AUTH")
        authorization, access_token = environ.get("HTTP_AUTHORIZATION"), environ.get("HTTP_X_STACK_ACCESS_TOKEN")
        # (no call for the usual request, which sends neither)
        bearer = None if authorization is None and access_token is None else bearer_token(authorization, access_token)
        if not cookie and auth_header is None and bearer is None:
            environ["authmw.user"] = ANONYMOUS
            return _run(self.app, environ, start_response, ())

        try:
            decided = self.core.decide(
                cookie,
                auth_header,
                bearer,
                environ.get("wsgi.url_scheme", "http"),
                environ.get("HTTP_X_FORWARDED_PROTO"),
            )
            outcome = decided if isinstance(decided, Outcome) else self.driver.run(self.core.settle(decided))
        except Refusal as refusal:
            return _answer(start_response, refusal)

        if (
            outcome.from_cookies
            and outcome.claims is not None
            and self.origin.applies(environ.get("REQUEST_METHOD", "GET"))
        ):
            cross_site = _cross_site(self.origin, environ)
            if cross_site is not None:  # answered as a refusal inside the app: refreshed cookies are kept
                return _run(_refusing(cross_site), environ, start_response, outcome.cookies)

        environ["authmw.user"] = self._user(outcome)
        return _run(self.app, environ, start_response, outcome.cookies)

    def _user(self, outcome: Outcome) -> AuthUser | AnonymousUser:
        if outcome.api_key is not None:
            return key_principal(outcome.api_key, self.server)
        if outcome.claims is None or outcome.access_token is None:
            return ANONYMOUS
        return AuthUser(outcome.claims, outcome.access_token, outcome.refresh_token, self.server)

    def close(self) -> None:
        self.driver.close()


def _refusing(refusal: Refusal) -> WSGIApp:
    def app(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        raise refusal

    return app


def _cross_site(policy: OriginPolicy, environ: Environ) -> Refusal | None:
    host = environ.get("HTTP_HOST") or f"{environ.get('SERVER_NAME')}:{environ.get('SERVER_PORT')}"
    own = own_origin(environ.get("wsgi.url_scheme", "http"), host, environ.get("HTTP_X_FORWARDED_PROTO"))
    return policy.refusal(
        environ.get("REQUEST_METHOD", "GET"),
        lambda name: environ.get("HTTP_" + name.upper().replace("-", "_")),
        own,
    )


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
