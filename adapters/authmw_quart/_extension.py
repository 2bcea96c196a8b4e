"""The Quart shell over authmw's request handler: it only translates Quart's request and
response; every decision is :class:`authmw.adapter.SessionResolver`'s."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
from quart import Quart, Response, current_app, g, request
from werkzeug.datastructures import Headers
from werkzeug.local import LocalProxy

from authmw import AuthConfig
from authmw.adapter import (
    ANONYMOUS,
    SessionRequest,
    SessionResolver,
    ViewFunction,
    admission,
    is_json_request,
    read_settings,
    sign_in_url,
    with_session_cookies,
)
from authmw.errors import ConfigurationError, UserAuthenticationRequired
from authmw.middleware import AnonymousUser, AuthUser, Refusal

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from authmw.adapter import SettingKeywords

#: Prefix of the extension's keys in ``app.config`` (``AUTHMW_PROJECT_ID``, ...).
CONFIG_PREFIX = "AUTHMW_"


class AuthMW:
    """Puts the session's user on :data:`current_user`, refreshing the session and rewriting
    its cookies; an unsafe request of a cookie session from another site is answered 403.

    ``AuthMW(app)`` or ``AuthMW()`` then ``init_app(app)``. Settings: the arguments (the
    keywords of :class:`authmw.adapter.SettingKeywords`, ``api_paths``), else
    ``app.config["AUTHMW_*"]``, else the environment. ``http`` makes the
    ``httpx.AsyncClient`` of the serving loop.
    """

    def __init__(
        self,
        app: Quart | None = None,
        *,
        config: AuthConfig | None = None,
        api_paths: tuple[str, ...] | None = None,
        http: Callable[[], httpx.AsyncClient] | None = None,
        **settings: Unpack[SettingKeywords],
    ) -> None:
        self.config, self.http = config, http
        self.given: dict[str, Any] = {"API_PATHS": api_paths, **{k.upper(): v for k, v in settings.items()}}
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Quart) -> None:
        if "authmw" in app.extensions:
            raise ConfigurationError(f"authmw is already set up on the Quart app {app.name!r}.")
        site = read_settings(
            lambda key: app.config.get(CONFIG_PREFIX + key) if self.given.get(key) is None else self.given[key],
            lambda key: f'app.config["{CONFIG_PREFIX}{key}"]',
            config=self.config,
        )
        resolver = app.extensions["authmw"] = SessionResolver(site.config, site.options, async_http=self.http)
        app.before_request(_resolve_session)
        app.after_request(_write_cookies)
        app.register_error_handler(Refusal, _refusal_response)
        app.after_serving(resolver.aclose)


def _resolver() -> SessionResolver:
    resolver = current_app.extensions.get("authmw")
    if resolver is None:
        raise ConfigurationError(f"authmw is not set up on the Quart app {current_app.name!r}: call AuthMW(app).")
    return resolver  # type: ignore[no-any-return]


def _header(name: str) -> str | None:
    if name == "cookie":  # HTTP/2 clients send one Cookie header per cookie
        return "; ".join(request.headers.getlist("cookie")) or None
    value: str | None = request.headers.get(name)
    return value


async def _resolve_session() -> Response | None:
    try:
        g._authmw = await _resolver().aresolve(SessionRequest(request.method, request.scheme, _header, host=request.host))
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


def user_required(view: ViewFunction | None = None, /, *, api: bool | None = None, api_keys: bool = False) -> Any:
    """The (async) view runs for signed-in users; others get 401 JSON (API paths, JSON
    clients, ``api=True``) or a 303 to the sign-in page that comes back here afterwards.
    ``api_keys=True``: also for a user calling with one of their API keys (API 2.8)."""

    def guard(view: ViewFunction) -> ViewFunction:
        @functools.wraps(view)
        async def guarded(*args: Any, **kwargs: Any) -> Any:
            admitted = True if request.method == "OPTIONS" else admission(get_user(), api_keys)
            if admitted is True:
                return await view(*args, **kwargs)
            if admitted is not False:
                return _refusal_response(Refusal.of(admitted))
            wants_json = api if api is not None else is_json_request(
                request.path, request.headers.get("Accept"), _resolver().options.api_paths
            )
            if wants_json:
                return _refusal_response(Refusal.of(UserAuthenticationRequired()))
            return_to = request.full_path.rstrip("?")
            return _refusal_response(Refusal.redirect(sign_in_url(_resolver().config.handler_path, return_to)))

        return guarded  # type: ignore[return-value]

    return guard if view is None else guard(view)
