"""Django REST framework: authentication and permission classes over the middleware.

::

    REST_FRAMEWORK = {
        "DEFAULT_AUTHENTICATION_CLASSES": ["authmw_django.rest_framework.AuthMWAuthentication"],
        "UNAUTHENTICATED_USER": "authmw.middleware.AnonymousUser",  # without django.contrib.auth
    }

    class TeamSettings(APIView):
        permission_classes = [HasTeamPermission.of("$update_team")]   # team from the URL's team_id

    class Reports(APIView):
        permission_classes = [HasPermission.of("reports:read", api_keys=True)]  # keys opt in

The permission classes ask the core's access decision (:func:`authmw.adapter.decide`) about
the middleware's user, as every adapter's guard does, and answer its refusals with the
service's error envelope: 401 ``USER_AUTHENTICATION_REQUIRED``, ``API_KEY_NOT_ACCEPTED`` or
``RESTRICTED_USER_NOT_ALLOWED``; 403 ``TEAM_MEMBERSHIP_NOT_FOUND``,
``TEAM_PERMISSION_REQUIRED`` or ``PROJECT_PERMISSION_REQUIRED``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.permissions import BasePermission

from authmw import adapter
from authmw.adapter import AccessOptions, Claims, PermissionRequirement, Rule, decide
from authmw.middleware import AuthUser, Refusal

from ._decorators import DEFAULT_TEAM_KWARG
from ._middleware import cross_site_refusal, request_user, site_auth

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["AuthMWAuthentication", "HasPermission", "HasTeamPermission", "IsSignedIn", "IsTeamMember", "RefusalError"]

NAME = "authmw_django.rest_framework"
#: A team id source for permissions: the URL keyword argument's name, or a callable
#: ``(request, view) -> team id``.
TeamSource = str | Callable[[Any, Any], Any]


class RefusalError(exceptions.APIException):
    """A :class:`Refusal` as DRF renders errors: the same status and body."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(json.loads(refusal.body))
        self.status_code = refusal.status


class AuthMWAuthentication(BaseAuthentication):
    """``request.user`` is the middleware's :class:`AuthUser`, ``request.auth`` its
    :class:`Claims`; anonymous requests are left to the next class (or DRF's
    ``UNAUTHENTICATED_USER``).

    A session from the cookies is checked against cross-site requests as DRF's
    ``SessionAuthentication`` checks Django sessions (DRF views are exempt from the
    middlewares' checks): with Django's ``CsrfViewMiddleware`` installed, Django's CSRF
    check (token and origin), else authmw's origin check. Header sessions are not checked.
    """

    def authenticate(self, request: Any) -> tuple[AuthUser, Claims] | None:
        user = request_user(request._request, NAME)
        if not isinstance(user, AuthUser):
            return None
        self.enforce_csrf(request)
        return user, user.claims

    def enforce_csrf(self, request: Any) -> None:
        _enforce_csrf(request)

    def authenticate_header(self, request: Any) -> str:
        # Makes DRF's own NotAuthenticated a 401 rather than a 403, with the challenge API
        # clients answer by sending ``Authorization: Bearer <access token>``.
        return 'Bearer realm="authmw"'


def _enforce_csrf(request: Any) -> None:
    """The cross-site check of a request whose session came from the cookies (DRF views are
    exempt from the middlewares' checks): Django's CSRF check when CsrfViewMiddleware is
    installed, else authmw's (:func:`authmw_django.cross_site_refusal`). Run by
    AuthMWAuthentication and again by every permission class, which admits the middleware's
    user even when the view's authentication classes leave AuthMWAuthentication out."""
    auth = site_auth(request._request, NAME)
    resolved = getattr(request._request, "_authmw_resolved", None)
    if resolved is None or not resolved.from_cookies:
        return
    if auth.django_csrf:
        SessionAuthentication().enforce_csrf(request)  # PermissionDenied("CSRF Failed: ...")
        return
    refusal = cross_site_refusal(request._request, auth)
    if refusal is not None:
        raise RefusalError(refusal)


class DRFTeamRequirement(adapter.TeamRequirement):
    """A team requirement whose team id comes from the view's URL keyword arguments (or a
    callable ``(request, view) -> team id``)."""

    def team_id_of(self, request: Any, view: Any, owner: str) -> Any:
        if callable(self.team):
            return self.team(request, view)
        if self.team not in view.kwargs:
            raise ImproperlyConfigured(
                f"{owner} reads the team id from the URL's keyword argument {self.team!r}, which "
                f"{type(view).__name__} did not get (it got {sorted(view.kwargs)}). Pass team='<argument name>' "
                "or team=callable(request, view) to .of()."
            )
        return view.kwargs[self.team]


class IsSignedIn(BasePermission):
    """A signed-in user, else 401 ``USER_AUTHENTICATION_REQUIRED`` (a restricted user the app
    does not sign in: 401 ``RESTRICTED_USER_NOT_ALLOWED``). API keys are refused (401
    ``API_KEY_NOT_ACCEPTED``) unless the class says ``api_keys=True``:
    ``IsSignedIn.of(api_keys=True)``. Every refusal is the core's access decision
    (:func:`authmw.adapter.decide`), as the other adapters' guards answer it."""

    #: The rule's options (:class:`authmw.adapter.AccessOptions`); set with :meth:`of`.
    access: AccessOptions = {}

    @classmethod
    def of(cls, **access: Unpack[AccessOptions]) -> type[IsSignedIn]:
        return cls._configured(access=access)  # type: ignore[no-any-return]

    @classmethod
    def _configured(cls, **attrs: Any) -> Any:
        if callable(attrs.get("team")):
            attrs["team"] = staticmethod(attrs["team"])
        return type(cls.__name__, (cls,), attrs)

    def requirements(self) -> tuple[Any, ...]:
        return ()

    def has_permission(self, request: Any, view: Any) -> bool:
        django_request = request._request
        auth = site_auth(django_request, NAME)
        rule = Rule(self.requirements(), **self.access)
        # The middleware's user, as it resolved it: DRF replaces ``request.user`` of the
        # Django request with its UNAUTHENTICATED_USER when no authentication class took it.
        resolved = getattr(django_request, "_authmw_resolved", None)
        user = request_user(django_request, NAME) if resolved is None else resolved.user
        # That user may come from the cookies without AuthMWAuthentication having run (the
        # view's own authentication classes): a cookie session's request is checked here too.
        _enforce_csrf(request)
        denial = auth.resolver.run(
            decide(
                user,
                rule,
                lambda requirement: requirement.team_id_of(request, view, type(self).__name__),
                auth.team_server,
            )
        )
        if denial is not None:
            raise RefusalError(denial.refusal(page=False, handler_path=auth.config.handler_path, return_to=None))
        return True


class IsTeamMember(IsSignedIn):
    """A member of the team named by the URL's ``team_id`` (see :meth:`of`), else 403
    ``TEAM_MEMBERSHIP_NOT_FOUND``. With ``api_keys=True`` also a member's key and the
    team's own key."""

    team: TeamSource = DEFAULT_TEAM_KWARG
    permission_id: str | None = None

    @classmethod
    def of(cls, team: TeamSource = DEFAULT_TEAM_KWARG, **access: Unpack[AccessOptions]) -> type[IsTeamMember]:
        return cls._configured(team=team, access=access)  # type: ignore[no-any-return]

    def requirements(self) -> tuple[Any, ...]:
        return (DRFTeamRequirement(self.team, self.permission_id),)


class HasTeamPermission(IsTeamMember):
    """Holds ``permission_id`` in the team (directly or through a containing permission),
    else 403 ``TEAM_PERMISSION_REQUIRED``.

    Always configured: ``HasTeamPermission.of("$update_team", team="team_id")``.
    """

    @classmethod
    def of(  # type: ignore[override]
        cls, permission_id: str, team: TeamSource = DEFAULT_TEAM_KWARG, **access: Unpack[AccessOptions]
    ) -> type[IsTeamMember]:
        return cls._configured(team=team, permission_id=permission_id, access=access)  # type: ignore[no-any-return]

    def has_permission(self, request: Any, view: Any) -> bool:
        if self.permission_id is None:
            raise TypeError('Use HasTeamPermission.of("<permission id>") in permission_classes.')
        return super().has_permission(request, view)


class HasPermission(IsSignedIn):
    """Holds the project permission ``permission_id`` (API 2.8, directly or contained), else
    403 ``PROJECT_PERMISSION_REQUIRED``. Always configured: ``HasPermission.of("docs:write")``."""

    permission_id: str | None = None

    @classmethod
    def of(cls, permission_id: str, **access: Unpack[AccessOptions]) -> type[HasPermission]:  # type: ignore[override]
        PermissionRequirement(permission_id)  # (checks the id)
        return cls._configured(permission_id=permission_id, access=access)  # type: ignore[no-any-return]

    def requirements(self) -> tuple[Any, ...]:
        if self.permission_id is None:
            raise TypeError('Use HasPermission.of("<permission id>") in permission_classes.')
        return (PermissionRequirement(self.permission_id),)
