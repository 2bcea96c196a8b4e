"""Sessions: server-minted sessions, refresh and sign-out (service-api A3.5, A3.6, A5.4.5); 2.8 adds
sign-out by the access token's session, impersonation sessions and the session list and
revoke routes (service-api B3.5 and B6)."""

from __future__ import annotations

from typing import Any

from ..api_version import ApiVersion
from ..db import load
from ..endpoint import ADMIN, ANY, SERVER_OR_ADMIN, EndpointGroup, PerApi, RequestContext
from ..errors import CatalogueError, PlainError, expired_error
from ..ids import now_millis
from ..schema import Bool, Num, Obj, Str, Uuid
from ..tokens import (
    REFRESH_TOKEN_LIFETIME_MILLIS,
    delete_refresh_token,
    delete_session,
    find_refresh_session,
)
from ..users import get_user

#: Upper bound of `expires_in_millis` on POST /auth/sessions: 367 days.
MAX_SESSION_MILLIS = 31_708_800_000

group = EndpointGroup()
refresh_header = Obj({"x-stack-refresh-token": Str(required=True)}, allow_unknown=True)


CREATE_FIELDS_27 = {
    "user_id": Uuid(required=True, allow_me=True),
    "expires_in_millis": Num(min_value=0, max_value=MAX_SESSION_MILLIS),
}


@group.post(
    "/auth/sessions",
    tiers=SERVER_OR_ADMIN,
    body=PerApi(
        v27=Obj(CREATE_FIELDS_27, required=True),
        v28=Obj({**CREATE_FIELDS_27, "is_impersonation": Bool()}, required=True),
    ),
)
def create_session(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body
    user_id = ctx.user_id_or_me(body["user_id"])
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_ID_DOES_NOT_EXIST", user_id=user_id)
    lifetime = int(body.get("expires_in_millis", REFRESH_TOKEN_LIFETIME_MILLIS))
    session = ctx.service.new_session(
        ctx.sql, ctx.project.id, user_id, lifetime, is_impersonation=bool(body.get("is_impersonation"))
    )
    return {"refresh_token": session["refresh_token"], "access_token": session["access_token"]}


@group.post("/auth/sessions/current/refresh", tiers=ANY, headers=refresh_header)
def refresh(ctx: RequestContext) -> dict[str, Any]:
    session = find_refresh_session(ctx.sql, ctx.project.id, ctx.headers["x-stack-refresh-token"])
    return {"access_token": ctx.service.access_token(ctx.sql, ctx.project.id, session)}


@group.delete("/auth/sessions/current", tiers=ANY)
def sign_out(ctx: RequestContext) -> dict[str, Any]:
    if ctx.api.sign_out_by_access_token:
        # 2.8: the access token's session; x-stack-refresh-token is not read (service-api B3.5).
        session_id = None if ctx.auth is None else ctx.auth.session_id
        if ctx.user is None or session_id is None:
            raise expired_error(
                "ACCESS_TOKEN_EXPIRED", None, project_id=ctx.project.id, user_id=ctx.auth and ctx.auth.user_id,
                refresh_token_id=session_id,
            )
        if not delete_session(ctx.sql, ctx.project.id, session_id):
            raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
        return {"success": True}
    headers = ctx.validate(refresh_header, _present(ctx, "x-stack-refresh-token"), "headers")
    if not delete_refresh_token(ctx.sql, ctx.project.id, headers["x-stack-refresh-token"]):
        raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
    return {"success": True}


def _present(ctx: RequestContext, name: str) -> dict[str, str]:
    value = ctx.request.headers.get(name)
    return {name: value} if value else {}


def _has_session_routes(api: ApiVersion) -> bool:
    return api.session_routes


SESSION_QUERY = Obj({"user_id": Uuid(required=True, allow_me=True)})
SESSION_PATH = Obj({"session_id": Uuid(required=True)})


def _session_user(ctx: RequestContext) -> str:
    """The user whose sessions a request may see: on the client tier only its own."""
    user_id = ctx.user_id_or_me(ctx.query["user_id"])
    if ctx.tier == "client":
        if ctx.user is None:
            raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
        if user_id != ctx.user["id"]:
            raise PlainError(403, "Client can only list sessions for their own user.")
    return user_id


@group.get("/auth/sessions", tiers=ANY, query=SESSION_QUERY, when=_has_session_routes, absent_status=405)
def list_sessions(ctx: RequestContext) -> dict[str, Any]:
    user_id = _session_user(ctx)
    sql = (
        "SELECT * FROM refresh_tokens WHERE project_id = ? AND user_id = ? AND expires_at_millis > ?"
        + ("" if ctx.tier in ADMIN else " AND is_impersonation = 0")
        + " ORDER BY created_at_millis DESC, rowid DESC"
    )
    rows = ctx.sql.execute(sql, (ctx.project.id, user_id, now_millis())).fetchall()
    current = None if ctx.auth is None else ctx.auth.session_id
    items = []
    for row in rows:
        item: dict[str, Any] = {
            "id": row["id"],
            "user_id": row["user_id"],
            "created_at": row["created_at_millis"],
            "last_used_at": row["last_used_at_millis"] or row["created_at_millis"],
            "is_impersonation": bool(row["is_impersonation"]),
            "is_current_session": row["id"] == current,
        }
        ip_info = load(row["last_used_ip_info"])
        if ip_info:
            item["last_used_at_end_user_ip_info"] = ip_info
        items.append(item)
    return {"items": items, "is_paginated": False}


@group.delete(
    "/auth/sessions/{session_id}", tiers=ANY, query=SESSION_QUERY, params=SESSION_PATH, when=_has_session_routes
)
def revoke_session(ctx: RequestContext) -> dict[str, Any]:
    user_id = _session_user(ctx)
    session_id = ctx.params["session_id"]
    if ctx.auth is not None and session_id == ctx.auth.session_id:
        raise CatalogueError("CANNOT_DELETE_CURRENT_SESSION")
    if not delete_session(ctx.sql, ctx.project.id, session_id, user_id):
        raise PlainError(404, "Session not found.")
    return {"success": True}


routes = group.routes
