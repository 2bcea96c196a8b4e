"""The OAuth token endpoint (service-api A3.5 and A5.4.6): refresh grant and code exchange."""

from __future__ import annotations

import base64
import sqlite3
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from .. import outside_oauth
from ..endpoint import EndpointGroup, RequestContext
from ..errors import CatalogueError, OAuthError, PlainError
from ..oauth_flow import (
    AUTHORIZATION_CODE,
    PUBLIC_CLIENT_SENTINEL,
    attach_account,
    check_link,
    client_project,
    pkce_matches,
    speaks_2_8,
    trusted_redirect,
)
from ..projects import Project
from ..responses import json_response
from ..schema import Obj, Str
from ..sign_in import finish_sign_in
from ..sign_up_rules import check_sign_up, mark_restricted
from ..tokens import find_refresh_session
from ..user_updates import upgrade_anonymous_user
from ..users import add_contact_channel, email_used_for_auth, get_user
from ..verification import find_code
from . import oauth_apple_native

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
def token(ctx: RequestContext) -> Any:
    params = dict(ctx.body)
    client_id, client_secret = _client_credentials(ctx, params)
    # 2.8: no secret is a public client, as the sentinel is (oauth_flow.client_project)
    client_secret = client_secret or PUBLIC_CLIENT_SENTINEL
    project = client_project(ctx, client_id, client_secret, wrong_secret="INVALID_OAUTH_CLIENT_ID_OR_SECRET")
    if params["grant_type"] == "authorization_code":
        return _exchange_code(ctx, project, params)
    refresh_token = params.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        raise OAuthError("invalid_request", "Missing parameter: `refresh_token`")
    session = find_refresh_session(ctx.sql, project.id, refresh_token)
    body = {
        "access_token": ctx.service.access_token(ctx.sql, project.id, session),
        "token_type": "Bearer",
        "expires_in": REPORTED_EXPIRES_IN,
        "scope": "legacy",
    }
    if speaks_2_8(ctx.service):  # 2.8's token library answers the refresh grant with these too
        body["afterCallbackRedirectUrl"] = body["after_callback_redirect_url"] = None
    return json_response(body, headers={"pragma": "no-cache"})


def _exchange_code(ctx: RequestContext, project: Project, params: dict[str, Any]) -> Any:
    for name in ("code", "redirect_uri", "code_verifier"):
        if not isinstance(params.get(name), str) or not params[name]:
            raise OAuthError("invalid_request", f"Missing parameter: `{name}`")
    try:
        found = find_code(ctx, AUTHORIZATION_CODE, params["code"], project_id=project.id)
    except CatalogueError:
        raise CatalogueError("INVALID_AUTHORIZATION_CODE") from None
    data = found.data
    found.consume()  # single use, whatever happens next
    if not pkce_matches(params["code_verifier"], data["code_challenge"], data["code_challenge_method"]):
        raise CatalogueError("INVALID_AUTHORIZATION_CODE")
    redirect_uri = urlunsplit(urlsplit(params["redirect_uri"])._replace(fragment=""))
    if redirect_uri != data["redirect_uri"] and speaks_2_8(ctx.service):
        raise PlainError(
            400,
            "Invalid redirect URI. Your redirect URI must be the same as the one used to get the authorization code.",
        )
    if redirect_uri != data["redirect_uri"] or not trusted_redirect(ctx.service, project, redirect_uri):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    user = get_user(ctx.sql, project.id, data["user_id"])
    if user is None:
        raise CatalogueError("INVALID_AUTHORIZATION_CODE")
    if data.get("session_refresh_token"):
        return _hand_over_session(ctx, project, data)
    link = data.get("pending_link")
    if link is not None and link.get("upgrade_anonymous"):
        _upgrade_anonymous(ctx, project, user, link)
    elif link is not None:
        _attach_pending_link(ctx, project, user["id"], link)
    tokens = finish_sign_in(ctx, user, is_new_user=data["is_new_user"], project=project)
    after = data.get("after_callback_redirect_url")
    body = {
        "access_token": tokens["access_token"],
        "token_type": "Bearer",
        "expires_in": REPORTED_EXPIRES_IN,
        "refresh_token": tokens["refresh_token"],
        "scope": "legacy",
        "is_new_user": data["is_new_user"],
        "newUser": data["is_new_user"],
        "after_callback_redirect_url": after,
        "afterCallbackRedirectUrl": after,
    }
    return json_response(body, headers={"pragma": "no-cache"})


def _hand_over_session(ctx: RequestContext, project: Project, data: dict[str, Any]) -> Any:
    """The code of a cross-domain handoff (oauth_cross_domain.py): a new access token of the
    same session, and that session's refresh token."""
    refresh_token = data["session_refresh_token"]
    try:
        session = find_refresh_session(ctx.sql, project.id, refresh_token)
    except CatalogueError:
        raise CatalogueError("INVALID_AUTHORIZATION_CODE") from None  # signed out meanwhile
    if session.user_id != data["user_id"]:
        raise CatalogueError("INVALID_AUTHORIZATION_CODE")
    after = data.get("after_callback_redirect_url")
    body = {
        "access_token": ctx.service.access_token(ctx.sql, project.id, session),
        "token_type": "Bearer",
        "expires_in": REPORTED_EXPIRES_IN,
        "refresh_token": refresh_token,
        "scope": "legacy",
        "is_new_user": False,
        "newUser": False,
        "after_callback_redirect_url": after,
        "afterCallbackRedirectUrl": after,
    }
    return json_response(body, headers={"pragma": "no-cache"})


def _attach_pending_link(ctx: RequestContext, project: Project, user_id: str, link: dict[str, Any]) -> None:
    """The link flow's account, attached now that the app holding the PKCE verifier asked
    (oauth_flow.py). It stays attached when the sign-in then needs the second factor: the
    link was asked for with the user's access token, which already passed it."""
    provider_id, account = link["provider_id"], link["account"]
    check_link(ctx.sql, ctx.api, project.id, provider_id, account["account_id"], user_id)
    ctx.keep_on_error(lambda c: _attach(c, project, user_id, link))


def _attach(c: sqlite3.Connection, project: Project, user_id: str, link: dict[str, Any]) -> None:
    """Link the flow's provider account and keep the outside provider's tokens (if any) on it."""
    provider_id, account = link["provider_id"], link["account"]
    attach_account(c, project.id, provider_id, account, user_id, link["provider_scope"])
    if link.get("provider_tokens"):
        outside_oauth.store_tokens(c, project.id, provider_id, account["account_id"], user_id, link["provider_tokens"])


def _upgrade_anonymous(ctx: RequestContext, project: Project, user: sqlite3.Row, link: dict[str, Any]) -> None:
    """The OAuth sign-up that upgrades the anonymous user of the authorize token (service-api
    B7.3), done now that the app holding the PKCE verifier asked (oauth_flow.py)."""
    if not user["is_anonymous"]:
        raise CatalogueError("INVALID_AUTHORIZATION_CODE")  # signed up some other way meanwhile
    provider_id, account = link["provider_id"], link["account"]
    check_link(ctx.sql, ctx.api, project.id, provider_id, account["account_id"], user["id"])
    email = account["email"]
    if email:  # an outside provider may give no address
        add_contact_channel(
            ctx.sql,
            project.id,
            user["id"],
            email,
            is_primary=True,
            is_verified=bool(account["email_verified"]),
            used_for_auth=not email_used_for_auth(ctx.sql, project.id, email),
        )
    upgrade_anonymous_user(ctx.sql, project, user["id"])
    mark_restricted(ctx.sql, project.id, user["id"], check_sign_up(project.config, email, "oauth", provider_id))
    _attach(ctx.sql, project, user["id"], link)


def _client_credentials(ctx: RequestContext, params: dict[str, Any]) -> tuple[str, str]:
    client_id, client_secret = params.get("client_id"), params.get("client_secret")
    authorization = ctx.request.headers.get("authorization", "")
    if authorization.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode()
        except ValueError:  # not base64 (binascii.Error), not ASCII, or not UTF-8 once decoded
            raise OAuthError("invalid_request", "Invalid authorization header") from None
        basic_id, sep, basic_secret = decoded.partition(":")
        if not sep:
            raise OAuthError("invalid_request", "Invalid authorization header")
        client_id, client_secret = unquote(basic_id), unquote(basic_secret)
    if not isinstance(client_id, str) or not client_id:
        raise OAuthError("invalid_request", "Missing parameter: `client_id`")
    if not isinstance(client_secret, str) or not client_secret:
        if speaks_2_8(ctx.service):
            return client_id, ""
        raise OAuthError("invalid_request", "Missing parameter: `client_secret`")
    return client_id, client_secret


routes = group.routes + oauth_apple_native.routes
