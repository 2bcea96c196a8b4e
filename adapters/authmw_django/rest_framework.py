"""Django REST framework: authentication and permission classes over the middleware.

::

    REST_FRAMEWORK = {
        "DEFAULT_AUTHENTICATION_CLASSES": ["authmw_django.rest_framework.AuthMWAuthentication"],
        "UNAUTHENTICATED_USER": "authmw.middleware.AnonymousUser",  # without django.contrib.auth
    }

    class TeamSettings(APIView):
        permission_classes = [HasTeamPermission.of("$update_team")]   # team from the URL's team_id

Refusals use the service's error envelope: 401 ``USER_AUTHENTICATION_REQUIRED`` and 403
``TEAM_MEMBERSHIP_NOT_FOUND`` / ``TEAM_PERMISSION_REQUIRED``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.permissions import BasePermission

from authmw.adapter import Claims, forbidden, team_refusal
from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AuthUser, Refusal

from ._decorators import DEFAULT_TEAM_KWARG
from ._middleware import cross_site_refusal, request_user, site_auth

__all__ = ["AuthMWAuthentication", "HasTeamPermission", "IsSignedIn", "IsTeamMember", "RefusalError"]

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

    def authenticate_header(self, request: Any) -> str:
        # Makes DRF's own NotAuthenticated a 401 rather than a 403, with the challenge API
        # clients answer by sending ``Authorization: Bearer <access token>``.
        return 'Bearer realm="authmw"'


class IsSignedIn(BasePermission):
    """A signed-in user, else 401 ``USER_AUTHENTICATION_REQUIRED``."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if not isinstance(request.user, AuthUser):
            raise RefusalError(Refusal.of(UserAuthenticationRequired()))
        return True


class IsTeamMember(IsSignedIn):
    """A member of the team named by the URL's ``team_id`` (see :meth:`of`), else 403."""

    team: TeamSource = DEFAULT_TEAM_KWARG
    permission_id: str | None = None

    @classmethod
    def of(cls, team: TeamSource = DEFAULT_TEAM_KWARG) -> type[IsTeamMember]:
        return cls._configured(team=team)

    @classmethod
    def _configured(cls, **attrs: Any) -> type[IsTeamMember]:
        if callable(attrs.get("team")):
            attrs["team"] = staticmethod(attrs["team"])
        return type(cls.__name__, (cls,), attrs)

    def has_permission(self, request: Any, view: Any) -> bool:
        super().has_permission(request, view)
        auth = site_auth(request._request, NAME)
        team_id = self._team_id(request, view)
        try:
            error = auth.resolver.run(team_refusal(auth.team_server(), request.user.id, team_id, self.permission_id))
        except Refusal as refusal:
            raise RefusalError(refusal) from None
        if error is not None:
            raise RefusalError(forbidden(error))
        return True

    def _team_id(self, request: Any, view: Any) -> Any:
        if callable(self.team):
            return self.team(request, view)
        if self.team not in view.kwargs:
            raise ImproperlyConfigured(
                f"{type(self).__name__} reads the team id from the URL's keyword argument {self.team!r}, which "
                f"{type(view).__name__} did not get (it got {sorted(view.kwargs)}). Pass team='<argument name>' "
                "or team=callable(request, view) to .of()."
            )
        return view.kwargs[self.team]


class HasTeamPermission(IsTeamMember):
    """Holds ``permission_id`` in the team (directly or through a containing permission).

    Always configured: ``HasTeamPermission.of("$update_team", team="team_id")``.
    """

    @classmethod
    def of(cls, permission_id: str, team: TeamSource = DEFAULT_TEAM_KWARG) -> type[IsTeamMember]:  # type: ignore[override]
        return cls._configured(team=team, permission_id=permission_id)

    def has_permission(self, request: Any, view: Any) -> bool:
        if self.permission_id is None:
            raise TypeError('Use HasTeamPermission.of("<permission id>") in permission_classes.')
        return super().has_permission(request, view)
