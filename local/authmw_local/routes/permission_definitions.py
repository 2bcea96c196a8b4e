"""Permission definitions (admin): team ones (service-api A5.11) and, in API 2.8, project ones
(service-api B9.1).

Both kinds live in one table with a `scope` column, so they share one id namespace as in the
backend's project config. The team list shows the system permissions (`$...`); the project
list has none. Renaming or deleting a definition carries over to the grants, the definitions
containing it and the project's default permissions of its scope.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from ..api_version import ApiVersion
from ..db import dump, load
from ..endpoint import ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import now_millis
from ..projects import save_project, system_permissions
from ..responses import Created
from ..schema import Arr, Obj, Str

group = EndpointGroup()
ID_PATTERN = r"^[a-z0-9_:]+$"


@dataclass(frozen=True)
class Scope:
    name: str  # "team" | "project"
    path: str
    #: The table of grants and the project config keys of the default grants.
    grants_table: str
    default_keys: tuple[str, ...]


TEAM = Scope(
    "team",
    "/team-permission-definitions",
    "team_member_permissions",
    ("team_creator_default_permissions", "team_member_default_permissions"),
)
PROJECT = Scope("project", "/project-permission-definitions", "project_user_permissions", ("user_default_permissions",))


def _path_id(value: str) -> str | None:
    if value.startswith("$"):
        return None if value in system_permissions() else "Invalid system permission"
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


def definition_scope(c: sqlite3.Connection, project_id: str, permission_id: str) -> str | None:
    """"team", "project" or None (no such definition; system permissions are "team")."""
    if permission_id in system_permissions():
        return "team"
    row = c.execute(
        "SELECT scope FROM permission_definitions WHERE project_id = ? AND id = ?", (project_id, permission_id)
    ).fetchone()
    return None if row is None else str(row["scope"])


def _row(ctx: RequestContext, scope: Scope, permission_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM permission_definitions WHERE project_id = ? AND id = ? AND scope = ?",
        (ctx.project.id, permission_id, scope.name),
    ).fetchone()
    if row is None:
        raise CatalogueError("PERMISSION_NOT_FOUND", permission_id=permission_id)
    return row


def _check_contained(ctx: RequestContext, scope: Scope, contained: list[str]) -> None:
    for permission_id in contained:
        if definition_scope(ctx.sql, ctx.project.id, permission_id) != scope.name:
            raise CatalogueError("CONTAINED_PERMISSION_NOT_FOUND", permission_id=permission_id)


def _refuse_taken(ctx: RequestContext, permission_id: str) -> None:
    """An id any definition (of either scope) already has: PERMISSION_ID_ALREADY_EXISTS in 2.8,
    2.7's plain 400 before it (service-api B2.2)."""
    taken = ctx.sql.execute(
        "SELECT 1 FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
    ).fetchone()
    if taken or permission_id in system_permissions():
        if ctx.api.project_permissions:
            raise CatalogueError("PERMISSION_ID_ALREADY_EXISTS", permission_id=permission_id)
        raise PlainError(400, f'A permission with the id "{permission_id}" already exists.')


def _list(ctx: RequestContext, scope: Scope) -> dict[str, Any]:
    items = [_view(pid, text, []) for pid, text in system_permissions().items()] if scope is TEAM else []
    for row in ctx.sql.execute(
        "SELECT * FROM permission_definitions WHERE project_id = ? AND scope = ?", (ctx.project.id, scope.name)
    ):
        items.append(_view(row["id"], row["description"], load(row["contained_permission_ids"])))
    return {"items": sorted(items, key=lambda item: item["id"]), "is_paginated": False}


def _create(ctx: RequestContext, scope: Scope) -> Created:
    permission_id = ctx.body["id"]
    contained = ctx.body.get("contained_permission_ids", [])
    _check_contained(ctx, scope, contained)
    _refuse_taken(ctx, permission_id)
    description = ctx.body.get("description", "")
    ctx.sql.execute(
        "INSERT INTO permission_definitions (project_id, id, description, contained_permission_ids,"
        " created_at_millis, scope) VALUES (?, ?, ?, ?, ?, ?)",
        (ctx.project.id, permission_id, description, dump(sorted(contained)), now_millis(), scope.name),
    )
    return Created(_view(permission_id, description, contained))


def _update(ctx: RequestContext, scope: Scope) -> dict[str, Any]:
    row = _row(ctx, scope, ctx.params["permission_id"])
    old_id, new_id = row["id"], ctx.body.get("id", row["id"])
    description = ctx.body.get("description", row["description"])
    contained = ctx.body.get("contained_permission_ids", load(row["contained_permission_ids"]))
    _check_contained(ctx, scope, contained)
    if new_id != old_id:
        _refuse_taken(ctx, new_id)
    ctx.sql.execute(
        "UPDATE permission_definitions SET id = ?, description = ?, contained_permission_ids = ?"
        " WHERE project_id = ? AND id = ?",
        (new_id, description, dump(sorted(contained)), ctx.project.id, old_id),
    )
    if new_id != old_id:
        _rename_references(ctx, scope, old_id, new_id)
    return _view(new_id, description, contained)


def _delete(ctx: RequestContext, scope: Scope) -> dict[str, bool]:
    permission_id = _row(ctx, scope, ctx.params["permission_id"])["id"]
    ctx.sql.execute(
        "DELETE FROM permission_definitions WHERE project_id = ? AND id = ?", (ctx.project.id, permission_id)
    )
    _rename_references(ctx, scope, permission_id, None)
    return {"success": True}


def _rename_references(ctx: RequestContext, scope: Scope, old_id: str, new_id: str | None) -> None:
    """Grants, containing definitions and the project's default permissions follow a rename or delete."""
    project_id = ctx.project.id
    table = scope.grants_table
    if new_id is None:
        ctx.sql.execute(f"DELETE FROM {table} WHERE project_id = ? AND permission_id = ?", (project_id, old_id))
    else:
        ctx.sql.execute(
            f"UPDATE {table} SET permission_id = ? WHERE project_id = ? AND permission_id = ?",
            (new_id, project_id, old_id),
        )
    for row in ctx.sql.execute(
        "SELECT id, contained_permission_ids FROM permission_definitions WHERE project_id = ? AND scope = ?",
        (project_id, scope.name),
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
    for key in scope.default_keys:
        refs = [{"id": new_id if ref["id"] == old_id else ref["id"]} for ref in config[key]]
        config[key] = [ref for ref in refs if ref["id"] is not None]
    save_project(ctx.sql, replace(ctx.project, config=config))


def _has_project_permissions(api: ApiVersion) -> bool:
    return api.project_permissions


def _register(scope: Scope) -> None:
    """The four routes of a scope (project definitions only where the version has them)."""
    when = None if scope is TEAM else _has_project_permissions

    def list_definitions(ctx: RequestContext) -> dict[str, Any]:
        return _list(ctx, scope)

    def create(ctx: RequestContext) -> Created:
        return _create(ctx, scope)

    def update(ctx: RequestContext) -> dict[str, Any]:
        return _update(ctx, scope)

    def delete(ctx: RequestContext) -> dict[str, bool]:
        return _delete(ctx, scope)

    for handler in (list_definitions, create, update, delete):
        handler.__name__ = f"{handler.__name__}_{scope.name}"
    one = scope.path + "/{permission_id}"
    group.get(scope.path, tiers=ADMIN, when=when)(list_definitions)
    group.post(scope.path, tiers=ADMIN, body=_body(creating=True), when=when)(create)
    group.patch(one, tiers=ADMIN, params=PATH, body=_body(creating=False), when=when)(update)
    group.delete(one, tiers=ADMIN, params=PATH, when=when)(delete)


_register(TEAM)
_register(PROJECT)


routes = group.routes
