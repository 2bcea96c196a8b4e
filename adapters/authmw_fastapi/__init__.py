"""FastAPI dependencies over :class:`authmw.middleware.AuthMiddleware`.

::

    from authmw_fastapi import CurrentUser, install

    app = FastAPI()
    install(app, config)          # = app.add_middleware(AuthMiddleware, config=config)

    @app.get("/api/me")
    async def me(user: CurrentUser): ...
"""

from ._guards import (
    CurrentUser,
    Guard,
    OptionalUser,
    current_user,
    install,
    optional_user,
    require_user,
)

__all__ = [
    "CurrentUser",
    "Guard",
    "OptionalUser",
    "current_user",
    "install",
    "optional_user",
    "require_user",
]
