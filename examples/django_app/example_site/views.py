"""``/api/me`` and ``/account`` for signed-in users; the React app's index.html gets the browser's settings."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html

from authmw.errors import UserAuthenticationRequired
from authmw.middleware import Refusal
from authmw_django import get_auth_config, user_required

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


def with_config(index_html: str) -> str:
    config = get_auth_config()
    # Only what the browser may see: never the server key.
    public = {
        "projectId": config.project_id,
        "publishableClientKey": config.publishable_client_key,
        "apiUrl": config.api_url,
        "handlerPath": config.handler_path,
    }
    script = "<script>window.__AUTHMW_CONFIG__ = " + json.dumps(public).replace("<", "\\u003c") + "</script>"
    return index_html.replace(CONFIG_MARKER, script)
