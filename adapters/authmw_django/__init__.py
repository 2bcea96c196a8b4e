"""Django: the session's user on ``request.user``, view guards, and DRF classes.

::

    MIDDLEWARE = [..., "authmw_django.AuthMiddleware"]
    AUTHMW = {"ENV_FILE": BASE_DIR / ".authmw" / "project.env"}    # or PROJECT_ID, SECRET_SERVER_KEY, ...

    from authmw_django import user_required

    @user_required
    def dashboard(request): ...

Django REST framework classes live in :mod:`authmw_django.rest_framework`.
"""

from ._decorators import (
    DEFAULT_TEAM_KWARG,
    Guard,
    TeamRequirement,
    require_permission,
    team_member_required,
    team_permission_required,
    user_required,
)
from ._middleware import AuthMiddleware
from ._oauth import oauth_urls
from ._settings import get_auth_config
from ._web import web_urls
from .webhooks import webhook_view

__all__ = [
    "AuthMiddleware",
    "DEFAULT_TEAM_KWARG",
    "Guard",
    "TeamRequirement",
    "get_auth_config",
    "oauth_urls",
    "require_permission",
    "team_member_required",
    "team_permission_required",
    "user_required",
    "web_urls",
    "webhook_view",
]
