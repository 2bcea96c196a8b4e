"""Quart: the session's user as ``current_user`` (requests and websockets), and the guards
``user_required``, ``team_member_required``, ``team_permission_required`` and
``require_permission`` (docs/quart.md)."""

from authmw.adapter import DEFAULT_TEAM_ARG, TeamRequirement

from ._extension import (
    AuthMW,
    Guard,
    current_user,
    get_user,
    require_permission,
    team_member_required,
    team_permission_required,
    user_required,
)
from ._web import serve_web

__all__ = [
    "AuthMW",
    "DEFAULT_TEAM_ARG",
    "Guard",
    "TeamRequirement",
    "current_user",
    "get_user",
    "require_permission",
    "serve_web",
    "team_member_required",
    "team_permission_required",
    "user_required",
]
