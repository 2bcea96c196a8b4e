"""Team guards for FastAPI: membership of a team, a permission in a team; and (API 2.8)
``require_permission`` for a project permission.

::

    @app.get("/teams/{team_id}/reports")
    async def reports(user: AuthUser = Depends(require_team_permission("read_reports"))): ...

The team comes from a path parameter (``team="team_id"``, the default) or a callable
taking the connection (sync or async). An anonymous visitor gets 401 (or the sign-in page
with ``api=False``), a signed-in user without the membership or permission 403 with the
service's envelope (``TEAM_MEMBERSHIP_NOT_FOUND`` / ``TEAM_PERMISSION_REQUIRED``). Each is
the core's access decision (:func:`authmw.adapter.decide`), as in every adapter.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection

from authmw.adapter import DEFAULT_TEAM_ARG, AccessOptions, PermissionRequirement, TeamRequirement
from authmw.errors import ConfigurationError

from ._guards import Guard

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The path parameter team guards read unless told otherwise.
DEFAULT_TEAM_PARAM = DEFAULT_TEAM_ARG
#: Where a team guard finds the team id: a path parameter's name, or a callable taking the
#: connection (``Request`` or ``WebSocket``) and returning the id or an awaitable of it.
TeamSource = str | Callable[[HTTPConnection], Any]


def require_team_member(
    team: TeamSource = DEFAULT_TEAM_PARAM, *, api: bool | None = True, **access: Unpack[AccessOptions]
) -> Guard:
    """A guard: the signed-in user must be a member of the team (``api_keys=True``: or call
    with a member's API key, or the team's own key)."""
    return Guard(TeamCheck(team), api=api, **access)


def require_team_permission(
    permission_id: str, team: TeamSource = DEFAULT_TEAM_PARAM, *, api: bool | None = True, **access: Unpack[AccessOptions]
) -> Guard:
    """A guard: the signed-in user must hold ``permission_id`` in the team (directly or
    through a permission containing it)."""
    if not permission_id:
        raise ValueError("require_team_permission needs a permission id, e.g. require_team_permission('$update_team').")
    return Guard(TeamCheck(team, permission_id), api=api, **access)


def require_permission(permission_id: str, *, api: bool | None = True, **access: Unpack[AccessOptions]) -> Guard:
    """A guard: the signed-in user must hold the project permission ``permission_id`` (API 2.8),
    directly or contained; others get 403 ``PROJECT_PERMISSION_REQUIRED``."""
    return Guard(PermissionCheck(permission_id), api=api, **access)


class PermissionCheck(PermissionRequirement):
    """The project permission of ``require_permission``; usable in ``Guard(PermissionCheck("id"), ...)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"PermissionCheck({self.permission_id!r})"


@dataclass(frozen=True)
class TeamCheck(TeamRequirement):
    """The team requirement of a team guard; usable in ``Guard(TeamCheck(...), your_check)``."""

    team: TeamSource = DEFAULT_TEAM_PARAM
    permission_id: str | None = None

    async def team_id_of(self, conn: HTTPConnection) -> Any:
        """The team id from the path parameter ``team``, or what the callable ``team`` returns."""
        if callable(self.team):
            value = self.team(conn)
            return await value if inspect.isawaitable(value) else value
        params = conn.path_params
        if self.team not in params:
            raise ConfigurationError(
                f"A team guard reads the team id from the path parameter {self.team!r}, which this route does not "
                f"have (it has {sorted(params)}). Pass team='<parameter name>' or team=callable(connection)."
            )
        return params[self.team]
