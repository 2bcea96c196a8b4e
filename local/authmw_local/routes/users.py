"""Users: `/users/me` for every tier, `/users` and `/users/{user_id}` for server and admin (5.5)."""

from __future__ import annotations

import re
import sqlite3
from functools import partial
from typing import Any

from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, NeedsUser, PerApi, RequestContext
from ..errors import CatalogueError, PlainError
from ..password_work import hash_outside
from ..projects import Project
from ..responses import Created
from ..schema import Bool, Num, Obj, Str, Uuid
from ..user_updates import (
    SERVER_CREATE,
    SERVER_CREATE_27,
    SERVER_UPDATE,
    SERVER_UPDATE_27,
    check_client_image,
    client_update_spec,
    server_create_user,
    server_update_spec,
    update_user,
)
from ..users import delete_user, get_user, user_view

group = EndpointGroup()
#: /users/me without a signed-in user.
NO_OWN_USER = NeedsUser("CANNOT_GET_OWN_USER_WITHOUT_USER")
USER_PATH = Obj({"user_id": Uuid(required=True)})

LIST_FIELDS_27: dict[str, Any] = {
    "cursor": Uuid(),
    "limit": Num(integer=True, min_value=1),
    "order_by": Str(one_of=("signed_up_at",)),
    "desc": Bool(),
    "query": Str(),
    "team_id": Uuid(),
}
LIST_QUERY_27 = Obj(LIST_FIELDS_27)
#: 2.8 adds the anonymous / restricted filters (service-api B5.1).
LIST_QUERY = Obj(
    {**LIST_FIELDS_27, "include_restricted": Bool(), "include_anonymous": Bool(), "only_anonymous": Bool()}
)
#: One user by id: 2.8's users routes share one query schema, so the list filters are accepted
#: (and do not matter) there too (`GET /users/{id}?include_anonymous=true`).
ONE_USER_QUERY = PerApi(v27=Obj({}), v28=LIST_QUERY)


# /users/me comes first so that "me" never reaches the /users/{user_id} routes.
@group.get("/users/me", tiers=ANY, query=Obj({}), needs_user=NO_OWN_USER)
def get_me(ctx: RequestContext) -> dict[str, Any]:
    return user_view(ctx.sql, ctx.signed_in_user, ctx.tier)


@group.patch("/users/me", tiers=ANY, query=Obj({}), needs_user=NO_OWN_USER)
def update_me(ctx: RequestContext) -> dict[str, Any]:
    raw = ctx.raw_body
    if ctx.tier == "client":
        fields = ctx.validate(client_update_spec(ctx.api), raw)
        if "profile_image_url" in fields:
            check_client_image(fields["profile_image_url"])
    else:
        fields = ctx.validate(server_update_spec(ctx.api), raw)
    update_user(ctx.sql, ctx.project, ctx.signed_in_user, fields, partial(hash_outside, ctx))
    return user_view(ctx.sql, _reload(ctx, ctx.signed_in_user["id"]), ctx.tier)


@group.delete("/users/me", tiers=ANY, query=Obj({}), needs_user=NO_OWN_USER)
def delete_me(ctx: RequestContext) -> dict[str, Any]:
    if ctx.tier == "client" and not ctx.project.config["client_user_deletion_enabled"]:
        raise PlainError(400, "Client user deletion is not enabled for this project")
    delete_user(ctx.sql, ctx.project.id, ctx.signed_in_user["id"])
    return {"success": True}


@group.get("/users", tiers=SERVER_OR_ADMIN, query=PerApi(v27=LIST_QUERY_27, v28=LIST_QUERY))
def list_users(ctx: RequestContext) -> dict[str, Any]:
    if ctx.query.get("only_anonymous") and not ctx.query.get("include_anonymous"):
        raise PlainError(400, "only_anonymous=true requires include_anonymous=true")
    rows = _matching_users(ctx.sql, ctx.project, ctx.query, hide_restricted=ctx.api.anonymous_users)
    start = 0
    if "cursor" in ctx.query:
        ids = [row["id"] for row in rows]
        start = ids.index(ctx.query["cursor"]) if ctx.query["cursor"] in ids else len(ids)
    limit = ctx.query.get("limit")
    page = rows[start:] if limit is None else rows[start : start + limit]
    next_cursor = None
    if limit is not None and start + limit < len(rows):
        next_cursor = rows[start + limit]["id"]
    return {
        "items": [user_view(ctx.sql, row, ctx.tier) for row in page],
        "is_paginated": True,
        "pagination": {"next_cursor": next_cursor},
    }


@group.post("/users", tiers=SERVER_OR_ADMIN, query=Obj({}), body=PerApi(v27=SERVER_CREATE_27, v28=SERVER_CREATE))
def create(ctx: RequestContext) -> Created:
    user_id = server_create_user(ctx.sql, ctx.project, ctx.body, partial(hash_outside, ctx))
    view = user_view(ctx.sql, _reload(ctx, user_id), ctx.tier)
    if ctx.api.selects_personal_team:
        # 2.8 builds this response before it makes (and selects) the personal team of
        # `create_team_on_sign_up`: the team is there on the next read, not in this answer.
        view["selected_team_id"] = view["selected_team"] = None
    return Created(view)


@group.get("/users/{user_id}", tiers=SERVER_OR_ADMIN, query=ONE_USER_QUERY, params=USER_PATH)
def get_one(ctx: RequestContext) -> dict[str, Any]:
    return user_view(ctx.sql, _existing(ctx), ctx.tier)


@group.patch(
    "/users/{user_id}",
    tiers=SERVER_OR_ADMIN,
    query=ONE_USER_QUERY,
    params=USER_PATH,
    body=PerApi(v27=SERVER_UPDATE_27, v28=SERVER_UPDATE),
)
def update_one(ctx: RequestContext) -> dict[str, Any]:
    user = _existing(ctx)
    update_user(ctx.sql, ctx.project, user, ctx.body, partial(hash_outside, ctx))
    return user_view(ctx.sql, _reload(ctx, user["id"]), ctx.tier)


@group.delete("/users/{user_id}", tiers=SERVER_OR_ADMIN, query=ONE_USER_QUERY, params=USER_PATH)
def delete_one(ctx: RequestContext) -> dict[str, Any]:
    delete_user(ctx.sql, ctx.project.id, _existing(ctx)["id"])
    return {"success": True}


def _existing(ctx: RequestContext) -> sqlite3.Row:
    user = get_user(ctx.sql, ctx.project.id, ctx.params["user_id"])
    if user is None:
        raise CatalogueError("USER_NOT_FOUND")
    return user


def _reload(ctx: RequestContext, user_id: str) -> sqlite3.Row:
    user = get_user(ctx.sql, ctx.project.id, user_id)
    assert user is not None
    return user


_ID_NOISE = re.compile(r"[^A-Za-z0-9_.-]")


def _matching_users(
    c: sqlite3.Connection, project: Project, query: dict[str, Any], *, hide_restricted: bool
) -> list[sqlite3.Row]:
    """The users a list asks for. 2.8 (service-api B5.1) leaves out anonymous users unless
    `include_anonymous`, and restricted ones (by an admin, or without a verified primary e-mail
    when the project requires one) unless `include_restricted` or `include_anonymous`."""
    sql = "SELECT u.* FROM users u WHERE u.project_id = ?"
    args: list[Any] = [project.id]
    if hide_restricted:
        if query.get("only_anonymous"):
            sql += " AND u.is_anonymous = 1"
        elif not query.get("include_anonymous"):
            sql += " AND u.is_anonymous = 0"
        if not query.get("include_restricted") and not query.get("include_anonymous"):
            sql += " AND u.restricted_by_admin = 0"
            if project.config["require_email_verification"]:
                sql += (
                    " AND EXISTS (SELECT 1 FROM contact_channels cc WHERE cc.project_id = u.project_id"
                    " AND cc.user_id = u.id AND cc.type = 'email' AND cc.is_primary = 1 AND cc.is_verified = 1)"
                )
    if "team_id" in query:
        sql += " AND EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = u.id AND m.team_id = ?)"
        args.append(query["team_id"])
    text = query.get("query")
    if text:
        like = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql += (
            " AND (u.id = ? OR lower(coalesce(u.display_name, '')) LIKE ? ESCAPE '\\'"
            " OR EXISTS (SELECT 1 FROM contact_channels cc WHERE cc.user_id = u.id"
            " AND lower(cc.value) LIKE ? ESCAPE '\\'))"
        )
        args += [_ID_NOISE.sub("", text).lower(), like, like]
    direction = "DESC" if query.get("desc") else "ASC"
    sql += f" ORDER BY u.signed_up_at_millis {direction}, u.rowid {direction}"
    return c.execute(sql, args).fetchall()


routes = group.routes
