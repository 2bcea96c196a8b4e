"""Team member profiles: a member's name and image within one team (service-api A5.2, A5.6)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..schema import Obj, Str, Uuid
from ..team_access import client_user_id, existing_team, require_membership, require_permission
from ..user_updates import MAX_IMAGE_URL_LENGTH
from ..users import get_user, user_view

group = EndpointGroup()
MEMBER_PATH = Obj({"team_id": Uuid(required=True), "user_id": Uuid(required=True, allow_me=True)})


def _profile(ctx: RequestContext, member: sqlite3.Row) -> dict[str, Any]:
    user = get_user(ctx.sql, ctx.project.id, member["user_id"])
    assert user is not None  # memberships go with their user
    profile: dict[str, Any] = {
        "team_id": member["team_id"],
        "user_id": member["user_id"],
        "display_name": member["display_name"] or user["display_name"],
        "profile_image_url": member["profile_image_url"] or user["profile_image_url"],
    }
    if ctx.tier != "client":
        profile["user"] = user_view(ctx.sql, user, ctx.tier)
    return profile


def _member(ctx: RequestContext, team_id: str, user_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM team_members WHERE team_id = ? AND user_id = ? AND project_id = ?",
        (team_id, user_id, ctx.project.id),
    ).fetchone()
    if row is None:
        raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=team_id, user_id=user_id)
    return row


def _client_may_read(ctx: RequestContext, team_id: str, user_id: str | None) -> None:
    own_id = client_user_id(ctx)
    require_membership(ctx, team_id, own_id)
    if user_id != own_id:
        require_permission(ctx, team_id, "$read_members")


@group.get("/team-member-profiles", tiers=ANY, query=Obj({"team_id": Uuid(), "user_id": Uuid(allow_me=True)}))
def list_profiles(ctx: RequestContext) -> dict[str, Any]:
    team_id = ctx.query.get("team_id")
    user_id = ctx.user_id_or_me(ctx.query["user_id"]) if "user_id" in ctx.query else None
    if ctx.tier == "client":
        if team_id is None:
            raise PlainError(400, "team_id is required for access type client")
        _client_may_read(ctx, team_id, user_id)
    else:
        if team_id is not None:
            existing_team(ctx, team_id)
        if user_id is not None and get_user(ctx.sql, ctx.project.id, user_id) is None:
            raise CatalogueError("USER_NOT_FOUND")
    sql = "SELECT * FROM team_members WHERE project_id = ?"
    args: list[Any] = [ctx.project.id]
    for column, value in (("team_id", team_id), ("user_id", user_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    rows = ctx.sql.execute(sql + " ORDER BY created_at_millis, rowid", args).fetchall()
    return {"items": [_profile(ctx, row) for row in rows], "is_paginated": False}


@group.get("/team-member-profiles/{team_id}/{user_id}", tiers=ANY, params=MEMBER_PATH)
def get_profile(ctx: RequestContext) -> dict[str, Any]:
    team_id, user_id = ctx.params["team_id"], ctx.user_id_or_me(ctx.params["user_id"])
    if ctx.tier == "client":
        _client_may_read(ctx, team_id, user_id)
    return _profile(ctx, _member(ctx, team_id, user_id))


@group.patch(
    "/team-member-profiles/{team_id}/{user_id}",
    tiers=ANY,
    params=MEMBER_PATH,
    body=Obj(
        {"display_name": Str(), "profile_image_url": Str(nullable=True, url=True, max_length=MAX_IMAGE_URL_LENGTH)},
        required=True,
    ),
)
def update_profile(ctx: RequestContext) -> dict[str, Any]:
    team_id, user_id = ctx.params["team_id"], ctx.user_id_or_me(ctx.params["user_id"])
    if ctx.tier == "client" and user_id != client_user_id(ctx):
        raise PlainError(403, "Cannot update another user's profile")
    member = _member(ctx, team_id, user_id)
    for column in ("display_name", "profile_image_url"):
        if column in ctx.body:
            ctx.sql.execute(
                f"UPDATE team_members SET {column} = ? WHERE project_id = ? AND team_id = ? AND user_id = ?",
                (ctx.body[column], ctx.project.id, team_id, user_id),
            )
    return _profile(ctx, _member(ctx, member["team_id"], member["user_id"]))


routes = group.routes
