"""``user_required``, ``team_member_required``, ``team_permission_required`` and ``require_permission`` for Flask.

The guard is the core's access decision (:func:`authmw.adapter.decide`) translated: a
:class:`~authmw.adapter.Denial` becomes a redirect, the error envelope, or ``abort(403)``
for a page. A guard looks at the view once and wraps it in a sync or an async wrapper.
OPTIONS requests pass through, as with flask-login.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Generator
from typing import Any

from flask import abort, request
from werkzeug.wrappers import Response

from authmw.adapter import (
    Denial,
    GuardBase,
    TeamRequirement,
    ViewFunction,
    guard_decorators,
    permission_decorator,
    wants_page,
)
from authmw.middleware import Refusal

from ._extension import get_user, refusal_response
from ._settings import site_auth

#: Methods let through without a check (CORS preflights carry no credentials).
EXEMPT_METHODS = frozenset({"OPTIONS"})


class Guard(GuardBase):
    """A view decorator: the view runs only for a caller the route's rule lets in
    (:func:`authmw.adapter.decide`).

    Refusals: nobody (and users the app does not sign in) are redirected (303) to
    ``{handler_path}/sign-in`` on pages, restricted users to ``{handler_path}/onboarding``;
    API views answer ``401`` with the error envelope. A signed-in user who lacks a team
    membership or permission gets ``403`` (``abort(403)`` for pages, the envelope for API
    views). ``api`` forces one or the other; by default a request is an API request when its
    path starts with one of ``AUTHMW_API_PATHS`` or it accepts JSON but not HTML.
    """

    def __call__(self, view: ViewFunction) -> ViewFunction:
        if inspect.iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_guarded(*args: Any, **kwargs: Any) -> Any:
                verdict = self._verdict(kwargs)
                denial = await site_auth().resolver.arun(verdict) if isinstance(verdict, Generator) else verdict
                return await view(*args, **kwargs) if denial is None else self._answer(denial)

            return async_guarded  # type: ignore[return-value]

        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            verdict = self._verdict(kwargs)
            denial = site_auth().resolver.run(verdict) if isinstance(verdict, Generator) else verdict
            return view(*args, **kwargs) if denial is None else self._answer(denial)

        return guarded  # type: ignore[return-value]

    def _verdict(self, view_args: dict[str, Any]) -> Any:
        if request.method in EXEMPT_METHODS:
            return None
        return self.verdict(get_user(), lambda requirement: requirement.team_id(view_args), site_auth().team_server)

    def _answer(self, denial: Denial) -> Response:
        auth = site_auth()
        page = wants_page(self.api, request.path, request.headers.get("Accept"), auth.resolver.options.api_paths)
        if page and denial.forbidden:
            abort(403, description=denial.page_text)
        query = request.query_string.decode("latin-1")
        here = request.script_root + request.path + (f"?{query}" if query else "")
        refusal: Refusal = denial.refusal(page=page, handler_path=auth.config.handler_path, return_to=here)
        return refusal_response(refusal)


user_required, team_member_required, team_permission_required = guard_decorators(Guard, TeamRequirement)
#: API 2.8 project permissions: ``@require_permission("docs:write")``.
require_permission = permission_decorator(Guard)
