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
    PageUser,
    current_user,
    install,
    optional_user,
    require_user,
    require_user_page,
)
from ._oauth import oauth_routes
from ._teams import (
    PermissionCheck,
    TeamCheck,
    TeamSource,
    require_permission,
    require_team_member,
    require_team_permission,
)
from ._web import web_routes
from ._webhooks import webhook_router

__all__ = [
    "CurrentUser",
    "Guard",
    "OptionalUser",
    "PageUser",
    "PermissionCheck",
    "TeamCheck",
    "TeamSource",
    "current_user",
    "install",
    "oauth_routes",
    "optional_user",
    "require_permission",
    "require_team_member",
    "require_team_permission",
    "require_user",
    "require_user_page",
    "web_routes",
    "webhook_router",
]
