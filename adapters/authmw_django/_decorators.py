"""``user_required``, ``team_member_required``, ``team_permission_required`` and ``require_permission``.

One guard factory: each decorator is a :class:`Guard` over the core's access decision
(:func:`authmw.adapter.decide`), translated into Django's answers. A guard looks at the view
once and wraps it in a sync or an async wrapper; all work with and without parentheses
(``team_permission_required`` always names its permission).
"""

from __future__ import annotations

import functools
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.http import HttpRequest, HttpResponseBase

from authmw import adapter
from authmw.adapter import (
    DEFAULT_TEAM_ARG,
    Denial,
    GuardBase,
    ViewFunction,
    guard_decorators,
    permission_decorator,
    wants_page,
)

from ._middleware import refusal_response, request_user, site_auth

#: The view keyword argument team guards read the team id from unless told otherwise; a
#: ``team=`` callable instead takes the view's arguments ``(request, *args, **kwargs)``.
DEFAULT_TEAM_KWARG = DEFAULT_TEAM_ARG
#: Named in configuration errors.
NAME = "authmw's view decorators"


@dataclass(frozen=True)
class TeamRequirement(adapter.TeamRequirement):
    """A team requirement whose team id comes from a Django view's arguments."""

    def team_id_of(self, request: HttpRequest, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if callable(self.team):
            return self.team(request, *args, **kwargs)
        if self.team not in kwargs:
            raise ImproperlyConfigured(
                f"A team guard reads the team id from the view's keyword argument {self.team!r}, which this "
                f"request's view did not get (it got {sorted(kwargs)}). Pass team='<argument name>' or "
                "team=callable(request, *args, **kwargs)."
            )
        return kwargs[self.team]


class Guard(GuardBase):
    """A view decorator: the view runs only for a caller the route's rule lets in
    (:func:`authmw.adapter.decide`).

    Refusals: nobody (and users the app does not sign in) are redirected (303) to
    ``{handler_path}/sign-in`` on pages, restricted users to ``{handler_path}/onboarding``;
    API views answer ``401`` with the error envelope. A signed-in user who lacks a team
    membership or permission gets ``403`` (``PermissionDenied`` for pages, the error envelope
    for API views). ``api`` forces one or the other; by default a request is an API request
    when its path starts with one of ``AUTHMW["API_PATHS"]`` or it accepts JSON but not HTML.
    """

    def __call__(self, view: ViewFunction) -> ViewFunction:
        if iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
                verdict = self._verdict(request, args, kwargs)
                if isinstance(verdict, Generator):
                    verdict = await site_auth(request, NAME).resolver.arun(verdict)
                return await view(request, *args, **kwargs) if verdict is None else self._answer(request, verdict)

            return async_guarded  # type: ignore[return-value]

        @functools.wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            verdict = self._verdict(request, args, kwargs)
            if isinstance(verdict, Generator):
                verdict = site_auth(request, NAME).resolver.run(verdict)
            return view(request, *args, **kwargs) if verdict is None else self._answer(request, verdict)

        return guarded  # type: ignore[return-value]

    def _verdict(self, request: HttpRequest, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        auth = site_auth(request, NAME)
        return self.verdict(
            request_user(request, NAME), lambda requirement: requirement.team_id_of(request, args, kwargs), auth.team_server
        )

    def _answer(self, request: HttpRequest, denial: Denial) -> HttpResponseBase:
        auth = site_auth(request, NAME)
        page = wants_page(self.api, request.path, request.headers.get("Accept"), auth.resolver.options.api_paths)
        if page and denial.forbidden:
            raise PermissionDenied(denial.page_text)
        return refusal_response(
            denial.refusal(page=page, handler_path=auth.config.handler_path, return_to=request.get_full_path())
        )


user_required, team_member_required, team_permission_required = guard_decorators(Guard, TeamRequirement)
#: API 2.8 project permissions: ``@require_permission("docs:write")``.
require_permission = permission_decorator(Guard)
