from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from starlette.requests import HTTPConnection

from authmw import AuthConfig
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


class Guard:
    """A dependency that returns the signed-in user if every check passes.

    ``require_user`` is ``Guard()``; further checks (team membership, permissions) are
    ``Guard(check, ...)``. Refusals are answered by the middleware with the service's error
    envelope, ``{"code", "error", "details"?}``.
    """

    def __init__(self, *checks: Check) -> None:
        self.checks = checks

    async def __call__(self, conn: HTTPConnection) -> AuthUser:
        user = current_user(conn)
        if not isinstance(user, AuthUser):
            raise Refusal.of(UserAuthenticationRequired())
        for check in self.checks:
            await check(user, conn)
        return user

    def __repr__(self) -> str:
        return f"Guard({', '.join(map(repr, self.checks))})"


require_user = Guard()


async def optional_user(conn: HTTPConnection) -> AuthUser | None:
    user = current_user(conn)
    return user if isinstance(user, AuthUser) else None


CurrentUser = Annotated[AuthUser, Depends(require_user)]
OptionalUser = Annotated[AuthUser | None, Depends(optional_user)]


def install(app: FastAPI, config: AuthConfig | None = None, **options: Any) -> None:
    """``app.add_middleware(AuthMiddleware, config=config, **options)``."""
    app.add_middleware(AuthMiddleware, config=config, **options)
