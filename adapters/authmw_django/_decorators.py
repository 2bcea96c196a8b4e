"""``user_required``, ``team_member_required``, ``team_permission_required`` and ``require_permission``.

One guard factory: each decorator is a :class:`Guard` with its checks. A guard looks at the
view once and wraps it in a sync or an async wrapper; all work with and without
parentheses (``team_permission_required`` always names its permission).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.http import HttpRequest, HttpResponseBase

from authmw.adapter import (
    PermissionRequirement,
    admission,
    DEFAULT_TEAM_ARG,
    Op,
    TeamSource,
    ViewFunction,
    forbidden,
    guard_decorators,
    is_json_request,
    permission_decorator,
    sign_in_url,
    requirement_refusal,
)
from authmw.errors import UserAuthenticationRequired
from authmw.middleware import Refusal

from ._middleware import refusal_response, request_user, site_auth
from ._settings import DjangoAuth

#: The view keyword argument team guards read the team id from unless told otherwise; a
#: ``team=`` callable instead takes the view's arguments ``(request, *args, **kwargs)``.
DEFAULT_TEAM_KWARG = DEFAULT_TEAM_ARG
#: Named in configuration errors.
NAME = "authmw's view decorators"


@dataclass(frozen=True)
class TeamRequirement:
    team: TeamSource
    permission_id: str | None = None

    def team_id(self, request: HttpRequest, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if callable(self.team):
            return self.team(request, *args, **kwargs)
        if self.team not in kwargs:
            raise ImproperlyConfigured(
                f"A team guard reads the team id from the view's keyword argument {self.team!r}, which this "
                f"request's view did not get (it got {sorted(kwargs)}). Pass team='<argument name>' or "
                "team=callable(request, *args, **kwargs)."
            )
        return kwargs[self.team]


class Guard:
    """A view decorator: the view runs only for a signed-in user passing every requirement.

    Refusals: anonymous users are redirected (303) to ``{handler_path}/sign-in`` (pages) or get
    ``401 {"code": "USER_AUTHENTICATION_REQUIRED", ...}`` (API views); signed-in users who
    lack a team membership or permission get ``403`` (``PermissionDenied`` for pages, the
    error envelope for API views). ``api`` forces one or the other; by default a request
    is an API request when its path starts with one of ``AUTHMW["API_PATHS"]`` or it
    accepts JSON but not HTML.
    """

    def __init__(
        self, *requirements: TeamRequirement | PermissionRequirement, api: bool | None = None, api_keys: bool = False
    ) -> None:
        self.requirements = requirements
        self.api = api
        #: Whether a machine client's API key is accepted (API 2.8; ``admission`` decides).
        self.api_keys = api_keys
        self._team_guard = any(isinstance(r, TeamRequirement) for r in requirements)

    def __call__(self, view: ViewFunction) -> ViewFunction:
        if iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
                user, refusal = self._signed_in(request)
                if refusal is None and self.requirements:
                    refusal = await site_auth(request, NAME).resolver.arun(self._teams(request, user, args, kwargs))
                if refusal is not None:
                    return refusal
                return await view(request, *args, **kwargs)

            return async_guarded  # type: ignore[return-value]

        @functools.wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            user, refusal = self._signed_in(request)
            if refusal is None and self.requirements:
                refusal = site_auth(request, NAME).resolver.run(self._teams(request, user, args, kwargs))
            if refusal is not None:
                return refusal
            return view(request, *args, **kwargs)

        return guarded  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Guard({', '.join(map(repr, self.requirements))}{', api=' + repr(self.api) if self.api is not None else ''})"

    def _signed_in(self, request: HttpRequest) -> tuple[Any, HttpResponseBase | None]:
        user = request_user(request, NAME)
        admitted = admission(user, self.api_keys, team_guard=self._team_guard)
        if admitted is True:
            return user, None
        if admitted is not False:
            return None, refusal_response(Refusal.of(admitted))
        auth = site_auth(request, NAME)
        if self._is_api(request, auth):
            return None, refusal_response(Refusal.of(UserAuthenticationRequired()))
        return None, refusal_response(Refusal.redirect(sign_in_url(auth.config.handler_path, request.get_full_path())))

    def _teams(
        self, request: HttpRequest, user: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Op[HttpResponseBase | None]:
        auth = site_auth(request, NAME)
        server = auth.team_server()
        try:
            for requirement in self.requirements:
                if isinstance(requirement, PermissionRequirement):
                    team_id = None
                else:
                    team_id = requirement.team_id(request, args, kwargs)
                error = yield from requirement_refusal(server, user, requirement, team_id)
                if error is not None:
                    if self._is_api(request, auth):
                        return refusal_response(forbidden(error))
                    raise PermissionDenied(error.message)
        except Refusal as refusal:
            return refusal_response(refusal)
        return None

    def _is_api(self, request: HttpRequest, auth: DjangoAuth) -> bool:
        if self.api is not None:
            return self.api
        return is_json_request(request.path, request.headers.get("Accept"), auth.resolver.options.api_paths)


user_required, team_member_required, team_permission_required = guard_decorators(Guard, TeamRequirement)
#: API 2.8 project permissions: ``@require_permission("docs:write")``.
require_permission = permission_decorator(Guard)
