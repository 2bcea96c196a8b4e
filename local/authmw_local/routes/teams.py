"""Teams, memberships and granted team permissions (service-api A5.6).

Client-tier requests act for their own user and need the team permissions of the table in 5.6;
server and admin requests may do anything within the project.
"""

from __future__ import annotations

from typing import Any

from .. import webhooks
from ..db import dump
from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..responses import Created
from ..schema import Bool, Json, Obj, Str, Uuid
from ..team_access import client_user_id, existing_team, own_user_only, require_membership, require_permission
from ..teams import (
    add_member,
    contained_permissions,
    create_team,
    delete_team,
    expand,
    is_member,
    permission_exists,
    remove_member,
    team_view,
)
from ..user_updates import MAX_IMAGE_URL_LENGTH, check_client_image
from ..users import get_user

group = EndpointGroup()

TEAM_PATH = Obj({"team_id": Uuid(required=True)})
MEMBER_PATH = Obj({"team_id": Uuid(required=True), "user_id": Uuid(required=True, allow_me=True)})
PERMISSION_PATH = Obj(
    {
        "team_id": Uuid(required=True),
        "user_id": Uuid(required=True, allow_me=True),
        "permission_id": Str(required=True),
    }
)
EMPTY_BODY = Obj({}, required=True)


def _team_fields(tier: str, *, creating: bool) -> Obj:
    fields: dict[str, Any] = {
        "display_name": Str(required=creating),
        "profile_image_url": Str(nullable=True, max_length=MAX_IMAGE_URL_LENGTH, url=tier != "client"),
        "client_metadata": Json(),
    }
    if tier != "client":
        fields["client_read_only_metadata"] = Json()
        fields["server_metadata"] = Json()
    if creating:
        fields["creator_user_id"] = Uuid(allow_me=True)
    return Obj(fields, required=True)


@group.get("/teams", tiers=ANY, query=Obj({"user_id": Uuid(allow_me=True)}))
def list_teams(ctx: RequestContext) -> dict[str, Any]:
    user_id = ctx.query.get("user_id")
    if ctx.tier == "client":
        user_id = own_user_only(
            ctx,
            user_id,
            'Client can only list teams for their own user. user_id must be either "me" or the ID of the current user',
        )
    elif user_id is not None:
        user_id = ctx.user_id_or_me(user_id)
    sql = "SELECT t.* FROM teams t WHERE t.project_id = ?"
    args: list[Any] = [ctx.project.id]
    if user_id is not None:
        sql += " AND EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.user_id = ?)"
        args.append(user_id)
    rows = ctx.sql.execute(sql + " ORDER BY t.created_at_millis, t.rowid", args).fetchall()
    return {"items": [team_view(row, ctx.tier) for row in rows], "is_paginated": False}


@group.post("/teams", tiers=ANY, query=Obj({"add_current_user": Bool()}))
def create(ctx: RequestContext) -> Created:
    body = ctx.validate(_team_fields(ctx.tier, creating=True), ctx.raw_body)
    creator = body.get("creator_user_id")
    add_current = ctx.query.get("add_current_user")
    if creator is not None and add_current is not None:
        raise PlainError(400, "Cannot use both creator_user_id and add_current_user.")
    if ctx.tier == "client":
        user_id = client_user_id(ctx)
        if not ctx.project.config["client_team_creation_enabled"]:
            raise PlainError(403, "Client team creation is disabled for this project")
        if creator is not None and creator not in ("me", user_id):
            raise PlainError(
                403,
                "You cannot create a team as a user that is not yourself."
                " Make sure you set the creator_user_id to 'me'.",
            )
        check_client_image(body.get("profile_image_url"))
        creator_id: str | None = user_id
    elif creator is not None:
        creator_id = ctx.user_id_or_me(creator)
        if get_user(ctx.sql, ctx.project.id, creator_id) is None:
            raise CatalogueError("USER_NOT_FOUND")
    else:
        creator_id = ctx.user_id_or_me("me") if add_current else None
    team_id = create_team(
        ctx.sql,
        ctx.project,
        body["display_name"],
        creator_user_id=creator_id,
        profile_image_url=body.get("profile_image_url"),
        client_metadata=body.get("client_metadata"),
        client_read_only_metadata=body.get("client_read_only_metadata"),
        server_metadata=body.get("server_metadata"),
    )
    return Created(team_view(existing_team(ctx, team_id), ctx.tier))


@group.get("/teams/{team_id}", tiers=ANY, query=Obj({}), params=TEAM_PATH)
def get_one(ctx: RequestContext) -> dict[str, Any]:
    team = existing_team(ctx, ctx.params["team_id"])
    if ctx.tier == "client":
        require_membership(ctx, team["id"], client_user_id(ctx))
    return team_view(team, ctx.tier)


@group.patch("/teams/{team_id}", tiers=ANY, query=Obj({}), params=TEAM_PATH)
def update(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.validate(_team_fields(ctx.tier, creating=False), ctx.raw_body)
    team = existing_team(ctx, ctx.params["team_id"])
    if ctx.tier == "client":
        require_permission(ctx, team["id"], "$update_team")
        check_client_image(body.get("profile_image_url"))
    columns = {name: dump(value) if name.endswith("metadata") else value for name, value in body.items()}
    if columns:
        assignments = ", ".join(f"{name} = ?" for name in columns)
        ctx.sql.execute(
            f"UPDATE teams SET {assignments} WHERE project_id = ? AND id = ?",
            (*columns.values(), ctx.project.id, team["id"]),
        )
    webhooks.team_updated(ctx.sql, ctx.project.id, team["id"])
    return team_view(existing_team(ctx, team["id"]), ctx.tier)


@group.delete("/teams/{team_id}", tiers=ANY, query=Obj({}), params=TEAM_PATH)
def delete(ctx: RequestContext) -> dict[str, bool]:
    team = existing_team(ctx, ctx.params["team_id"])
    if ctx.tier == "client":
        require_permission(ctx, team["id"], "$delete_team")
    delete_team(ctx.sql, ctx.project.id, team["id"])
    return {"success": True}


@group.post("/team-memberships/{team_id}/{user_id}", tiers=SERVER_OR_ADMIN, params=MEMBER_PATH, body=EMPTY_BODY)
def add_membership(ctx: RequestContext) -> Created:
    team_id, user_id = ctx.params["team_id"], ctx.user_id_or_me(ctx.params["user_id"])
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    existing_team(ctx, team_id)
    if is_member(ctx.sql, ctx.project.id, team_id, user_id):
        raise CatalogueError("TEAM_MEMBERSHIP_ALREADY_EXISTS")
    add_member(ctx.sql, ctx.project, team_id, user_id, as_creator=False)
    return Created({"team_id": team_id, "user_id": user_id})


@group.delete("/team-memberships/{team_id}/{user_id}", tiers=ANY, params=MEMBER_PATH)
def remove_membership(ctx: RequestContext) -> dict[str, bool]:
    team_id, user_id = ctx.params["team_id"], ctx.user_id_or_me(ctx.params["user_id"])
    if ctx.tier == "client" and user_id != client_user_id(ctx):
        require_permission(ctx, team_id, "$remove_members")
    require_membership(ctx, team_id, user_id)
    remove_member(ctx.sql, ctx.project.id, team_id, user_id)
    return {"success": True}


@group.get(
    "/team-permissions",
    tiers=ANY,
    query=Obj({"team_id": Uuid(), "user_id": Uuid(allow_me=True), "permission_id": Str(), "recursive": Bool()}),
)
def list_permissions(ctx: RequestContext) -> dict[str, Any]:
    query = ctx.query
    user_id = query.get("user_id")
    if ctx.tier == "client":
        user_id = own_user_only(
            ctx,
            user_id,
            "Client can only list permissions for their own user."
            ' user_id must be either "me" or the ID of the current user',
        )
    elif user_id is not None:
        user_id = ctx.user_id_or_me(user_id)
    sql = "SELECT team_id, user_id, permission_id FROM team_member_permissions WHERE project_id = ?"
    args: list[Any] = [ctx.project.id]
    for column, value in (("team_id", query.get("team_id")), ("user_id", user_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    held: dict[tuple[str, str], set[str]] = {}
    for row in ctx.sql.execute(sql, args):
        held.setdefault((row["team_id"], row["user_id"]), set()).add(row["permission_id"])
    if query.get("recursive"):
        contains = contained_permissions(ctx.sql, ctx.project.id)
        held = {key: expand(ids, contains) for key, ids in held.items()}
    wanted = query.get("permission_id")
    items = [
        {"id": permission_id, "team_id": team_id, "user_id": member_id}
        for (team_id, member_id), ids in sorted(held.items())
        for permission_id in sorted(ids)
        if wanted is None or permission_id == wanted
    ]
    return {"items": items, "is_paginated": False}


@group.post(
    "/team-permissions/{team_id}/{user_id}/{permission_id}",
    tiers=SERVER_OR_ADMIN,
    params=PERMISSION_PATH,
    body=EMPTY_BODY,
)
def grant(ctx: RequestContext) -> Created:
    team_id, user_id, permission_id = _permission_target(ctx)
    if not permission_exists(ctx.sql, ctx.project.id, permission_id):
        raise CatalogueError("PERMISSION_NOT_FOUND", permission_id=permission_id)
    ctx.sql.execute(
        "INSERT OR IGNORE INTO team_member_permissions (project_id, team_id, user_id, permission_id)"
        " VALUES (?, ?, ?, ?)",
        (ctx.project.id, team_id, user_id, permission_id),
    )
    webhooks.team_permission_created(ctx.sql, ctx.project.id, team_id, user_id, permission_id)
    return Created({"id": permission_id, "team_id": team_id, "user_id": user_id})


@group.delete("/team-permissions/{team_id}/{user_id}/{permission_id}", tiers=SERVER_OR_ADMIN, params=PERMISSION_PATH)
def revoke(ctx: RequestContext) -> dict[str, bool]:
    team_id, user_id, permission_id = _permission_target(ctx)
    deleted = ctx.sql.execute(
        "DELETE FROM team_member_permissions WHERE project_id = ? AND team_id = ? AND user_id = ? AND permission_id = ?",
        (ctx.project.id, team_id, user_id, permission_id),
    ).rowcount
    if not deleted:
        raise CatalogueError("TEAM_PERMISSION_NOT_FOUND", team_id=team_id, user_id=user_id, permission_id=permission_id)
    webhooks.team_permission_deleted(ctx.sql, ctx.project.id, team_id, user_id, permission_id)
    return {"success": True}


def _permission_target(ctx: RequestContext) -> tuple[str, str, str]:
    team_id, user_id = ctx.params["team_id"], ctx.user_id_or_me(ctx.params["user_id"])
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    require_membership(ctx, team_id, user_id)
    return team_id, user_id, ctx.params["permission_id"]


routes = group.routes
