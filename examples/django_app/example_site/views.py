"""``/api/me`` and ``/account`` for signed-in users, and the React app for every other path."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from authmw_django import get_auth_config, user_required
from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html

from authmw.errors import UserAuthenticationRequired
from authmw.middleware import Refusal

#: Replaced in index.html by the browser's configuration.
CONFIG_MARKER = "<!--AUTHMW_CONFIG-->"


@user_required
def me(request: HttpRequest) -> JsonResponse:
    user: Any = request.user
    if user.server is None:  # no secret server key: only what the token says
        return JsonResponse({"id": user.id, "primary_email": user.email, "display_name": user.display_name})
    full = user.get_server_user()
    if full is None:  # deleted since the token was issued
        raise Refusal.of(UserAuthenticationRequired())
    return JsonResponse({"id": full.id, "primary_email": full.primary_email, "display_name": full.display_name})


@user_required
def account(request: HttpRequest) -> HttpResponse:
    """A server-rendered page: anonymous visitors are sent to sign in, then back here."""
    return HttpResponse(format_html('<p data-testid="account">Signed in as {}</p>', request.user.id))


def api_not_found(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"error": f"No API route {request.path}"}, status=404)


def web(request: HttpRequest, path: str) -> HttpResponse:
    # Built files by name; every other path is a page of the single-page app.
    dist = settings.WEB_DIST.resolve()
    file = (dist / path).resolve()
    if path and file.is_file() and file.is_relative_to(dist) and file.name != "index.html":
        return FileResponse(file.open("rb"))
    return HttpResponse(index_html(), headers={"Cache-Control": "no-store"})


@cache
def index_html() -> str:
    config = get_auth_config()
    # Only what the browser may see: never the server key.
    public = {
        "projectId": config.project_id,
        "publishableClientKey": config.publishable_client_key,
        "apiUrl": config.api_url,
        "handlerPath": config.handler_path,
    }
    script = "<script>window.__AUTHMW_CONFIG__ = " + json.dumps(public).replace("<", "\\u003c") + "</script>"
    return (settings.WEB_DIST / "index.html").read_text().replace(CONFIG_MARKER, script)
