"""``user_required``, ``team_member_required``, ``team_permission_required`` and ``require_permission`` for Flask.

One guard factory, as in the Django adapter: a guard looks at the view once and wraps it
in a sync or an async wrapper. OPTIONS requests pass through, as with flask-login.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from flask import abort, request
from werkzeug.wrappers import Response

from authmw.adapter import (
    PermissionRequirement,
    admission,
    Op,
    TeamRequirement,
    ViewFunction,
    forbidden,
    guard_decorators,
    is_json_request,
    permission_decorator,
    sign_in_url,
    requirement_refusal,
)
from authmw.errors import ConfigurationError, UserAuthenticationRequired
from authmw.middleware import Refusal

from ._extension import get_user, refusal_response
from ._settings import FlaskAuth, site_auth

#: Methods let through without a check (CORS preflights carry no credentials).
EXEMPT_METHODS = frozenset({"OPTIONS"})


class Guard:
    """A view decorator: the view runs only for a signed-in user passing every requirement.

    Refusals: anonymous users are redirected (303) to ``{handler_path}/sign-in`` (pages) or get
    ``401 {"code": "USER_AUTHENTICATION_REQUIRED", ...}`` (API views); signed-in users who
    lack a team membership or permission get ``403`` (``abort(403)`` for pages, the error
    envelope for API views). ``api`` forces one or the other; by default a request is an
    API request when its path starts with one of ``AUTHMW_API_PATHS`` or it accepts JSON
    but not HTML.
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
        if inspect.iscoroutinefunction(view):

            @functools.wraps(view)
            async def async_guarded(*args: Any, **kwargs: Any) -> Any:
                user, refusal = self._signed_in()
                if refusal is None and user is not None and self.requirements:
                    refusal = await site_auth().resolver.arun(self._teams(user, kwargs))
                if refusal is not None:
                    return refusal
                return await view(*args, **kwargs)

            return async_guarded  # type: ignore[return-value]

        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            user, refusal = self._signed_in()
            if refusal is None and user is not None and self.requirements:
                refusal = site_auth().resolver.run(self._teams(user, kwargs))
            if refusal is not None:
                return refusal
            return view(*args, **kwargs)

        return guarded  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Guard({', '.join(map(repr, self.requirements))}{', api=' + repr(self.api) if self.api is not None else ''})"

    def _signed_in(self) -> tuple[Any, Response | None]:
        if request.method in EXEMPT_METHODS:
            return None, None
        user = get_user()
        admitted = admission(user, self.api_keys, team_guard=self._team_guard)
        if admitted is True:
            return user, None
        if admitted is not False:
            return None, refusal_response(Refusal.of(admitted))
        auth = site_auth()
        if self._is_api(auth):
            return None, refusal_response(Refusal.of(UserAuthenticationRequired()))
        query = request.query_string.decode("latin-1")
        return_to = request.script_root + request.path + (f"?{query}" if query else "")
        return None, refusal_response(Refusal.redirect(sign_in_url(auth.config.handler_path, return_to)))

    def _teams(self, user: Any, view_args: dict[str, Any]) -> Op[Response | None]:
        auth = site_auth()
        server = auth.team_server()
        try:
            for requirement in self.requirements:
                team_id = None if isinstance(requirement, PermissionRequirement) else requirement.team_id(view_args)
                error = yield from requirement_refusal(server, user, requirement, team_id)
                if error is not None:
                    if self._is_api(auth):
                        return refusal_response(forbidden(error))
                    abort(403, description=error.message)
        except Refusal as refusal:
            return refusal_response(refusal)
        return None

    def _is_api(self, auth: FlaskAuth) -> bool:
        if self.api is not None:
            return self.api
        return is_json_request(request.path, request.headers.get("Accept"), auth.resolver.options.api_paths)


user_required, team_member_required, team_permission_required = guard_decorators(Guard, TeamRequirement)
#: API 2.8 project permissions: ``@require_permission("docs:write")``.
require_permission = permission_decorator(Guard)
