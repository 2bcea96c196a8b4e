"""Server-rendered OAuth sign-in routes for Django (logic: authmw._oauth_flow)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.urls import URLPattern, path

from authmw.adapter import OAuthRoutes, Options, Reply, SyncDriver, is_secure

from ._middleware import _add_cookies
from ._settings import DjangoAuth, get_auth_config

__all__ = ["oauth_urls"]


def oauth_urls(**options: Any) -> list[URLPattern]:
    """``GET {handler}/oauth/<provider>`` and ``GET|POST {handler}/oauth-callback`` (POST: the TOTP
    form of an account with two-factor authentication) as URL patterns.

    ``urlpatterns = [*oauth_urls(after_sign_in="/dashboard"), ...]`` with the ``AUTHMW``
    settings (project, keys, handler path). ``options``: ``after_sign_in``,
    ``after_sign_up``, ``base_url`` (see :class:`authmw._oauth_flow.OAuthRoutes`).
    """
    flow = OAuthRoutes(get_auth_config(), **options)
    drivers: list[SyncDriver] = []

    def driver() -> SyncDriver:
        if not drivers:
            drivers.append(SyncDriver())
        return drivers[0]

    def start(request: HttpRequest, provider: str) -> HttpResponse:
        reply = flow.start(
            provider, request_url=request.build_absolute_uri(), secure=_secure(request), options=_options(request)
        )
        return _response(reply)

    def finish(request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD", "POST"):
            return HttpResponseNotAllowed(["GET", "POST"])
        op = flow.finish(
            request_url=request.build_absolute_uri(),
            cookie_header=request.headers.get("Cookie"),
            secure=_secure(request),
            method=request.method or "GET",
            body=request.body if request.method == "POST" else b"",
            origin=request.headers.get("Origin"),
            options=_options(request),
        )
        return _response(driver().run(op))

    # Django's CSRF check would refuse the TOTP form's post (no Django token in the flow's page):
    # the flow checks its Origin and needs its SameSite=Lax cookie, which no cross-site post carries
    finish.csrf_exempt = True  # type: ignore[attr-defined]

    return [
        path(flow.start_path("<str:provider>").lstrip("/"), start, name="authmw_oauth_start"),
        path(flow.callback_path.lstrip("/"), finish, name="authmw_oauth_callback"),
    ]


def _secure(request: HttpRequest) -> bool:
    return is_secure(request.scheme or "http", request.headers.get("X-Forwarded-Proto"))


def _options(request: HttpRequest) -> Options | None:
    """The middleware's options (its cookie settings); None without it: the defaults."""
    auth: DjangoAuth | None = getattr(request, "_authmw", None)
    return None if auth is None else auth.resolver.options


def _response(reply: Reply) -> HttpResponse:
    response = HttpResponse(reply.body, status=reply.status)
    for name, value in reply.headers:
        if name == "set-cookie":
            continue
        response[name] = value
    _add_cookies(response, reply.set_cookies)
    return response
