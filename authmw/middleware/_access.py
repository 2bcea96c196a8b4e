"""What framework guards decide, free of any framework: refusals and where to sign in.

A guard refuses an anonymous user with :class:`UserAuthenticationRequired` (401 for APIs, a
redirect to :func:`sign_in_url` for pages) and a signed-in user who lacks a team
membership or permission with the error :func:`team_refusal` returns (403).

Team checks are the server app's own calls (``teams.list(user_id=...)`` and
``team_permissions.has(...)``), run by whichever driver the guard uses.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar, overload
from urllib.parse import urlencode

from authmw._apps import AsyncServerApp, ServerApp
from authmw._ops import AtOnce, Op
from authmw._urls import same_origin_path
from authmw.errors import (
    ApiKeyNotAccepted,
    ConfigurationError,
    HttpStatusError,
    KnownError,
    NetworkError,
    ProjectPermissionRequired,
    TeamMembershipNotFound,
    TeamPermissionRequired,
    UserAuthenticationRequired,
)

from ._core import Refusal

logger = logging.getLogger("authmw.middleware")

__all__ = [
    "DEFAULT_TEAM_ARG",
    "FORBIDDEN",
    "PermissionRequirement",
    "TeamRequirement",
    "TeamSource",
    "forbidden",
    "guard_decorators",
    "admission",
    "is_json_request",
    "permission_decorator",
    "requirement_refusal",
    "team_key_refusal",
    "permission_refusal",
    "sign_in_url",
    "team_refusal",
]

#: Status of a team refusal: the user is known but not allowed. (The catalogue's statuses
#: of these errors, 401 and 404, describe the service's own calls.)
FORBIDDEN = 403
#: Team ids are UUIDs; anything else cannot name a team the user belongs to.
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def sign_in_url(handler_path: str, return_to: str | None) -> str:
    """The sign-in page, coming back to ``return_to`` afterwards when it is a path of this
    site as a browser reads it (:func:`authmw._urls.same_origin_path`); else without one."""
    base = handler_path.rstrip("/")
    judged = same_origin_path(return_to)
    if judged is None:
        return f"{base}/sign-in"
    return f"{base}/sign-in?" + urlencode({"after_auth_return_to": judged})


def is_json_request(path: str, accept: str | None, api_paths: Iterable[str]) -> bool:
    """Whether a refusal should be JSON rather than a redirect to the sign-in page."""
    if any(path.startswith(prefix) for prefix in api_paths):
        return True
    accept = (accept or "").lower()
    return "application/json" in accept and "text/html" not in accept


def forbidden(error: KnownError) -> Refusal:
    """A guard's 403 with the service's envelope of ``error``."""
    return Refusal(FORBIDDEN, error.message, code=error.code, details=error.details or None)


def team_refusal(
    server: ServerApp | AsyncServerApp, user_id: str, team_id: object, permission_id: str | None = None
) -> Op[KnownError | None]:
    """None when the user is a member of the team (holding ``permission_id``, directly or
    through contained permissions), else the error to answer with (see :func:`forbidden`).

    The server app's own operations, run by the caller's driver. Raises :class:`Refusal`
    (503) when the service cannot be asked."""
    details = {"team_id": str(team_id), "user_id": user_id}
    if permission_id is None:
        refused: KnownError = TeamMembershipNotFound(details=details)
    else:
        refused = TeamPermissionRequired(details={**details, "permission_id": permission_id})
    if not isinstance(team_id, str) or not _UUID.match(team_id):
        return refused
    try:
        if permission_id is None:
            teams = server.teams
            listed = yield AtOnce(type(teams).list.op(teams, user_id=user_id))
            found = any(team.id == team_id for team in listed)
        else:
            permissions = server.team_permissions
            found = yield AtOnce(type(permissions).has.op(permissions, team_id, user_id, permission_id))
    except (NetworkError, HttpStatusError) as exc:
        if isinstance(exc, HttpStatusError) and exc.status < 500:
            raise
        # Type and status only: messages quote request details.
        logger.warning("authmw: checking team access failed (%s); answering 503", type(exc).__name__)
        raise Refusal(503, "The authentication service is unavailable; try again shortly.") from None
    return None if found else refused


def permission_refusal(server: ServerApp | AsyncServerApp, user_id: str, permission_id: str) -> Op[KnownError | None]:
    """None when the user holds the project permission ``permission_id`` (API 2.8), directly or
    through contained permissions, else ``ProjectPermissionRequired`` (see :func:`forbidden`).

    One ``GET /project-permissions`` through the server app, run by the caller's driver;
    :class:`Refusal` (503) when the service cannot be asked."""
    try:
        permissions = server.project_permissions
        found = yield AtOnce(type(permissions).has.op(permissions, user_id, permission_id))
    except (NetworkError, HttpStatusError) as exc:
        if isinstance(exc, HttpStatusError) and exc.status < 500:
            raise
        logger.warning("authmw: checking a project permission failed (%s); answering 503", type(exc).__name__)
        raise Refusal(503, "The authentication service is unavailable; try again shortly.") from None
    return None if found else ProjectPermissionRequired(details={"user_id": user_id, "permission_id": permission_id})


#: ``via`` of the principals of API keys (``ApiKeyUser``, ``ApiKeyTeam``).
KEY_VIAS = frozenset({"user_api_key", "team_api_key"})


def admission(user: object, api_keys: bool, *, team_guard: bool = False) -> KnownError | bool:
    """Whether a guard goes on to its own checks: True (a session's user, or a key the route
    accepts), False (nobody: the guard's usual 401 or sign-in page), or the error to refuse a
    key with (401 ``API_KEY_NOT_ACCEPTED`` where the route takes sessions only; a team's key
    is not a user, so only team guards take it)."""
    via = getattr(user, "via", None)
    if via not in KEY_VIAS:
        return bool(getattr(user, "is_authenticated", False))
    if not api_keys:
        return ApiKeyNotAccepted(details={"reason": f"a {via.replace('_', ' ')} was sent; this route takes sessions"})
    if via == "team_api_key" and not team_guard:
        return UserAuthenticationRequired()
    return True


def team_key_refusal(user: object, team_id: object, permission_id: str | None) -> KnownError | None:
    """A team's key (``ApiKeyTeam``) admitted by a team guard: it is a member of its own team
    only, and holds no permission (permissions belong to users). No I/O."""
    own = getattr(user, "team_id", None)
    details = {"team_id": str(team_id), "user_id": ""}
    if str(team_id) != own:
        return TeamMembershipNotFound(details=details)
    if permission_id is not None:
        return TeamPermissionRequired(details={**details, "permission_id": permission_id})
    return None


def requirement_refusal(
    server: ServerApp | AsyncServerApp, user: Any, requirement: Any, team_id: object = None
) -> Op[KnownError | None]:
    """One requirement of a Flask or Django guard for an admitted user: a project permission
    (:class:`PermissionRequirement`) or a team membership / permission (the adapter's
    ``TeamRequirement``, whose team id the adapter read from the view)."""
    if getattr(user, "via", None) == "team_api_key":
        permission = getattr(requirement, "permission_id", None)
        if isinstance(requirement, PermissionRequirement):
            return ProjectPermissionRequired(details={"user_id": "", "permission_id": permission})
        return team_key_refusal(user, team_id, permission)
    if isinstance(requirement, PermissionRequirement):
        return (yield from requirement.refusal(server, user.id))
    return (yield from team_refusal(server, user.id, team_id, requirement.permission_id))


# -- the decorators every adapter offers, built once over the adapter's own Guard --------------


class PermissionRequirement:
    """What ``require_permission("id")`` asks of a guard: the user holds a project permission
    (API 2.8). Needs nothing from the view; adapters run :meth:`refusal` with their driver."""

    __slots__ = ("permission_id",)

    def __init__(self, permission_id: str) -> None:
        if not isinstance(permission_id, str) or not permission_id:
            raise TypeError('require_permission needs the permission id: require_permission("docs:write")')
        self.permission_id = permission_id

    def refusal(self, server: ServerApp | AsyncServerApp, user_id: str) -> Op[KnownError | None]:
        return permission_refusal(server, user_id, self.permission_id)

    def __repr__(self) -> str:
        return f"PermissionRequirement({self.permission_id!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PermissionRequirement) and other.permission_id == self.permission_id

    def __hash__(self) -> int:
        return hash(("PermissionRequirement", self.permission_id))


#: A view function a guard decorates (and returns, wrapped, with the same type).
ViewFunction = TypeVar("ViewFunction", bound=Callable[..., Any])
#: A team id source: the name of the view argument holding it, or a callable taking the
#: view's arguments and returning it.
TeamSource = str | Callable[..., Any]
#: Where team guards look for the team id unless told otherwise.
DEFAULT_TEAM_ARG = "team_id"


@dataclass(frozen=True)
class TeamRequirement:
    """What a team guard asks of a view taking keyword arguments (Flask, Quart): membership of
    the team the view names (``team``: the argument holding its id, or a callable of the view's
    arguments), and maybe a team permission."""

    team: TeamSource
    permission_id: str | None = None

    def team_id(self, view_args: dict[str, Any]) -> Any:
        if callable(self.team):
            return self.team(**view_args)
        if self.team not in view_args:
            raise ConfigurationError(
                f"A team guard reads the team id from the view argument {self.team!r}, which this request's "
                f"view did not get (it got {sorted(view_args)}). Pass team='<argument name>' or team=callable(**view_args)."
            )
        return view_args[self.team]


class UserRequiredDecorator(Protocol):
    @overload
    def __call__(self, view: ViewFunction, /) -> ViewFunction: ...
    @overload
    def __call__(self, *, api: bool | None = None, api_keys: bool = False) -> Callable[[ViewFunction], ViewFunction]: ...


class TeamMemberRequiredDecorator(Protocol):
    @overload
    def __call__(self, view: ViewFunction, /) -> ViewFunction: ...
    @overload
    def __call__(
        self, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, api_keys: bool = False
    ) -> Callable[[ViewFunction], ViewFunction]: ...


class TeamPermissionRequiredDecorator(Protocol):
    def __call__(
        self, permission_id: str, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, api_keys: bool = False
    ) -> Callable[[ViewFunction], ViewFunction]: ...


def guard_decorators(
    make_guard: Callable[..., Callable[[Any], Any]],
    make_requirement: Callable[[TeamSource, str | None], Any],
) -> tuple[UserRequiredDecorator, TeamMemberRequiredDecorator, TeamPermissionRequiredDecorator]:
    """``user_required``, ``team_member_required`` and ``team_permission_required`` over an
    adapter's ``Guard(*requirements, api=...)`` and ``TeamRequirement(team, permission_id)``.

    The first two work with and without parentheses; the permission guard always names its
    permission."""

    def apply(guard: Callable[[Any], Any], view: Any) -> Any:
        if view is None:
            return guard
        if not callable(view):
            raise TypeError(
                f"Expected a view function, got {view!r}; options are keyword arguments (api=..., team=...)."
            )
        return guard(view)

    def user_required(view: Any = None, /, *, api: bool | None = None, api_keys: bool = False) -> Any:
        """The view runs for signed-in users; others are sent to sign in (pages) or get a 401.
        ``api_keys=True``: also for a user calling with one of their API keys."""
        return apply(make_guard(api=api, api_keys=api_keys), view)

    def team_member_required(
        view: Any = None, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, api_keys: bool = False
    ) -> Any:
        """The view runs for members of the team (by default the view's ``team_id`` argument).
        ``api_keys=True``: also for a member's API key and for the team's own key."""
        return apply(make_guard(make_requirement(team, None), api=api, api_keys=api_keys), view)

    def team_permission_required(
        permission_id: str, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, api_keys: bool = False
    ) -> Any:
        """The view runs for users holding ``permission_id`` in the team, directly or through
        a permission that contains it."""
        if not isinstance(permission_id, str):
            raise TypeError(
                'team_permission_required needs the permission id: @team_permission_required("$update_team")'
            )
        return make_guard(make_requirement(team, permission_id), api=api, api_keys=api_keys)

    return user_required, team_member_required, team_permission_required


class PermissionRequiredDecorator(Protocol):
    def __call__(self, permission_id: str, /, *, api: bool | None = None, api_keys: bool = False) -> Callable[[ViewFunction], ViewFunction]: ...


def permission_decorator(make_guard: Callable[..., Callable[[Any], Any]]) -> PermissionRequiredDecorator:
    """``require_permission`` over an adapter's ``Guard(*requirements, api=...)``: the view runs
    for users holding a project permission (API 2.8), directly or contained; others get 403
    ``PROJECT_PERMISSION_REQUIRED`` (anonymous visitors: 401 or the sign-in page)."""

    def require_permission(permission_id: str, /, *, api: bool | None = None, api_keys: bool = False) -> Any:
        """The view runs for users holding the project permission ``permission_id``
        (``api_keys=True``: also for such a user's API key)."""
        return make_guard(PermissionRequirement(permission_id), api=api, api_keys=api_keys)

    return require_permission
