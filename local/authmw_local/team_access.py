"""Who may do what in a team on the client tier (service-api A5.6), shared by the team routes."""

from __future__ import annotations

import sqlite3

from .endpoint import RequestContext
from .errors import CatalogueError, PlainError
from .teams import get_team, has_permission, is_member


def existing_team(ctx: RequestContext, team_id: str) -> sqlite3.Row:
    team = get_team(ctx.sql, ctx.project.id, team_id)
    if team is None:
        raise CatalogueError("TEAM_NOT_FOUND", team_id=team_id)
    return team


def client_user_id(ctx: RequestContext) -> str:
    if ctx.user is None:
        raise CatalogueError("USER_AUTHENTICATION_REQUIRED")
    return str(ctx.user["id"])


def require_membership(ctx: RequestContext, team_id: str, user_id: str) -> None:
    if not is_member(ctx.sql, ctx.project.id, team_id, user_id):
        raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=team_id, user_id=user_id)


def require_permission(ctx: RequestContext, team_id: str, permission_id: str) -> None:
    """Client tier only: the current user must hold `permission_id` in the team."""
    user_id = client_user_id(ctx)
    if not has_permission(ctx.sql, ctx.project.id, team_id, user_id, permission_id):
        raise CatalogueError("TEAM_PERMISSION_REQUIRED", team_id=team_id, user_id=user_id, permission_id=permission_id)


def own_user_only(ctx: RequestContext, user_id: str | None, message: str) -> str:
    """Client filters must name the current user ("me" or its id), else a plain 403."""
    if user_id == "me":
        return ctx.user_id_or_me(user_id)
    if user_id is None or ctx.user is None or user_id != ctx.user["id"]:
        raise PlainError(403, message)
    return user_id
