"""FastAPI dependencies over :class:`authmw.middleware.AuthMiddleware`.

::

    from authmw_fastapi import CurrentUser, install

    app = FastAPI()
    install(app, config)          # the middleware plus the JSON error handler

    @app.get("/api/me")
    async def me(user: CurrentUser): ...
"""

from ._guards import (
    CurrentUser,
    Guard,
    GuardError,
    OptionalUser,
    current_user,
    guard_error_handler,
    install,
    optional_user,
    require_user,
)

__all__ = [
    "CurrentUser",
    "Guard",
    "GuardError",
    "OptionalUser",
    "current_user",
    "guard_error_handler",
    "install",
    "optional_user",
    "require_user",
]
