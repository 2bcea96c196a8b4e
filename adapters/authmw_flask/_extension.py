from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
from flask import Flask, Response, g, has_request_context, request
from werkzeug.datastructures import Headers
from werkzeug.local import LocalProxy

from authmw import AuthConfig
from authmw.adapter import (
    ANONYMOUS,
    Resolved,
    SessionRequest,
    SessionResolver,
    given_settings,
    read_settings,
    with_session_cookies,
)
from authmw.errors import ConfigurationError
from authmw.middleware import AnonymousUser, AuthUser, Refusal

from ._flask_login import LoadUser, feed_flask_login
from ._settings import CONFIG_PREFIX, EXTENSION_KEY, FlaskAuth, setting_name, site_auth

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from authmw.adapter import AdapterKeywords


class AuthMW:
    """Puts the session's user on :data:`current_user`, refreshing the session and
    rewriting its cookies when needed.

    ``AuthMW(app)`` or ``AuthMW()`` then ``init_app(app)``. Settings come from the
    arguments, else ``app.config["AUTHMW_*"]`` (``PROJECT_ID``, ``API_URL``,
    ``PUBLISHABLE_CLIENT_KEY``, ``SECRET_SERVER_KEY``, ``HANDLER_PATH``, ``ENV_FILE``,
    ``ON_REFRESH_UNAVAILABLE``, ``API_PATHS``, ``CSRF_CHECK``, ``TRUSTED_ORIGINS``,
    ``COOKIE_SAME_SITE``, ``COOKIE_SECURE``), else the environment. ``http`` makes the
    ``httpx.Client`` for key-set fetches, refreshes and team checks. ``flask_login`` feeds
    Flask-Login: a function mapping the signed-in :class:`AuthUser` to the app's own user
    (see :mod:`authmw_flask._flask_login`).

    An unsafe request (POST, PUT, PATCH, DELETE, ...) signed in from the session cookies is
    answered 403 before the view runs unless it comes from the app's own origin or one of
    ``trusted_origins`` (docs/security.md); ``csrf_check=False`` turns that off.
    """

    def __init__(
        self,
        app: Flask | None = None,
        *,
        config: AuthConfig | None = None,
        api_paths: tuple[str, ...] | None = None,
        http: Callable[[], httpx.Client] | None = None,
        flask_login: LoadUser | None = None,
        **settings: Unpack[AdapterKeywords],
    ) -> None:
        self.config = config
        self._options: dict[str, Any] = {"API_PATHS": api_paths, **given_settings(dict(settings), "AuthMW(...)")}
        self.http = http
        self.flask_login = flask_login
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        if EXTENSION_KEY in app.extensions:
            raise ConfigurationError(f"authmw is already set up on the Flask app {app.name!r} (init_app called twice).")

        def lookup(key: str) -> Any:
            value = self._options.get(key)
            return value if value is not None else app.config.get(CONFIG_PREFIX + key)

        site = read_settings(lookup, setting_name, config=self.config)
        app.extensions[EXTENSION_KEY] = FlaskAuth(
            site.config, SessionResolver(site.config, site.options, http=self.http)
        )
        app.before_request(_resolve_session)
        app.after_request(_write_cookies)
        app.register_error_handler(Refusal, refusal_response)
        if self.flask_login is not None:
            feed_flask_login(app, self.flask_login, get_user)


def _resolved() -> Resolved:
    # Once per request, whichever comes first: this extension's before_request hook, or an
    # earlier hook (registered before init_app) reading current_user. May raise Refusal.
    resolved: Resolved | None = g.get("_authmw")
    if resolved is None:
        session = SessionRequest(request.method, request.scheme, request.headers.get, host=request.host)
        resolved = g._authmw = site_auth().resolver.resolve(session)
    return resolved


def _resolve_session() -> Response | None:
    try:
        refusal = _resolved().refusal
    except Refusal as raised:
        refusal = raised
    return None if refusal is None else refusal_response(refusal)


def _write_cookies(response: Response) -> Response:
    resolved = g.get("_authmw")
    if resolved is not None and resolved.cookies:
        # The ASGI/WSGI rule: a view that set or deleted a session cookie itself (say, signing
        # out) wins, and a response carrying session cookies gets Cache-Control: no-store.
        response.headers = Headers(with_session_cookies(list(response.headers.items()), resolved.cookies))
    return response


def refusal_response(refusal: Refusal) -> Response:
    return Response(refusal.body, status=refusal.status, headers=refusal.headers)


def get_user() -> AuthUser | AnonymousUser:
    """The current request's user (what :data:`current_user` stands for)."""
    if not has_request_context():
        site_auth()  # explains a missing init_app
        return ANONYMOUS
    return _resolved().user


#: The signed-in :class:`AuthUser` of the current request, or :class:`AnonymousUser`.
current_user: AuthUser | AnonymousUser = LocalProxy(get_user)  # type: ignore[assignment]
