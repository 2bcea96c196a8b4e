from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Security
from fastapi.security import APIKeyCookie, HTTPBearer
from starlette.requests import HTTPConnection

from authmw import AuthConfig
from authmw.adapter import ACCESS_COOKIE, admission, is_json_request, sign_in_url
from authmw.errors import ConfigurationError, UserAuthenticationRequired
from authmw.middleware import AnonymousUser, AuthMiddleware, AuthUser, Refusal

#: A guard check: looks at the signed-in user and raises ``Refusal.of(known_error)`` to refuse.
Check = Callable[[AuthUser, HTTPConnection], Awaitable[None]]


def current_user(conn: HTTPConnection) -> AuthUser | AnonymousUser:
    user = conn.scope.get("user")
    if not isinstance(user, (AuthUser, AnonymousUser)):
        raise ConfigurationError(
            "authmw's AuthMiddleware is not installed, so nobody can be signed in. Call "
            "authmw_fastapi.install(app, config) or app.add_middleware(AuthMiddleware, config=config)."
        )
    return user


class _BearerScheme(HTTPBearer):
    """Declares the bearer access token in the OpenAPI schema; the middleware reads it."""

    async def __call__(self, conn: HTTPConnection) -> None:
        return None


class _SessionCookieScheme(APIKeyCookie):
    """Declares the browser's session cookies in the OpenAPI schema; the middleware reads them."""

    async def __call__(self, conn: HTTPConnection) -> None:
        return None


#: OpenAPI security schemes of guarded routes: /docs shows their lock, and its Authorize
#: button sends the access token as ``Authorization: Bearer``.
BEARER_SCHEME = _BearerScheme(
    bearerFormat="JWT",
    scheme_name="bearerAuth",
    description="An access token of the signed-in user (ClientApp.get_auth_headers(form='bearer')).",
    auto_error=False,
)
SESSION_COOKIE_SCHEME = _SessionCookieScheme(
    name=ACCESS_COOKIE,
    scheme_name="sessionCookie",
    description="The browser session that @authmw/react keeps in cookies (stack-refresh-{projectId}, stack-access).",
    auto_error=False,
)


class Guard:
    """A dependency that returns the signed-in user if every check passes.

    ``require_user`` is ``Guard()``; further checks (team membership, permissions) are
    ``Guard(check, ...)``. Refusals are answered by the middleware with the service's error
    envelope, ``{"code", "error", "details"?}``.

    ``api_keys=True`` lets a machine client's API key through (API 2.8, with
    ``AuthConfig(accept_api_keys=True)``): a user's key as its user (an ``ApiKeyUser``), a
    team's key only past team checks of its own team; by default keys get 401
    ``API_KEY_NOT_ACCEPTED``.

    ``api`` says how an anonymous request is refused: True (the default) with 401 JSON,
    False with a 303 to the sign-in page (coming back afterwards), None by the request: JSON
    for paths under ``api_paths`` or requests that accept JSON but not HTML.
    """

    def __init__(
        self,
        *checks: Check,
        api: bool | None = True,
        api_paths: tuple[str, ...] = ("/api/",),
        api_keys: bool = False,
    ) -> None:
        self.checks = checks
        self.api = api
        self.api_paths = api_paths
        #: Whether a machine client's API key is accepted (API 2.8; ``admission`` decides).
        self.api_keys = api_keys

    async def __call__(
        self,
        conn: HTTPConnection,
        _bearer: Annotated[None, Security(BEARER_SCHEME)] = None,
        _session: Annotated[None, Security(SESSION_COOKIE_SCHEME)] = None,
    ) -> AuthUser:
        user = current_user(conn)
        admitted = admission(user, self.api_keys, team_guard=any(getattr(c, "team_guard", False) for c in self.checks))
        if admitted is False:
            raise self._unauthenticated(conn)
        if admitted is not True:
            raise Refusal.of(admitted)
        for check in self.checks:
            await check(user, conn)  # type: ignore[arg-type]
        return user  # type: ignore[return-value]

    def _unauthenticated(self, conn: HTTPConnection) -> Refusal:
        api = self.api
        if api is None:
            api = is_json_request(conn.url.path, conn.headers.get("accept"), self.api_paths)
        if api:
            return Refusal.of(UserAuthenticationRequired())
        config: AuthConfig = conn.scope["authmw.config"]
        # The path as the browser sent it (still percent-encoded); sign_in_url judges it.
        raw_path = conn.scope.get("raw_path")
        path = raw_path.decode("latin-1") if raw_path else conn.url.path
        here = path + (f"?{conn.url.query}" if conn.url.query else "")
        return Refusal.redirect(sign_in_url(config.handler_path, here))

    def __repr__(self) -> str:
        keys = [f"api_keys={self.api_keys!r}"] if self.api_keys else []
        return f"Guard({', '.join([*map(repr, self.checks), f'api={self.api!r}', *keys])})"


require_user = Guard()
#: For pages: an anonymous visitor is sent to the sign-in page and comes back afterwards.
require_user_page = Guard(api=False)


async def optional_user(conn: HTTPConnection) -> AuthUser | None:
    user = current_user(conn)
    return user if isinstance(user, AuthUser) else None


CurrentUser = Annotated[AuthUser, Depends(require_user)]
PageUser = Annotated[AuthUser, Depends(require_user_page)]
OptionalUser = Annotated[AuthUser | None, Depends(optional_user)]


def install(app: FastAPI, config: AuthConfig | None = None, **options: Any) -> None:
    """``app.add_middleware(AuthMiddleware, config=config, **options)``."""
    app.add_middleware(AuthMiddleware, config=config, **options)
