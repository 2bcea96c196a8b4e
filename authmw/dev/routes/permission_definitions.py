"""Team permission definitions (contract 5.11, admin)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import Any

from ..db import dump, load
from ..endpoint import ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import now_millis
from ..projects import SYSTEM_PERMISSIONS, save_project
from ..responses import Created
from ..schema import Arr, Obj, Str

group = EndpointGroup()
ID_PATTERN = r"^[a-z0-9_:]+$"


def _path_id(value: str) -> str | None:
    if value.startswith("$"):
        return None if value in SYSTEM_PERMISSIONS else "Invalid system permission"
    return None


PATH = Obj({"permission_id": Str(required=True, test=_path_id)})


def _body(*, creating: bool) -> Obj:
    return Obj(
        {
            "id": Str(required=creating, pattern=ID_PATTERN),
            "description": Str(),
            "contained_permission_ids": Arr(Str()),
        },
        required=True,
    )


def _view(permission_id: str, description: str, contained: list[str]) -> dict[str, Any]:
    view: dict[str, Any] = {"id": permission_id}
    if description:
        view["description"] = description
    view["contained_permission_ids"] = sorted(contained)
    return view


def _row(ctx: RequestContext, permission_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
    ).fetchone()
    if row is None:
        raise CatalogueError("PERMISSION_NOT_FOUND", permission_id=permission_id)
    return row


def _check_contained(ctx: RequestContext, contained: list[str]) -> None:
    for permission_id in contained:
        if (
            permission_id not in SYSTEM_PERMISSIONS
            and not ctx.sql.execute(
                "SELECT 1 FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
            ).fetchone()
        ):
            raise CatalogueError("CONTAINED_PERMISSION_NOT_FOUND", permission_id=permission_id)


@group.get("/team-permission-definitions", tiers=ADMIN)
def list_definitions(ctx: RequestContext) -> dict[str, Any]:
    items = [_view(pid, text, []) for pid, text in SYSTEM_PERMISSIONS.items()]
    for row in ctx.sql.execute("SELECT * FROM permission_definitions WHERE project_id = ?", (ctx.project.id,)):
        items.append(_view(row["id"], row["description"], load(row["contained_permission_ids"])))
    return {"items": sorted(items, key=lambda item: item["id"]), "is_paginated": False}


@group.post("/team-permission-definitions", tiers=ADMIN, body=_body(creating=True))
def create(ctx: RequestContext) -> Created:
    permission_id = ctx.body["id"]
    contained = ctx.body.get("contained_permission_ids", [])
    _check_contained(ctx, contained)
    exists = ctx.sql.execute(
        "SELECT 1 FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
    ).fetchone()
    if exists:
        raise PlainError(400, f'A permission with the id "{permission_id}" already exists.')
    description = ctx.body.get("description", "")
    ctx.sql.execute(
        "INSERT INTO permission_definitions (project_id, id, description, contained_permission_ids,"
        " created_at_millis) VALUES (?, ?, ?, ?, ?)",
        (ctx.project.id, permission_id, description, dump(sorted(contained)), now_millis()),
    )
    return Created(_view(permission_id, description, contained))


@group.patch("/team-permission-definitions/{permission_id}", tiers=ADMIN, params=PATH, body=_body(creating=False))
def update(ctx: RequestContext) -> dict[str, Any]:
    row = _row(ctx, ctx.params["permission_id"])
    old_id, new_id = row["id"], ctx.body.get("id", row["id"])
    description = ctx.body.get("description", row["description"])
    contained = ctx.body.get("contained_permission_ids", load(row["contained_permission_ids"]))
    _check_contained(ctx, contained)
    ctx.sql.execute(
        "UPDATE permission_definitions SET id = ?, description = ?, contained_permission_ids = ?"
        " WHERE project_id = ? AND id = ?",
        (new_id, description, dump(sorted(contained)), ctx.project.id, old_id),
    )
    if new_id != old_id:
        _rename_references(ctx, old_id, new_id)
    return _view(new_id, description, contained)


@group.delete("/team-permission-definitions/{permission_id}", tiers=ADMIN, params=PATH)
def delete(ctx: RequestContext) -> dict[str, bool]:
    permission_id = _row(ctx, ctx.params["permission_id"])["id"]
    ctx.sql.execute(
        "DELETE FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
    )
    _rename_references(ctx, permission_id, None)
    return {"success": True}


def _rename_references(ctx: RequestContext, old_id: str, new_id: str | None) -> None:
    """Grants, containing definitions and the project's default permissions follow a rename or delete."""
    project_id = ctx.project.id
    if new_id is None:
        ctx.sql.execute(
            "DELETE FROM team_member_permissions WHERE project_id = ? AND permission_id = ?", (project_id, old_id)
        )
    else:
        ctx.sql.execute(
            "UPDATE team_member_permissions SET permission_id = ? WHERE project_id = ? AND permission_id = ?",
            (new_id, project_id, old_id),
        )
    for row in ctx.sql.execute(
        "SELECT id, contained_permission_ids FROM permission_definitions WHERE project_id = ?", (project_id,)
    ).fetchall():
        contained = load(row["contained_permission_ids"])
        if old_id in contained:
            kept = {pid for pid in contained if pid != old_id}
            updated = sorted(kept | {new_id} if new_id is not None else kept)
            ctx.sql.execute(
                "UPDATE permission_definitions SET contained_permission_ids = ? WHERE project_id = ? AND id = ?",
                (dump(updated), project_id, row["id"]),
            )
    config = dict(ctx.project.config)
    for key in ("team_creator_default_permissions", "team_member_default_permissions"):
        refs = [{"id": new_id if ref["id"] == old_id else ref["id"]} for ref in config[key]]
        config[key] = [ref for ref in refs if ref["id"] is not None]
    save_project(ctx.sql, replace(ctx.project, config=config))


routes = group.routes
