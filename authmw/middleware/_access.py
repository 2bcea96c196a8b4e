"""The one access decision of every framework's guards, free of any framework.

A guard holds a :class:`Rule` (what the route asks) and asks :func:`decide` about the
request's user (nobody, a session's user, an anonymous or restricted one, a user's or a
team's API key, a user the app does not sign in); the answer is None (let in) or a
:class:`Denial`, which the adapter only translates (:meth:`Denial.refusal`; a page's 403
as the framework's own 403 page where it has one):

==================================================  ======  ===============================
caller                                              status  page
==================================================  ======  ===============================
an API key on a route without ``api_keys``          401     (JSON) API_KEY_NOT_ACCEPTED
nobody; an anonymous user the app or route refuses  401     redirect to sign-in
a restricted user the app or route refuses          401     redirect to onboarding
                                                            (RESTRICTED_USER_NOT_ALLOWED)
a team's key on a route without team requirements   401     (JSON) USER_AUTHENTICATION_REQUIRED
lacking a membership or permission                  403     the framework's 403 page
the service cannot be asked about one               503     (JSON)
==================================================  ======  ===============================

A user's API key counts as its holder: the middleware makes an anonymous or restricted
user's key an :class:`~authmw.middleware.UnadmittedUser` where the app does not sign such
users in, as it does their sessions. Team checks are the server app's own calls
(``teams.list(user_id=...)``, ``team_permissions.has(...)``, ``project_permissions.has``),
run by whichever driver the guard uses.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, TypeVar, overload
from urllib.parse import urlencode

from authmw._apps import AsyncServerApp, ServerApp
from authmw._ops import AtOnce, Op
from authmw._urls import same_origin_path
from authmw.errors import (
    AnonymousAuthenticationNotAllowed,
    ApiKeyNotAccepted,
    ConfigurationError,
    HttpStatusError,
    KnownError,
    NetworkError,
    ProjectPermissionRequired,
    RestrictedUserNotAllowed,
    TeamMembershipNotFound,
    TeamPermissionRequired,
    UserAuthenticationRequired,
)

from ._outage import is_transient
from ._refusal import Refusal

if TYPE_CHECKING:
    from typing_extensions import Unpack

logger = logging.getLogger("authmw.middleware")

__all__ = [
    "DEFAULT_TEAM_ARG",
    "FORBIDDEN",
    "Denial",
    "PermissionRequirement",
    "Rule",
    "TeamRequirement",
    "TeamSource",
    "admit",
    "decide",
    "guard_decorators",
    "handler_page_url",
    "is_json_request",
    "permission_decorator",
    "permission_refusal",
    "sign_in_url",
    "team_key_refusal",
    "team_refusal",
    "wants_page",
]

#: Status of a team refusal: the user is known but not allowed. (The catalogue's statuses
#: of these errors, 401 and 404, describe the service's own calls.)
FORBIDDEN = 403
#: Team ids are UUIDs; anything else cannot name a team the user belongs to.
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def sign_in_url(handler_path: str, return_to: str | None) -> str:
    """The sign-in page, coming back to ``return_to`` afterwards when it is a path of this
    site as a browser reads it (:func:`authmw._urls.same_origin_path`); else without one."""
    return handler_page_url(handler_path, "sign-in", return_to)


def is_json_request(path: str, accept: str | None, api_paths: Iterable[str]) -> bool:
    """Whether a refusal should be JSON rather than a redirect to the sign-in page."""
    if any(path.startswith(prefix) for prefix in api_paths):
        return True
    accept = (accept or "").lower()
    return "application/json" in accept and "text/html" not in accept


def team_refusal(
    server: ServerApp | AsyncServerApp, user_id: str, team_id: object, permission_id: str | None = None
) -> Op[KnownError | None]:
    """None when the user is a member of the team (holding ``permission_id``, directly or
    through contained permissions), else the error to answer with (403, see :func:`decide`).

    The server app's own operations, run by the caller's driver. Raises :class:`Refusal`
    (503) when the service cannot be asked."""
    details = {"team_id": str(team_id), "user_id": user_id}
    if permission_id is None:
        refused: KnownError = TeamMembershipNotFound(details=details)
    else:
        refused = TeamPermissionRequired(details={**details, "permission_id": permission_id})
    if not isinstance(team_id, str) or not _UUID.fullmatch(team_id):
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
        if not is_transient(exc, getattr(exc, "status", 0)):
            raise
        # Type and status only: messages quote request details.
        logger.warning("authmw: checking team access failed (%s); answering 503", type(exc).__name__)
        raise Refusal(503, "The authentication service is unavailable; try again shortly.") from None
    return None if found else refused


def permission_refusal(server: ServerApp | AsyncServerApp, user_id: str, permission_id: str) -> Op[KnownError | None]:
    """None when the user holds the project permission ``permission_id`` (API 2.8), directly or
    through contained permissions, else ``ProjectPermissionRequired`` (403, see :func:`decide`).

    One ``GET /project-permissions`` through the server app, run by the caller's driver;
    :class:`Refusal` (503) when the service cannot be asked."""
    try:
        permissions = server.project_permissions
        found = yield AtOnce(type(permissions).has.op(permissions, user_id, permission_id))
    except (NetworkError, HttpStatusError) as exc:
        if not is_transient(exc, getattr(exc, "status", 0)):
            raise
        logger.warning("authmw: checking a project permission failed (%s); answering 503", type(exc).__name__)
        raise Refusal(503, "The authentication service is unavailable; try again shortly.") from None
    return None if found else ProjectPermissionRequired(details={"user_id": user_id, "permission_id": permission_id})


#: ``via`` of the principals of API keys (``ApiKeyUser``, ``ApiKeyTeam``).
KEY_VIAS = frozenset({"user_api_key", "team_api_key"})
#: Where a page refused for want of a signed-in user goes: ``{handler_path}/sign-in``, or for a
#: restricted user ``{handler_path}/onboarding`` (verify the e-mail, then come back).
PageTo = Literal["sign-in", "onboarding"]


@dataclass(frozen=True)
class Rule:
    """What a guarded route asks of its caller; every adapter's guard holds one.

    ``requirements``: team memberships / permissions (:class:`TeamRequirement` or an
    adapter's subclass of it; the adapter says where each one's team id comes from) and
    project permissions (:class:`PermissionRequirement`). ``api_keys``: a machine client's
    API key is taken (a user's key as its user, a team's key past team requirements of its
    own team). ``anonymous`` / ``restricted`` False: this route refuses anonymous /
    restricted users even where the app signs them in (``AuthConfig.allow_anonymous`` /
    ``allow_restricted``); where the app does not, nobody needs to say so.
    """

    requirements: tuple[Any, ...] = ()
    api_keys: bool = False
    anonymous: bool = True
    restricted: bool = True

    def __post_init__(self) -> None:
        for requirement in self.requirements:
            if not isinstance(requirement, (TeamRequirement, PermissionRequirement)):
                raise TypeError(f"A guard's requirement is a team or permission requirement, not {requirement!r}.")

    @property
    def team_guard(self) -> bool:
        return any(isinstance(r, TeamRequirement) for r in self.requirements)


@dataclass(frozen=True)
class Denial:
    """The refusal :func:`decide` answers: its status and error (from the catalogue; None
    for a 503 when the service cannot be asked), and where a page goes instead of JSON
    (``to``; None: a page gets the same answer, or the framework's own 403 page)."""

    status: int
    error: KnownError | None
    to: PageTo | None = None
    message: str = ""

    @property
    def forbidden(self) -> bool:
        """A known caller who lacks a membership or permission (403)."""
        return self.status == FORBIDDEN

    @property
    def page_text(self) -> str:
        """What a page's 403 (the framework's own 403 page) says: fixed words for the kind of
        refusal, never the error's message, which names the user and repeats the team id of
        the URL (anyone's to write: a crafted link would put its own sentence on the site)."""
        code = self.error.code if self.error is not None else ""
        return _PAGE_TEXTS.get(code, _PAGE_TEXTS[""])

    def refusal(self, *, page: bool, handler_path: str, return_to: str | None) -> Refusal:
        """The answer as a :class:`Refusal`: a 303 to the sign-in or onboarding page for a
        page (coming back to ``return_to``), else the JSON envelope with the status."""
        if page and self.to is not None:
            text = "Sign in to see this page." if self.to == "sign-in" else "Verify your e-mail address to see this page."
            return Refusal.redirect(handler_page_url(handler_path, self.to, return_to), text)
        error = self.error
        if error is None:
            return Refusal(self.status, self.message)
        return Refusal(self.status, error.message, code=error.code, details=error.details or None)


#: A page's 403 by error code (see :attr:`Denial.page_text`).
_PAGE_TEXTS = {
    "TEAM_MEMBERSHIP_NOT_FOUND": "You are not a member of the team this page belongs to.",
    "TEAM_PERMISSION_REQUIRED": "You do not hold the team permission this page needs.",
    "PROJECT_PERMISSION_REQUIRED": "You do not hold the permission this page needs.",
    "": "You may not see this page.",
}


def handler_page_url(handler_path: str, page: PageTo, return_to: str | None) -> str:
    """``{handler_path}/{page}``, coming back to ``return_to`` afterwards when it is a path of
    this site as a browser reads it (:func:`authmw._urls.same_origin_path`)."""
    base = handler_path.rstrip("/")
    judged = same_origin_path(return_to)
    if judged is None:
        return f"{base}/{page}"
    return f"{base}/{page}?" + urlencode({"after_auth_return_to": judged})


def wants_page(api: bool | None, path: str, accept: str | None, api_paths: Iterable[str]) -> bool:
    """Whether a refusal of this request is a page's (a redirect, the framework's 403 page)
    rather than JSON: ``api`` when the route says (True: JSON), else by the request."""
    if api is not None:
        return not api
    return not is_json_request(path, accept, api_paths)


_NOBODY = Denial(401, UserAuthenticationRequired(), "sign-in")


def _unadmitted(refused: KnownError) -> Denial:
    """A user of a kind this route does not take: anonymous as nobody, restricted with its
    error (401, as an API answer) and, for a page, the onboarding page."""
    if isinstance(refused, AnonymousAuthenticationNotAllowed):
        return _NOBODY
    return Denial(401, refused, "onboarding")


def admit(user: object, rule: Rule) -> Denial | None:
    """The part of :func:`decide` that needs no I/O: who the caller is against what the
    route takes. None: go on to the requirements."""
    via = getattr(user, "via", None)
    if via in KEY_VIAS and not rule.api_keys:
        reason = f"a {str(via).replace('_', ' ')} was sent; this route takes sessions"
        return Denial(401, ApiKeyNotAccepted(details={"reason": reason}))
    refused = getattr(user, "refused", None)
    if isinstance(refused, KnownError):  # an UnadmittedUser: a session or key of a user the app does not sign in
        return _unadmitted(refused)
    if via == "team_api_key":  # not a user: only team requirements take it
        return None if rule.team_guard else Denial(401, UserAuthenticationRequired())
    if not getattr(user, "is_authenticated", False):
        return _NOBODY
    if not rule.anonymous and getattr(user, "is_anonymous", False):
        return _NOBODY
    if not rule.restricted and getattr(user, "is_restricted", False):
        reason = getattr(user, "restricted_reason", None) or "restricted"
        return _unadmitted(
            RestrictedUserNotAllowed(
                "This route does not take restricted users.", {"restricted_reason": {"type": reason}}
            )
        )
    return None


def _user_id(user: object) -> str:
    """The id of a user that passed the checks above (a session user or a user key's holder)."""
    user_id: str = getattr(user, "id")  # noqa: B009 - the guards' user is typed as any object
    return user_id


def decide(
    user: object,
    rule: Rule,
    team_id: Callable[[Any], object],
    server: Callable[[], ServerApp | AsyncServerApp],
) -> Op[Denial | None]:
    """The one access decision every adapter's guard asks: None (let the caller in) or the
    :class:`Denial`. ``team_id(requirement)`` reads a team requirement's team id from the
    request (the adapter's business); ``server()`` gives the server app the membership and
    permission checks run on (asked only when one must run), with the caller's driver."""
    denial = admit(user, rule)
    if denial is not None or not rule.requirements:
        return denial
    team_key = getattr(user, "via", None) == "team_api_key"
    for requirement in rule.requirements:
        error: KnownError | Denial | None
        if isinstance(requirement, PermissionRequirement):
            if team_key:  # permissions belong to users
                error = ProjectPermissionRequired(
                    details={"user_id": "", "permission_id": requirement.permission_id}
                )
            else:
                error = yield from _asking(permission_refusal(server(), _user_id(user), requirement.permission_id))
        else:
            team = team_id(requirement)
            if team_key:
                error = team_key_refusal(user, team, requirement.permission_id)
            else:
                error = yield from _asking(team_refusal(server(), _user_id(user), team, requirement.permission_id))
        if isinstance(error, Denial):
            return error
        if error is not None:
            return Denial(FORBIDDEN, error)
    return None


def _asking(op: Op[KnownError | None]) -> Op[KnownError | Denial | None]:
    try:
        return (yield from op)
    except Refusal as refusal:  # the service could not be asked (503)
        return Denial(refusal.status, None, message=refusal.message)


def team_key_refusal(user: object, team_id: object, permission_id: str | None) -> KnownError | None:
    """A team's key (``ApiKeyTeam``) past a team requirement: it is a member of its own team
    only, and holds no permission (permissions belong to users). No I/O."""
    own = getattr(user, "team_id", None)
    details = {"team_id": str(team_id), "user_id": ""}
    if str(team_id) != own:
        return TeamMembershipNotFound(details=details)
    if permission_id is not None:
        return TeamPermissionRequired(details={**details, "permission_id": permission_id})
    return None


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


class AccessOptions(TypedDict, total=False):
    """The keywords of every guard and decorator that go into its :class:`Rule`."""

    api_keys: bool
    anonymous: bool
    restricted: bool


class GuardBase:
    """What every adapter's ``Guard`` is made of: the :class:`Rule` and ``api`` (True: JSON
    answers; False: a page's answers; None: by the request, see :func:`wants_page`). The
    adapter adds how to wrap a view and translate a :class:`Denial`."""

    def __init__(self, *requirements: Any, api: bool | None = None, **access: Unpack[AccessOptions]) -> None:
        self.rule = Rule(requirements, **access)
        self.api = api

    def verdict(
        self, user: object, team_id: Callable[[Any], object], server: Callable[[], ServerApp | AsyncServerApp]
    ) -> Denial | None | Op[Denial | None]:
        """:func:`decide` for ``user``: the answer at once when it needs no I/O (no requirement
        to check, or the caller refused already), else the operation to run on the adapter's
        driver (``resolver.run`` / ``resolver.arun``)."""
        denial = admit(user, self.rule)
        if denial is not None or not self.rule.requirements:
            return denial
        return decide(user, self.rule, team_id, server)

    @property
    def requirements(self) -> tuple[Any, ...]:
        return self.rule.requirements

    @property
    def api_keys(self) -> bool:
        return self.rule.api_keys

    def __repr__(self) -> str:
        rule = self.rule
        shown = [*map(repr, rule.requirements)]
        if self.api is not None:
            shown.append(f"api={self.api!r}")
        shown += [f"{name}={getattr(rule, name)!r}" for name in ("api_keys", "anonymous", "restricted") if getattr(rule, name) != getattr(Rule, name)]
        return f"{type(self).__name__}({', '.join(shown)})"


class UserRequiredDecorator(Protocol):
    @overload
    def __call__(self, view: ViewFunction, /) -> ViewFunction: ...
    @overload
    def __call__(self, *, api: bool | None = None, **access: Unpack[AccessOptions]) -> Callable[[ViewFunction], ViewFunction]: ...


class TeamMemberRequiredDecorator(Protocol):
    @overload
    def __call__(self, view: ViewFunction, /) -> ViewFunction: ...
    @overload
    def __call__(
        self, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, **access: Unpack[AccessOptions]
    ) -> Callable[[ViewFunction], ViewFunction]: ...


class TeamPermissionRequiredDecorator(Protocol):
    def __call__(
        self, permission_id: str, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, **access: Unpack[AccessOptions]
    ) -> Callable[[ViewFunction], ViewFunction]: ...


def guard_decorators(
    make_guard: Callable[..., Callable[[Any], Any]],
    make_requirement: Callable[[TeamSource, str | None], Any],
) -> tuple[UserRequiredDecorator, TeamMemberRequiredDecorator, TeamPermissionRequiredDecorator]:
    """``user_required``, ``team_member_required`` and ``team_permission_required`` over an
    adapter's ``Guard(*requirements, api=..., **access)`` and ``TeamRequirement(team, permission_id)``.

    The first two work with and without parentheses; the permission guard always names its
    permission. ``access``: :class:`AccessOptions` (``api_keys``, ``anonymous``, ``restricted``)."""

    def apply(guard: Callable[[Any], Any], view: Any) -> Any:
        if view is None:
            return guard
        if not callable(view):
            raise TypeError(
                f"Expected a view function, got {view!r}; options are keyword arguments (api=..., team=...)."
            )
        return guard(view)

    def user_required(view: Any = None, /, *, api: bool | None = None, **access: Unpack[AccessOptions]) -> Any:
        """The view runs for signed-in users; others are sent to sign in (pages) or get a 401.
        ``api_keys=True``: also for a user calling with one of their API keys."""
        return apply(make_guard(api=api, **access), view)

    def team_member_required(
        view: Any = None, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, **access: Unpack[AccessOptions]
    ) -> Any:
        """The view runs for members of the team (by default the view's ``team_id`` argument).
        ``api_keys=True``: also for a member's API key and for the team's own key."""
        return apply(make_guard(make_requirement(team, None), api=api, **access), view)

    def team_permission_required(
        permission_id: str, /, *, team: TeamSource = DEFAULT_TEAM_ARG, api: bool | None = None, **access: Unpack[AccessOptions]
    ) -> Any:
        """The view runs for users holding ``permission_id`` in the team, directly or through
        a permission that contains it."""
        if not isinstance(permission_id, str):
            raise TypeError(
                'team_permission_required needs the permission id: @team_permission_required("$update_team")'
            )
        return make_guard(make_requirement(team, permission_id), api=api, **access)

    return user_required, team_member_required, team_permission_required


class PermissionRequiredDecorator(Protocol):
    def __call__(self, permission_id: str, /, *, api: bool | None = None, **access: Unpack[AccessOptions]) -> Callable[[ViewFunction], ViewFunction]: ...


def permission_decorator(make_guard: Callable[..., Callable[[Any], Any]]) -> PermissionRequiredDecorator:
    """``require_permission`` over an adapter's ``Guard(*requirements, api=...)``: the view runs
    for users holding a project permission (API 2.8), directly or contained; others get 403
    ``PROJECT_PERMISSION_REQUIRED`` (anonymous visitors: 401 or the sign-in page)."""

    def require_permission(permission_id: str, /, *, api: bool | None = None, **access: Unpack[AccessOptions]) -> Any:
        """The view runs for users holding the project permission ``permission_id``
        (``api_keys=True``: also for such a user's API key)."""
        return make_guard(PermissionRequirement(permission_id), api=api, **access)

    return require_permission
