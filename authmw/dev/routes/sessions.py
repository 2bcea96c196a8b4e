"""Sessions: server-minted sessions, refresh and sign-out (contract 3.5, 3.6, 5.4.5)."""

from __future__ import annotations

from typing import Any

from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError
from ..schema import Num, Obj, Str, Uuid
from ..tokens import REFRESH_TOKEN_LIFETIME_MILLIS, delete_refresh_token, find_refresh_session
from ..users import get_user

#: Upper bound of `expires_in_millis` on POST /auth/sessions: 367 days.
MAX_SESSION_MILLIS = 31_708_800_000

group = EndpointGroup()
refresh_header = Obj({"x-stack-refresh-token": Str(required=True)}, allow_unknown=True)


@group.post(
    "/auth/sessions",
    tiers=SERVER_OR_ADMIN,
    body=Obj(
        {
            "user_id": Uuid(required=True, allow_me=True),
            "expires_in_millis": Num(min_value=0, max_value=MAX_SESSION_MILLIS),
        },
        required=True,
    ),
)
def create_session(ctx: RequestContext) -> dict[str, Any]:
    user_id = ctx.user_id_or_me(ctx.body["user_id"])
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_ID_DOES_NOT_EXIST", user_id=user_id)
    lifetime = int(ctx.body.get("expires_in_millis", REFRESH_TOKEN_LIFETIME_MILLIS))
    session = ctx.service.new_session(ctx.sql, ctx.project.id, user_id, lifetime)
    return {"refresh_token": session["refresh_token"], "access_token": session["access_token"]}


@group.post("/auth/sessions/current/refresh", tiers=ANY, headers=refresh_header)
def refresh(ctx: RequestContext) -> dict[str, Any]:
    session = find_refresh_session(ctx.sql, ctx.project.id, ctx.headers["x-stack-refresh-token"])
    return {"access_token": ctx.service.access_token(ctx.sql, ctx.project.id, session)}


@group.delete("/auth/sessions/current", tiers=ANY, headers=refresh_header)
def sign_out(ctx: RequestContext) -> dict[str, Any]:
    if not delete_refresh_token(ctx.sql, ctx.project.id, ctx.headers["x-stack-refresh-token"]):
        raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
    return {"success": True}


routes = group.routes
