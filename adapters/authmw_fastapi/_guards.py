from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, Security
from fastapi.security import APIKeyCookie, HTTPBearer
from starlette.requests import HTTPConnection

from authmw import AuthConfig
from authmw.adapter import (
    ACCESS_COOKIE,
    AccessOptions,
    Denial,
    GuardBase,
    PermissionRequirement,
    Rule,
    SessionResolver,
    TeamRequirement,
    wants_page,
)
from authmw.errors import ConfigurationError
from authmw.middleware import AnonymousUser, AuthMiddleware, AuthUser, Refusal

if TYPE_CHECKING:
    from typing_extensions import Unpack

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


class Guard(GuardBase):
    """A dependency that returns the signed-in user if the route's rule lets the caller in
    (:func:`authmw.adapter.decide`, the access decision every adapter asks) and every further
    check passes.

    ``require_user`` is ``Guard()``; team membership, team and project permissions are
    ``Guard(TeamCheck(...))`` / ``Guard(PermissionCheck(...))``; any other ``check`` is an
    async callable ``(user, connection)`` that raises ``Refusal.of(known_error)`` to refuse,
    run after them. Refusals are answered by the middleware with the service's error
    envelope, ``{"code", "error", "details"?}``.

    ``api_keys=True`` lets a machine client's API key through (API 2.8, with
    ``AuthConfig(accept_api_keys=True)``): a user's key as its user (an ``ApiKeyUser``), a
    team's key only past team checks of its own team; by default keys get 401
    ``API_KEY_NOT_ACCEPTED``. ``anonymous=False`` / ``restricted=False``: this route refuses
    those users even where the app signs them in.

    ``api`` says how a refusal is answered: True (the default) with JSON, False as a page (a
    303 to the sign-in page, coming back afterwards, or for a restricted user to the
    onboarding page), None by the request: JSON for paths under ``api_paths`` (by default the
    middleware's ``api_paths`` setting) or requests that accept JSON but not HTML.
    """

    def __init__(
        self,
        *checks: Check | TeamRequirement | PermissionRequirement,
        api: bool | None = True,
        api_paths: tuple[str, ...] | None = None,
        **access: Unpack[AccessOptions],
    ) -> None:
        super().__init__(*(c for c in checks if isinstance(c, (TeamRequirement, PermissionRequirement))), api=api, **access)
        self.checks = checks
        self.api_paths = api_paths

    async def __call__(
        self,
        conn: HTTPConnection,
        _bearer: Annotated[None, Security(BEARER_SCHEME)] = None,
        _session: Annotated[None, Security(SESSION_COOKIE_SCHEME)] = None,
    ) -> AuthUser:
        user = current_user(conn)
        resolver = _resolver(conn)
        team_ids: dict[Any, Any] = {}
        verdict = self.verdict(user, team_ids.__getitem__, lambda: resolver.team_server(_setting_name))
        if isinstance(verdict, Generator):  # (a team source may be async: read before deciding)
            for requirement in self.rule.requirements:
                if isinstance(requirement, TeamRequirement):
                    team_ids[requirement] = await requirement.team_id_of(conn)  # type: ignore[attr-defined]
            denial = await resolver.arun(verdict)
        else:
            denial = verdict
        if denial is not None:
            raise self._refusal(conn, resolver, denial)
        for check in self.checks:
            if not isinstance(check, (TeamRequirement, PermissionRequirement)):
                await check(user, conn)  # type: ignore[arg-type]
        return user  # type: ignore[return-value]

    def _refusal(self, conn: HTTPConnection, resolver: SessionResolver, denial: Denial) -> Refusal:
        api_paths = resolver.options.api_paths if self.api_paths is None else self.api_paths
        page = wants_page(self.api, conn.url.path, conn.headers.get("accept"), api_paths)
        # The path as the browser sent it (still percent-encoded); the core judges it.
        raw_path = conn.scope.get("raw_path")
        path = raw_path.decode("latin-1") if raw_path else conn.url.path
        here = path + (f"?{conn.url.query}" if conn.url.query else "")
        return denial.refusal(page=page, handler_path=resolver.config.handler_path, return_to=here)

    def __repr__(self) -> str:
        rule = self.rule
        shown = [*map(repr, self.checks), f"api={self.api!r}"]
        shown += [f"{name}={getattr(rule, name)!r}" for name in ("api_keys", "anonymous", "restricted") if getattr(rule, name) != getattr(Rule, name)]
        return f"Guard({', '.join(shown)})"


def _resolver(conn: HTTPConnection) -> SessionResolver:
    resolver = conn.scope.get("authmw.resolver")
    if not isinstance(resolver, SessionResolver):
        current_user(conn)  # explains the missing middleware
        raise ConfigurationError("authmw's AuthMiddleware is not installed: call authmw_fastapi.install(app, config).")
    return resolver


def _setting_name(key: str) -> str:
    return f"AuthConfig({key.lower()}=...) (AUTHMW_{key})"


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
