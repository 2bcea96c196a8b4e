"""Server-rendered OAuth sign-in routes for Flask (logic: authmw._oauth_flow)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request
from werkzeug.datastructures import Headers

from authmw.adapter import OAuthRoutes, Reply, SyncDriver, is_secure

from ._settings import site_auth

__all__ = ["oauth_blueprint"]


def oauth_blueprint(name: str = "authmw_oauth", **options: Any) -> Blueprint:
    """``GET {handler}/oauth/<provider>`` and ``GET|POST {handler}/oauth-callback`` (POST: the TOTP
    form of an account with two-factor authentication) as a blueprint.

    ``app.register_blueprint(oauth_blueprint(after_sign_in="/dashboard"))`` after ``AuthMW(app)``,
    whose settings (project, keys, handler path) it uses. ``options``: ``after_sign_in``,
    ``after_sign_up``, ``base_url`` (see :class:`authmw._oauth_flow.OAuthRoutes`).
    """
    blueprint = Blueprint(name, __name__)
    flows: dict[int, OAuthRoutes] = {}
    drivers: list[SyncDriver] = []

    def flow() -> OAuthRoutes:
        config = site_auth().config
        if id(config) not in flows:
            flows[id(config)] = OAuthRoutes(config, **options)
        return flows[id(config)]

    def driver() -> SyncDriver:
        if not drivers:
            drivers.append(SyncDriver())
        return drivers[0]

    def secure() -> bool:
        return is_secure(request.scheme, request.headers.get("X-Forwarded-Proto"))

    def start(provider: str) -> Response:
        options = site_auth().resolver.options
        return _response(flow().start(provider, request_url=request.url, secure=secure(), options=options))

    def finish() -> Response:
        op = flow().finish(
            request_url=request.url,
            cookie_header=request.headers.get("Cookie"),
            secure=secure(),
            method=request.method,
            body=request.get_data() if request.method == "POST" else b"",
            origin=request.headers.get("Origin"),
            options=site_auth().resolver.options,
        )
        return _response(driver().run(op))

    @blueprint.record_once
    def _register(state: Any) -> None:
        auth = site_auth(state.app)
        routes = OAuthRoutes(auth.config, **options)
        state.app.add_url_rule(routes.start_path("<provider>"), f"{name}.start", start, methods=["GET"])
        state.app.add_url_rule(routes.callback_path, f"{name}.callback", finish, methods=["GET", "POST"])

    return blueprint


def _response(reply: Reply) -> Response:
    return Response(reply.body, status=reply.status, headers=Headers(list(reply.headers)))
