from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request

from authmw import AuthConfig
from authmw.errors import ConfigurationError, KnownError, UserAuthenticationRequired
from authmw.middleware import AnonymousUser, AuthMiddleware, AuthUser

#: A guard check: looks at the signed-in user and raises :class:`GuardError` to refuse.
Check = Callable[[AuthUser, HTTPConnection], Awaitable[None]]


class GuardError(HTTPException):
    """A guard refused the request; rendered as the service's error envelope by
    :func:`guard_error_handler` (``{"code", "error", "details"?}``)."""

    def __init__(self, error: KnownError, headers: dict[str, str] | None = None) -> None:
        super().__init__(error.status, error.message, headers)
        self.error = error


async def guard_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, GuardError)
    headers = {"x-stack-known-error": exc.error.code, **(exc.headers or {})}
    return JSONResponse(exc.error.to_body(), status_code=exc.status_code, headers=headers)


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

    ``require_user`` is ``Guard()``; later checks (team membership, permissions) are added
    as ``Guard(check, ...)`` so every guard answers the same way.
    """

    def __init__(self, *checks: Check) -> None:
        self.checks = checks

    async def __call__(self, conn: HTTPConnection) -> AuthUser:
        user = current_user(conn)
        if not isinstance(user, AuthUser):
            raise GuardError(UserAuthenticationRequired())
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
    """Add :class:`AuthMiddleware` (``options`` go to it) and the guards' error handler."""
    app.add_middleware(AuthMiddleware, config=config, **options)
    app.add_exception_handler(GuardError, guard_error_handler)
