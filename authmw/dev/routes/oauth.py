"""The OAuth token endpoint (contract 3.5 and 5.4.6): refresh grant; code exchange pending."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import unquote

from ..endpoint import Ctx, EndpointGroup
from ..errors import KnownError, OAuthError
from ..projects import get_project, key_is_valid
from ..responses import json_response
from ..schema import Obj, Str
from ..tokens import find_refresh_token_user

#: What the OAuth library reports as `expires_in`, whatever the JWT's real lifetime.
REPORTED_EXPIRES_IN = 3599

group = EndpointGroup()


@group.post(
    "/auth/oauth/token",
    tiers=None,
    body=Obj(
        {"grant_type": Str(required=True, one_of=("authorization_code", "refresh_token"))},
        required=True,
        allow_unknown=True,
    ),
)
def token(ctx: Ctx) -> Any:
    params = dict(ctx.body)
    client_id, client_secret = _client_credentials(ctx, params)
    project = get_project(ctx.c, client_id)
    if project is None or not key_is_valid(ctx.c, project.id, "client", client_secret):
        raise KnownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", client_id=client_id)
    if params["grant_type"] == "authorization_code":
        # TODO(oauth): code exchange arrives with the OAuth authorize/callback routes.
        for name in ("code", "redirect_uri", "code_verifier"):
            if not params.get(name):
                raise OAuthError("invalid_request", f"Missing parameter: `{name}`")
        raise KnownError("INVALID_AUTHORIZATION_CODE")
    refresh_token = params.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        raise OAuthError("invalid_request", "Missing parameter: `refresh_token`")
    user_id = find_refresh_token_user(ctx.c, project.id, refresh_token)
    body = {
        "access_token": ctx.service.access_token(ctx.c, project.id, user_id),
        "token_type": "Bearer",
        "expires_in": REPORTED_EXPIRES_IN,
        "scope": "legacy",
    }
    return json_response(body, headers={"pragma": "no-cache"})


def _client_credentials(ctx: Ctx, params: dict[str, Any]) -> tuple[str, str]:
    client_id, client_secret = params.get("client_id"), params.get("client_secret")
    authorization = ctx.request.headers.get("authorization", "")
    if authorization.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise OAuthError("invalid_request", "Invalid authorization header") from None
        basic_id, sep, basic_secret = decoded.partition(":")
        if not sep:
            raise OAuthError("invalid_request", "Invalid authorization header")
        client_id, client_secret = unquote(basic_id), unquote(basic_secret)
    if not isinstance(client_id, str) or not client_id:
        raise OAuthError("invalid_request", "Missing parameter: `client_id`")
    if not isinstance(client_secret, str) or not client_secret:
        raise OAuthError("invalid_request", "Missing parameter: `client_secret`")
    return client_id, client_secret


routes = group.routes
