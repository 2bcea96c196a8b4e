"""Anonymous sign-up (API 2.8 only, service-api B7.1)."""

from __future__ import annotations

from typing import Any

from ..api_version import ApiVersion
from ..endpoint import ANY, EndpointGroup, RequestContext
from ..schema import Obj
from ..user_updates import create_personal_team
from ..users import create_user

group = EndpointGroup()


def _has_anonymous_users(api: ApiVersion) -> bool:
    return api.anonymous_users


@group.post("/auth/anonymous/sign-up", tiers=ANY, body=Obj({}), when=_has_anonymous_users)
def anonymous_sign_up(ctx: RequestContext) -> dict[str, Any]:
    """A new anonymous user and its session; no project setting gates it (7.1)."""
    project = ctx.project
    user_id = create_user(ctx.sql, project.id, is_anonymous=True)
    if project.config["create_team_on_sign_up"]:
        create_personal_team(ctx.sql, project, user_id, "Personal Team")
    return {**ctx.service.new_session(ctx.sql, project.id, user_id), "user_id": user_id}


routes = group.routes
