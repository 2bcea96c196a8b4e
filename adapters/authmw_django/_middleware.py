from __future__ import annotations

from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.functional import SimpleLazyObject

from authmw.adapter import Resolved, SessionRequest
from authmw.middleware import AnonymousUser, AuthUser, Refusal

from . import _settings
from ._linked import sync_request
from ._settings import DjangoAuth, check_order, request_user, site_auth

__all__ = ["AuthMiddleware", "cross_site_refusal", "refusal_response", "request_user", "site_auth"]



class AuthMiddleware:
    """Puts the session's user on ``request.user`` (and ``await request.auser()``),
    refreshing the session and rewriting its cookies when needed.

    Works in a sync (WSGI) and an async (ASGI) middleware chain: the session is decided
    before the view runs, so its cookies can be written to the response, and reading
    ``request.user`` never does I/O, in sync and async views alike. A view may raise
    :class:`authmw.middleware.Refusal` to answer with a JSON error.

    An unsafe request signed in from the session cookies is answered 403 before its view
    runs unless it comes from the site's own origin or one of ``AUTHMW["TRUSTED_ORIGINS"]``
    (views marked ``csrf_exempt`` excepted). When Django's ``CsrfViewMiddleware`` is
    installed, it does the checking instead (docs/django.md).
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        check_order(settings.MIDDLEWARE)
        self.get_response = get_response
        self.auth = _settings.load()
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        try:
            resolved = self.auth.resolver.resolve(_session_request(request), check_origin=False)
        except Refusal as refusal:
            return refusal_response(refusal)
        _attach(request, self.auth, resolved)
        if self.auth.linked is not None:
            sync_request(request, resolved.user, resolved.from_cookies)
        response = self.get_response(request)
        _add_cookies(response, resolved.cookies)
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        try:
            resolved = await self.auth.resolver.aresolve(_session_request(request), check_origin=False, sync_user=True)
        except Refusal as refusal:
            return refusal_response(refusal)
        _attach(request, self.auth, resolved)
        if self.auth.linked is not None:
            await sync_to_async(sync_request)(request, resolved.user, resolved.from_cookies)
        response = await self.get_response(request)
        _add_cookies(response, resolved.cookies)
        return response

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: Any) -> HttpResponse | None:
        """The cross-site check, unless Django's CsrfViewMiddleware does it or the view is exempt."""
        if self.auth.django_csrf or getattr(view, "csrf_exempt", False):
            return None
        refusal = cross_site_refusal(request, self.auth)
        return None if refusal is None else refusal_response(refusal)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view (or a guard inside it) raised ``Refusal``: answer with its JSON error."""
        if isinstance(exception, Refusal):
            return refusal_response(exception)
        return None


def _session_request(request: HttpRequest, host: str | None = None) -> SessionRequest:
    def header(name: str) -> str | None:
        if name != "cookie" or getattr(request, "scope", None) is None:
            value: str | None = request.headers.get(name)
            return value
        # Django's ASGIRequest joins repeated headers with "," (HTTP/2 clients send one Cookie
        # header per cookie), which would glue a comma to a cookie's value.
        values = [v.decode("latin-1") for k, v in request.scope.get("headers", ()) if k == b"cookie" and v]
        return "; ".join(values) or None

    return SessionRequest(request.method or "GET", request.scheme or "http", header, host=host)


def cross_site_refusal(request: HttpRequest, auth: DjangoAuth) -> Refusal | None:
    """authmw's cross-site check of a request whose session came from the cookies."""
    resolved: Resolved | None = getattr(request, "_authmw_resolved", None)
    if resolved is None or not resolved.from_cookies:
        return None
    try:
        host: str | None = request.get_host()
    except DisallowedHost:
        host = None
    return auth.resolver.cross_site(_session_request(request, host))


def _attach(request: HttpRequest, auth: DjangoAuth, resolved: Resolved) -> None:
    user = resolved.user

    async def auser() -> AuthUser | AnonymousUser:
        # The same user; its server calls are awaitable, on the running loop's connections.
        return auth.resolver.async_user(user)

    request._authmw = auth
    request._authmw_resolved = resolved
    if auth.linked is not None:
        # request.user and auser() stay Django's; the linked middleware step sets them.
        request.authmw_user = user
        return
    request.user = SimpleLazyObject(lambda: user)
    request.auser = auser


def _add_cookies(response: HttpResponseBase, cookies: tuple[str, ...]) -> None:
    added = False
    for header in cookies:
        jar: SimpleCookie = SimpleCookie()
        jar.load(header)
        for name, morsel in jar.items():
            # A view that set or deleted a session cookie itself (say, signing out) wins.
            if name not in response.cookies:
                response.cookies[name] = morsel
                added = True
    if added:
        # As the ASGI/WSGI middleware: no shared cache may keep a response carrying tokens.
        response.headers["Cache-Control"] = "no-store"


def refusal_response(refusal: Refusal) -> HttpResponse:
    return HttpResponse(refusal.body, status=refusal.status, headers=dict(refusal.headers))
