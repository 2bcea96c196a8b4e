"""Owner endpoints: projects managed by a user of `internal` (5.8) and API key sets (5.9)."""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

from ..auth import INTERNAL_PROJECT_ID, managed_project_ids
from ..db import dump, load
from ..endpoint import ADMIN, ANY, EndpointGroup, NeedsUser, PerApi, RequestContext
from ..errors import CatalogueError, PlainError
from ..projects import (
    Project,
    api_key_set_view,
    create_api_key_set,
    create_project,
    get_project,
    set_owner_team,
    update_key_record,
    user_count,
)
from ..responses import Created
from ..schema import Bool, Num, Obj, Str, Uuid
from ..teams import has_permission, is_member
from .projects import apply_update, project_body

group = EndpointGroup()
#: Owner endpoints of `internal` without a signed-in owner.
NO_OWNER = NeedsUser("USER_AUTHENTICATION_REQUIRED")


def _owner(ctx: RequestContext) -> sqlite3.Row:
    if ctx.project.id != INTERNAL_PROJECT_ID:
        raise CatalogueError("EXPECTED_INTERNAL_PROJECT")
    return ctx.signed_in_user


@group.get("/internal/projects", tiers=ANY, needs_user=NO_OWNER)
def list_owned_projects(ctx: RequestContext) -> dict[str, Any]:
    ids = managed_project_ids(ctx.sql, ctx.api, _owner(ctx))
    projects = [p for p in (get_project(ctx.sql, pid) for pid in ids) if p is not None]
    projects.sort(key=lambda p: p.created_at_millis, reverse=True)
    return {"items": [p.owner_view(ctx.api, user_count(ctx.sql, p.id)) for p in projects], "is_paginated": False}


@group.post(
    "/internal/projects",
    tiers=ANY,
    needs_user=NO_OWNER,
    body=PerApi(v27=project_body(creating=True), v28=project_body(creating=True, api_28=True)),
)
def create_owned_project(ctx: RequestContext) -> Created:
    owner = _owner(ctx)
    if ctx.api.admin_project_at_internal:
        return Created(_create_team_owned_project(ctx, owner).owner_view(ctx.api, 0))
    # 2.7: the project is listed in the creator's server metadata (`managedProjectIds`).
    managed = managed_project_ids(ctx.sql, ctx.api, owner)
    project = apply_update(ctx, create_project(ctx.sql, ctx.body["display_name"]), ctx.body)
    metadata = load(owner["server_metadata"])
    metadata = metadata if isinstance(metadata, dict) else {}
    metadata["managedProjectIds"] = [*managed, project.id]
    ctx.sql.execute(
        "UPDATE users SET server_metadata = ? WHERE project_id = ? AND id = ?",
        (dump(metadata), owner["project_id"], owner["id"]),
    )
    return Created(project.owner_view(ctx.api, 0))


def _create_team_owned_project(ctx: RequestContext, owner: sqlite3.Row) -> Project:
    """2.8: the project belongs to `owner_team_id`, a team of `internal` the creator is a member
    of; every member of that team manages it. Localhost is allowed unless the body says not
    (service-api B14.4). Its config leaves `project.requirePublishableClientKey` unset, which 2.8
    reads as not required: client calls without the publishable key are accepted."""
    team_id = ctx.body["owner_team_id"]
    if not is_member(ctx.sql, INTERNAL_PROJECT_ID, team_id, owner["id"]):
        raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=team_id, user_id=owner["id"])
    defaults = {"allow_localhost": True, "require_publishable_client_key": False}
    body = {**ctx.body, "config": {**defaults, **ctx.body.get("config", {})}}
    created = create_project(ctx.sql, ctx.body["display_name"], api=ctx.api)
    set_owner_team(ctx.sql, created.id, team_id)
    return apply_update(ctx, dataclasses.replace(created, owner_team_id=team_id), body)


@group.post(
    "/internal/projects/transfer",
    tiers=ANY,
    needs_user=NO_OWNER,
    body=Obj({"project_id": Str(required=True), "new_team_id": Str(required=True)}, required=True),
    when=lambda api: api.admin_project_at_internal,
)
def transfer_project(ctx: RequestContext) -> dict[str, Any]:
    """2.8: hand a project to another team of `internal`. The signed-in user must hold
    `team_admin` in the current owner team and be a member (any role) of the new one."""
    owner = _owner(ctx)
    project = get_project(ctx.sql, ctx.body["project_id"])
    if project is None:
        raise CatalogueError("PROJECT_NOT_FOUND", project_id=ctx.body["project_id"])
    if project.owner_team_id is None:
        raise PlainError(400, "Project must have an owner team to be transferred")
    if not has_permission(ctx.sql, INTERNAL_PROJECT_ID, project.owner_team_id, owner["id"], "team_admin"):
        raise CatalogueError(
            "TEAM_PERMISSION_REQUIRED", team_id=project.owner_team_id, user_id=owner["id"], permission_id="team_admin"
        )
    new_team_id = ctx.body["new_team_id"]
    if not is_member(ctx.sql, INTERNAL_PROJECT_ID, new_team_id, owner["id"]):
        raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=new_team_id, user_id=owner["id"])
    set_owner_team(ctx.sql, project.id, new_team_id)
    return {"success": "true"}


API_KEY_PATH = Obj({"api_key_id": Uuid(required=True)})


@group.post(
    "/internal/api-keys",
    tiers=ADMIN,
    body=Obj(
        {
            "description": Str(required=True),
            "expires_at_millis": Num(required=True, integer=True),
            "has_publishable_client_key": Bool(required=True),
            "has_secret_server_key": Bool(required=True),
            "has_super_secret_admin_key": Bool(required=True),
        },
        required=True,
    ),
)
def create_api_keys(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body
    key_set = create_api_key_set(
        ctx.sql,
        ctx.project.id,
        body["description"],
        int(body["expires_at_millis"]),
        publishable=body["has_publishable_client_key"],
        secret=body["has_secret_server_key"],
        admin=body["has_super_secret_admin_key"],
    )
    return api_key_set_view(_key_set(ctx, key_set.id), full=True)  # the only time full keys are shown


@group.get("/internal/api-keys", tiers=ADMIN)
def list_api_keys(ctx: RequestContext) -> dict[str, Any]:
    rows = ctx.sql.execute(
        "SELECT * FROM api_key_sets WHERE project_id = ? ORDER BY created_at_millis DESC, rowid DESC",
        (ctx.project.id,),
    ).fetchall()
    return {"items": [api_key_set_view(row) for row in rows], "is_paginated": False}


@group.get("/internal/api-keys/{api_key_id}", tiers=ADMIN, params=API_KEY_PATH)
def get_api_keys(ctx: RequestContext) -> dict[str, Any]:
    return api_key_set_view(_key_set(ctx, ctx.params["api_key_id"]))


@group.patch(
    "/internal/api-keys/{api_key_id}",
    tiers=ADMIN,
    params=API_KEY_PATH,
    body=Obj({"description": Str(), "revoked": Bool(only=True)}, required=True),
)
def update_api_keys(ctx: RequestContext) -> dict[str, Any]:
    key_set = _key_set(ctx, ctx.params["api_key_id"])
    update_key_record(ctx.sql, "api_key_sets", ctx.project.id, key_set, ctx.body)
    return api_key_set_view(_key_set(ctx, key_set["id"]))


def _key_set(ctx: RequestContext, key_set_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM api_key_sets WHERE id = ? AND project_id = ?", (key_set_id, ctx.project.id)
    ).fetchone()
    if row is None:
        raise CatalogueError("API_KEY_NOT_FOUND")
    return row


routes = group.routes
