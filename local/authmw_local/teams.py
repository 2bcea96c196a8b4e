"""Team rows and views (the team routes come later; sign-up and user views need these)."""

from __future__ import annotations

import sqlite3
from typing import Any

from . import payments, webhooks
from .db import dump, load
from .ids import new_uuid, now_millis
from .projects import Project


def team_view(row: sqlite3.Row, tier: str) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": row["id"],
        "display_name": row["display_name"],
        "profile_image_url": row["profile_image_url"],
        "client_metadata": load(row["client_metadata"]),
        "client_read_only_metadata": load(row["client_read_only_metadata"]),
    }
    if tier != "client":
        view["created_at_millis"] = row["created_at_millis"]
        view["server_metadata"] = load(row["server_metadata"])
    return view


def get_team(c: sqlite3.Connection, project_id: str, team_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = c.execute(
        "SELECT * FROM teams WHERE id = ? AND project_id = ?", (team_id, project_id)
    ).fetchone()
    return row


def add_member(c: sqlite3.Connection, project: Project, team_id: str, user_id: str, *, as_creator: bool) -> None:
    c.execute(
        "INSERT INTO team_members (project_id, team_id, user_id, created_at_millis) VALUES (?, ?, ?, ?)",
        (project.id, team_id, user_id, now_millis()),
    )
    key = "team_creator_default_permissions" if as_creator else "team_member_default_permissions"
    for permission in project.config[key]:
        c.execute(
            "INSERT OR IGNORE INTO team_member_permissions (project_id, team_id, user_id, permission_id)"
            " VALUES (?, ?, ?, ?)",
            (project.id, team_id, user_id, permission["id"]),
        )
    if not as_creator:
        webhooks.membership_created(c, project.id, team_id, user_id, [p["id"] for p in project.config[key]])


def create_team(
    c: sqlite3.Connection,
    project: Project,
    display_name: str,
    *,
    creator_user_id: str | None = None,
    profile_image_url: str | None = None,
    client_metadata: Any = None,
    client_read_only_metadata: Any = None,
    server_metadata: Any = None,
) -> str:
    team_id = new_uuid()
    c.execute(
        "INSERT INTO teams (id, project_id, display_name, profile_image_url, client_metadata,"
        " client_read_only_metadata, server_metadata, created_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            team_id,
            project.id,
            display_name,
            profile_image_url,
            dump(client_metadata),
            dump(client_read_only_metadata),
            dump(server_metadata),
            now_millis(),
        ),
    )
    if creator_user_id is not None:
        add_member(c, project, team_id, creator_user_id, as_creator=True)
    payments.grant_free_plan(c, project.id, team_id)  # (a team of `internal`: one seat)
    webhooks.team_created(c, project.id, team_id)
    return team_id


def is_member(c: sqlite3.Connection, project_id: str, team_id: str, user_id: str) -> bool:
    row = c.execute(
        "SELECT 1 FROM team_members WHERE project_id = ? AND team_id = ? AND user_id = ?",
        (project_id, team_id, user_id),
    ).fetchone()
    return row is not None


def remove_member(c: sqlite3.Connection, project_id: str, team_id: str, user_id: str) -> None:
    # Permissions go with the membership (ON DELETE CASCADE).
    webhooks.membership_deleted(c, project_id, team_id, user_id)
    c.execute(
        "DELETE FROM team_members WHERE project_id = ? AND team_id = ? AND user_id = ?", (project_id, team_id, user_id)
    )
    c.execute(
        "UPDATE users SET selected_team_id = NULL WHERE project_id = ? AND id = ? AND selected_team_id = ?",
        (project_id, user_id, team_id),
    )


def delete_team(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    c.execute(
        "UPDATE users SET selected_team_id = NULL WHERE project_id = ? AND selected_team_id = ?", (project_id, team_id)
    )
    c.execute("DELETE FROM teams WHERE project_id = ? AND id = ?", (project_id, team_id))
    webhooks.team_deleted(c, project_id, team_id)


def permission_exists(c: sqlite3.Connection, project_id: str, permission_id: str) -> bool:
    """Whether a team permission of this id exists (PERMISSION_NOT_FOUND otherwise); an id of a
    project permission is WRONG_PERMISSION_SCOPE (service-api B9.3)."""
    from .errors import CatalogueError
    from .projects import system_permissions

    if permission_id in system_permissions():
        return True
    row = c.execute(
        "SELECT scope FROM permission_definitions WHERE project_id = ? AND id = ?", (project_id, permission_id)
    ).fetchone()
    if row is not None and row["scope"] != "team":
        raise CatalogueError(
            "WRONG_PERMISSION_SCOPE", permission_id=permission_id, expected_scope="team", actual_scope=row["scope"]
        )
    return row is not None


def contained_permissions(c: sqlite3.Connection, project_id: str, scope: str = "team") -> dict[str, list[str]]:
    """Permission id -> the ids it directly contains, among the definitions of a scope ("team"
    or, API 2.8, "project"; system permissions contain nothing)."""
    return {
        row["id"]: load(row["contained_permission_ids"])
        for row in c.execute(
            "SELECT id, contained_permission_ids FROM permission_definitions WHERE project_id = ? AND scope = ?",
            (project_id, scope),
        )
    }


def expand(granted: set[str], contains: dict[str, list[str]]) -> set[str]:
    """Every permission held through `granted`, transitively."""
    held: set[str] = set()
    pending = list(granted)
    while pending:
        permission_id = pending.pop()
        if permission_id not in held:
            held.add(permission_id)
            pending.extend(contains.get(permission_id, []))
    return held


def granted_permissions(c: sqlite3.Connection, project_id: str, team_id: str, user_id: str) -> set[str]:
    return {
        row["permission_id"]
        for row in c.execute(
            "SELECT permission_id FROM team_member_permissions WHERE project_id = ? AND team_id = ? AND user_id = ?",
            (project_id, team_id, user_id),
        )
    }


def has_permission(c: sqlite3.Connection, project_id: str, team_id: str, user_id: str, permission_id: str) -> bool:
    held = expand(granted_permissions(c, project_id, team_id, user_id), contained_permissions(c, project_id))
    return permission_id in held


def _server_team(c: sqlite3.Connection, project_id: str, team_id: str) -> dict[str, Any] | None:
    row = c.execute("SELECT * FROM teams WHERE project_id = ? AND id = ?", (project_id, team_id)).fetchone()
    return None if row is None else team_view(row, "server")


webhooks.SUBJECT_VIEWS["team"] = _server_team
