"""The Quart shell over authmw's request handler: it only translates Quart's request and
response; every decision is :class:`authmw.adapter.SessionResolver`'s."""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import httpx
from quart import Quart, Response, abort, current_app, g, has_websocket_context, request, websocket
from quart.wrappers import Request, Websocket
from werkzeug.datastructures import Headers
from werkzeug.local import LocalProxy

from authmw import AuthConfig
from authmw.adapter import (
    ANONYMOUS,
    Denial,
    GuardBase,
    SessionRequest,
    SessionResolver,
    TeamRequirement,
    ViewFunction,
    WebSocketCrossSite,
    given_settings,
    guard_decorators,
    permission_decorator,
    read_settings,
    wants_page,
    with_session_cookies,
)
from authmw.errors import ConfigurationError
from authmw.middleware import AnonymousUser, AuthUser, Refusal

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from authmw.adapter import AdapterKeywords

#: Prefix of the extension's keys in ``app.config`` (``AUTHMW_PROJECT_ID``, ...).
CONFIG_PREFIX = "AUTHMW_"


def _setting_name(key: str) -> str:
    return f'app.config["{CONFIG_PREFIX}{key}"]'


class AuthMW:
    """Puts the session's user on :data:`current_user`, refreshing the session and rewriting
    its cookies; an unsafe request of a cookie session from another site is answered 403.

    ``AuthMW(app)`` or ``AuthMW()`` then ``init_app(app)``. Settings: the arguments (the
    keywords of :class:`authmw.adapter.AdapterKeywords`, ``api_paths``), else
    ``app.config["AUTHMW_*"]``, else the environment. ``http`` makes the
    ``httpx.AsyncClient`` of the serving loop. A websocket opened from another site with the
    session's cookies is refused (403 to the handshake); ``websocket_cross_site="anonymous"``
    lets it in without the user instead.
    """

    def __init__(
        self,
        app: Quart | None = None,
        *,
        config: AuthConfig | None = None,
        api_paths: tuple[str, ...] | None = None,
        http: Callable[[], httpx.AsyncClient] | None = None,
        websocket_cross_site: WebSocketCrossSite | None = None,
        **settings: Unpack[AdapterKeywords],
    ) -> None:
        self.config, self.http = config, http
        self.given: dict[str, Any] = {
            "API_PATHS": api_paths,
            "WEBSOCKET_CROSS_SITE": websocket_cross_site,
            **given_settings(dict(settings), "AuthMW(...)"),
        }
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Quart) -> None:
        if "authmw" in app.extensions:
            raise ConfigurationError(f"authmw is already set up on the Quart app {app.name!r}.")
        site = read_settings(
            lambda key: app.config.get(CONFIG_PREFIX + key) if self.given.get(key) is None else self.given[key],
            _setting_name,
            config=self.config,
        )
        resolver = app.extensions["authmw"] = SessionResolver(site.config, site.options, async_http=self.http)
        app.before_request(_resolve_session)
        app.before_websocket(_resolve_session)
        app.after_request(_write_cookies)
        app.register_error_handler(Refusal, _refusal_response)
        app.after_serving(resolver.aclose)


def _resolver() -> SessionResolver:
    resolver = current_app.extensions.get("authmw")
    if resolver is None:
        raise ConfigurationError(f"authmw is not set up on the Quart app {current_app.name!r}: call AuthMW(app).")
    return resolver  # type: ignore[no-any-return]


def _connection() -> Request | Websocket:
    """The current HTTP request, or the websocket whose handshake this is."""
    return websocket if has_websocket_context() else request


def _header(name: str) -> str | None:
    headers = _connection().headers
    if name == "cookie":  # HTTP/2 clients send one Cookie header per cookie
        return "; ".join(headers.getlist("cookie")) or None
    value: str | None = headers.get(name)
    return value


async def _resolve_session() -> Response | None:
    """Before each request and each websocket: the same credential rules as the ASGI
    middleware (cookies, bearer, x-stack-auth; a cookie session's websocket from another site
    is refused, or let in without the user under ``websocket_cross_site="anonymous"``). A
    refused websocket handshake gets the refusal as its HTTP answer (the ASGI
    ``websocket.http.response`` extension; servers without it close the handshake)."""
    connection = _connection()
    is_websocket = isinstance(connection, Websocket)
    session = SessionRequest(connection.method, connection.scheme, _header, is_websocket, host=connection.host)
    try:
        g._authmw = await _resolver().aresolve(session)
    except Refusal as refusal:
        return _refusal_response(refusal)
    return None if g._authmw.refusal is None else _refusal_response(g._authmw.refusal)


async def _write_cookies(response: Response) -> Response:
    cookies = g._authmw.cookies if "_authmw" in g else ()
    if cookies:  # the view's own session cookies win; Cache-Control: no-store
        response.headers = Headers(with_session_cookies(list(response.headers.items()), cookies))
    return response


def _refusal_response(refusal: Refusal) -> Response:
    return Response(refusal.body, status=refusal.status, headers=Headers(refusal.headers))


def get_user() -> AuthUser | AnonymousUser:
    """The current request's user (what :data:`current_user` stands for)."""
    resolved = g.get("_authmw")
    return ANONYMOUS if resolved is None else resolved.user


#: The signed-in :class:`AuthUser` of the current request, or :class:`AnonymousUser`.
current_user: AuthUser | AnonymousUser = LocalProxy(get_user)  # type: ignore[assignment]


class Guard(GuardBase):
    """An (async) view decorator: the view runs only for a caller the route's rule lets in
    (:func:`authmw.adapter.decide`), translated as the Flask adapter does: nobody gets 401
    JSON (API paths, JSON clients, websockets, ``api=True``) or a 303 to the sign-in page that
    comes back here, a restricted user the app does not sign in a 303 to the onboarding page;
    a signed-in user lacking a team membership or permission gets 403 (``abort(403)`` for a
    page, the error envelope otherwise). ``api_keys=True``: also for a machine client's API
    key (API 2.8; a team's own key only on team guards). OPTIONS passes."""

    def __call__(self, view: ViewFunction) -> ViewFunction:
        @functools.wraps(view)
        async def guarded(*args: Any, **kwargs: Any) -> Any:
            denial = None if _connection().method == "OPTIONS" else await self._denial(kwargs)
            return await view(*args, **kwargs) if denial is None else self._answer(denial)

        return guarded  # type: ignore[return-value]

    async def _denial(self, view_args: dict[str, Any]) -> Denial | None:
        resolver = _resolver()
        verdict = self.verdict(
            get_user(), lambda requirement: requirement.team_id(view_args), lambda: resolver.team_server(_setting_name)
        )
        return await resolver.arun(verdict) if isinstance(verdict, Generator) else verdict

    def _answer(self, denial: Denial) -> Response:
        resolver, connection = _resolver(), _connection()
        page = not isinstance(connection, Websocket) and wants_page(
            self.api, connection.path, connection.headers.get("Accept"), resolver.options.api_paths
        )
        if page and denial.forbidden:
            abort(403, description=denial.page_text)
        here = connection.full_path.rstrip("?")
        return _refusal_response(denial.refusal(page=page, handler_path=resolver.config.handler_path, return_to=here))


user_required, team_member_required, team_permission_required = guard_decorators(Guard, TeamRequirement)
#: API 2.8 project permissions: ``@require_permission("docs:write")``.
require_permission = permission_decorator(Guard)
