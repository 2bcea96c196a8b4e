"""Flask: the session's user as ``current_user``, and view guards.

::

    from authmw_flask import AuthMW, current_user, user_required

    app = Flask(__name__)
    app.config["AUTHMW_ENV_FILE"] = ".authmw/project.env"     # or AUTHMW_PROJECT_ID, ...
    AuthMW(app)

    @app.get("/api/me")
    @user_required
    def me():
        return {"id": current_user.id}
"""

from authmw.adapter import DEFAULT_TEAM_ARG, EmailLinkRefused, TeamRequirement

from ._decorators import (
    EXEMPT_METHODS,
    Guard,
    require_permission,
    team_member_required,
    team_permission_required,
    user_required,
)
from ._extension import AuthMW, current_user, get_user
from ._flask_login import linkable_email
from ._oauth import oauth_blueprint
from ._settings import FlaskAuth
from ._web import serve_web
from ._webhooks import webhook_blueprint

__all__ = [
    "AuthMW",
    "DEFAULT_TEAM_ARG",
    "EXEMPT_METHODS",
    "EmailLinkRefused",
    "FlaskAuth",
    "Guard",
    "TeamRequirement",
    "current_user",
    "get_user",
    "linkable_email",
    "oauth_blueprint",
    "require_permission",
    "serve_web",
    "team_member_required",
    "team_permission_required",
    "user_required",
    "webhook_blueprint",
]
