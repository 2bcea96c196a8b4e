"""OAuth authorize and callback with the local mock provider (service-api A5.4.6); see oauth_flow.py."""

from __future__ import annotations

import json
import sqlite3
import time
from email.utils import formatdate
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import mock_provider, oauth_config, outside_oauth
from ..api_version import ANONYMOUS
from ..db import load
from ..endpoint import EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError, ServiceError
from ..ids import now_millis, sha256_hex
from ..oauth_flow import (
    AUTHORIZATION_CODE,
    AUTHORIZATION_CODE_LIFETIME_MILLIS,
    INNER_COOKIE_MAX_AGE,
    INNER_COOKIE_PREFIX,
    NATIVE_APP_SCHEME,
    OUTER_FLOW,
    OUTER_FLOW_LIFETIME_MILLIS,
    PROVIDER_CODE,
    attach_account,
    check_link,
    client_project,
    grant_scopes,
    sign_in_link,
    speaks_2_8,
    trusted_redirect,
)
from ..projects import Project, get_project
from ..responses import json_response
from ..schema import Obj, Spec, Str
from ..sign_up_rules import check_sign_up, mark_restricted
from ..tokens import AccessTokenClaims
from ..urls import with_query_param
from ..user_updates import create_personal_team, personal_team_name
from ..users import create_user, email_used_for_auth, normalise_email, used_for_auth_by_someone_else
from ..verification import create_code, find_code
from . import oauth_cross_domain

group = EndpointGroup()

AUTHORIZE_FIELDS: dict[str, Spec] = {
    "client_id": Str(required=True),
    "client_secret": Str(required=True),
    "redirect_uri": Str(required=True, url=True),
    "scope": Str(required=True),
    "state": Str(required=True),
    "grant_type": Str(required=True, one_of=("authorization_code",)),
    "code_challenge": Str(required=True),
    "code_challenge_method": Str(required=True, one_of=("S256", "plain")),
    "response_type": Str(required=True, one_of=("code",)),
    "type": Str(one_of=("authenticate", "link")),
    "token": Str(),
    "provider_scope": Str(),
    "error_redirect_uri": Str(url=True),
    "error_redirect_url": Str(url=True),
    "after_callback_redirect_url": Str(),
}
#: API 2.7 refuses unknown query parameters.
AUTHORIZE_QUERY = Obj(AUTHORIZE_FIELDS)
#: API 2.8 accepts them (e.g. its bot-challenge fields) and answers JSON on request (14.2).
AUTHORIZE_QUERY_2_8 = Obj(
    {
        **AUTHORIZE_FIELDS,
        "after_callback_redirect_url": Str(url=True),  # 2.8 checks it is a URL
        "stack_response_mode": Str(one_of=("json", "redirect")),
    },
    allow_unknown=True,
)


def _enabled_provider(project: Any, provider_id: str, flow_type: str) -> dict[str, Any]:
    """The provider a flow of this type (`authenticate` or `link`) may use: a sign-in needs the
    provider's sign-in on, a link its connected accounts (2.8's `allowSignIn` /
    `allowConnectedAccounts`, oauth_config.py)."""
    allowed = oauth_config.connects_accounts if flow_type == "link" else oauth_config.signs_in
    providers: list[dict[str, Any]] = project.config["oauth_providers"]
    for provider in providers:
        if provider["id"] == provider_id and provider.get("enabled") and allowed(provider):
            return provider
    raise CatalogueError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED")


@group.get("/auth/oauth/authorize/{provider_id}", tiers=None)
def authorize(ctx: RequestContext) -> Response:
    api_2_8 = speaks_2_8(ctx.service)
    q = ctx.validate(AUTHORIZE_QUERY_2_8 if api_2_8 else AUTHORIZE_QUERY, dict(ctx.request.query_params), "query")
    provider_id = ctx.params["provider_id"].lower()
    project = client_project(ctx, q["client_id"], q["client_secret"], wrong_secret="INVALID_PUBLISHABLE_CLIENT_KEY")
    provider = _enabled_provider(project, provider_id, q.get("type", "authenticate"))
    link_user_id = anonymous_user_id = None
    if q.get("type", "authenticate") == "link":
        link_user_id = _token_claims(ctx, project, q.get("token", "")).user_id
    elif api_2_8 and q.get("token"):
        # 2.8: an anonymous user's token makes a new sign-up the upgrade of that user (7.3)
        claims = _token_claims(ctx, project, q["token"])
        anonymous_user_id = claims.user_id if claims.kind == ANONYMOUS else None
    if q.get("provider_scope") and provider.get("type") == "shared":
        raise CatalogueError("OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS")
    after = q.get("after_callback_redirect_url")
    if api_2_8 and after and not (after.startswith(NATIVE_APP_SCHEME) or trusted_redirect(ctx.service, project, after)):
        # 2.8 refuses an untrusted address to go to after sign-in (2.7 returned any string)
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    # 2.8's JSON mode sets no inner cookie: the PKCE verifier protects the flow (14.2)
    inner_cookie = q.get("stack_response_mode") != "json"
    redirect_uri = urlunsplit(urlsplit(q["redirect_uri"])._replace(fragment=""))
    callback = f"{_base_url(ctx.request)}/api/v1/auth/oauth/callback/{provider_id}"
    flow = {
        "project_id": project.id,
        "provider_id": provider_id,
        # which provider it is (google, ...): its config id may be another name (oauth_config.py)
        "provider_kind": oauth_config.provider_kind(provider),
        "redirect_uri": redirect_uri,
        "scope": q["scope"],
        "state": q["state"],
        "code_challenge": q["code_challenge"],
        "code_challenge_method": q["code_challenge_method"],
        "type": q.get("type", "authenticate"),
        "link_user_id": link_user_id,
        "anonymous_user_id": anonymous_user_id,
        "error_redirect_uri": q.get("error_redirect_uri") or q.get("error_redirect_url"),
        "after_callback_redirect_url": after,
        "provider_scope": q.get("provider_scope") or "",
        "inner_cookie": inner_cookie,
        "started_at_millis": now_millis(),
        # the one address the mock provider may send the browser back to
        "provider_redirect_uri": callback,
    }
    outside = outside_oauth.outside_provider(ctx.service, provider)
    if outside is None:
        inner_state = create_code(ctx.sql, project.id, OUTER_FLOW, flow, OUTER_FLOW_LIFETIME_MILLIS)
        location = f"{_base_url(ctx.request)}/dev/oauth/{provider_id}?" + urlencode(
            {"state": inner_state, "redirect_uri": callback}
        )
    else:
        inner_state, location = _start_outside(ctx, project, outside, flow)
    if not inner_cookie:
        return json_response({"location": location})
    response = RedirectResponse(location, status_code=307)
    # written as the hosted service writes it (attribute order included; no SameSite)
    expires = formatdate(time.time() + INNER_COOKIE_MAX_AGE, usegmt=True)
    secure = " Secure;" if ctx.request.url.scheme == "https" else ""
    response.headers.append(
        "set-cookie",
        f"{INNER_COOKIE_PREFIX}{inner_state}=true; Path=/; Expires={expires}; Max-Age={INNER_COOKIE_MAX_AGE};{secure} HttpOnly",
    )
    return response


def _start_outside(
    ctx: RequestContext, project: Project, provider: outside_oauth.OutsideProvider, flow: dict[str, Any]
) -> tuple[str, str]:
    """The inner state of a flow through an outside provider and the provider's address to
    send the browser to, with the flow's PKCE challenge (outside_oauth.py)."""
    found = ctx.outside(("oauth-discover", provider.provider_id, provider.preset.discovery_url), lambda: outside_oauth.discover(provider))
    if isinstance(found, outside_oauth.Failure):
        raise found.error(provider.provider_id)
    # the address registered at the provider: the service's public one
    callback = f"{ctx.service.base_url}/api/v1/auth/oauth/callback/{provider.provider_id}"
    verifier = outside_oauth.new_verifier()
    flow = {**flow, "provider_redirect_uri": callback, "outside": True, "inner_code_verifier": verifier}
    inner_state = create_code(ctx.sql, project.id, OUTER_FLOW, flow, OUTER_FLOW_LIFETIME_MILLIS)
    location = outside_oauth.authorization_url(
        provider, found, state=inner_state, verifier=verifier, redirect_uri=callback, extra_scope=flow["provider_scope"]
    )
    return inner_state, location


def _token_claims(ctx: RequestContext, project: Project, token: str) -> AccessTokenClaims:
    """The claims of the `token` query parameter; a token of another project is a plain 403."""
    try:
        return ctx.service.tokens.verify(token, project.id, lambda pid: get_project(ctx.sql, pid) is not None)
    except CatalogueError as error:
        if error.code == "INVALID_PROJECT_FOR_ACCESS_TOKEN":
            raise PlainError(403, "The access token is not valid for this project.") from None
        raise


def _base_url(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def callback(ctx: RequestContext) -> Response:
    if speaks_2_8(ctx.service):
        return _callback_2_8(ctx)
    params = {**dict(ctx.request.query_params), **(ctx.raw_body if isinstance(ctx.raw_body, dict) else {})}
    inner_state = str(params.get("state", "")).lower()
    # The flow's project is found from its unguessable inner state (the provider's redirect
    # carries no project); everything after this is scoped to that project.
    project = _flow_project(ctx, inner_state)
    has_cookie = bool(inner_state) and ctx.request.cookies.get(INNER_COOKIE_PREFIX + inner_state) is not None
    if not has_cookie and (project is None or _flow_needs_cookie(ctx, project, inner_state)):
        raise PlainError(
            400,
            "OAuth cookie not found. This is likely because you refreshed the page during the OAuth sign in"
            " process. Please try signing in again",
        )
    if project is None:
        raise PlainError(400, "Invalid OAuth cookie. Please try signing in again.")
    found = find_code(ctx, OUTER_FLOW, inner_state, project_id=project.id)
    flow = found.data
    try:
        location = _finish_callback(ctx, project, flow, params)
    except CatalogueError as error:
        target = flow.get("error_redirect_uri")
        if not target or not trusted_redirect(ctx.service, project, target):
            raise
        location = _with_error(target, error, api_2_8=False)
    found.consume()
    response = RedirectResponse(location, status_code=307)
    if has_cookie:
        response.delete_cookie(INNER_COOKIE_PREFIX + inner_state, path="/")
    return response


def _flow_project(ctx: RequestContext, inner_state: str) -> Project | None:
    row = ctx.sql.execute(
        "SELECT project_id FROM verification_codes WHERE code_hash = ? AND type = ?",
        (sha256_hex(inner_state), OUTER_FLOW),
    ).fetchone()
    return None if row is None else get_project(ctx.sql, row["project_id"])


def _with_error(target: str, error: CatalogueError, *, api_2_8: bool) -> str:
    """`target` with a known error's parameters (2.8 adds the OAuth `error` pair)."""
    extra = {"error": "server_error", "error_description": error.message} if api_2_8 else {}
    query = {**extra, "errorCode": error.code, "message": error.message, "details": json.dumps(error.details)}
    return f"{target}{'&' if urlsplit(target).query else '?'}" + urlencode(query)


class _WithCookies(ServiceError):
    """An error answer that also deletes the flow's inner cookie."""

    def __init__(self, error: ServiceError, cookies: list[str]) -> None:
        super().__init__(str(error))
        self.error, self.cookies = error, cookies

    def to_response(self) -> Response:
        answer = self.error.to_response()
        for header in self.cookies:
            answer.headers.append("set-cookie", header)
        return answer


def _callback_2_8(ctx: RequestContext) -> Response:
    """The callback as 2.8 answers it: an unknown state first; the inner cookie (unless the
    flow started in JSON mode) deleted in every answer; a known error sent to the app's
    callback when it is trusted (else to the error URL, else answered); a finished flow 303."""
    params = {**dict(ctx.request.query_params), **(ctx.raw_body if isinstance(ctx.raw_body, dict) else {})}
    inner_state = str(params.get("state", "")).lower()
    project = _flow_project(ctx, inner_state) if inner_state else None
    if project is None:
        raise PlainError(400, "Invalid OAuth state. Please try signing in again.")
    found = find_code(ctx, OUTER_FLOW, inner_state, project_id=project.id)
    flow = found.data
    delete = []
    if flow.get("inner_cookie", True):
        delete = [f"{INNER_COOKIE_PREFIX}{inner_state}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"]
    try:
        if flow.get("inner_cookie", True) and ctx.request.cookies.get(INNER_COOKIE_PREFIX + inner_state) != "true":
            raise PlainError(
                400,
                "Inner OAuth cookie not found. This is likely because you refreshed the page during the OAuth"
                " sign in process. Please try signing in again",
            )
        if ctx.params["provider_id"].lower() != _callback_name(flow):
            raise PlainError(400, "Inner OAuth callback failed due to invalid grant. Please try again.")
        try:
            location, status = _finish_callback(ctx, project, flow, params), 303
        except CatalogueError as error:
            target = next(
                (
                    url
                    for url in (flow["redirect_uri"], flow.get("error_redirect_uri"))
                    if url and (url.startswith(NATIVE_APP_SCHEME) or trusted_redirect(ctx.service, project, url))
                ),
                None,
            )
            if target is None:
                raise
            location, status = _with_error(target, error, api_2_8=True), 307
    except ServiceError as error:
        raise _WithCookies(error, delete) from None  # rolled back, answered with the deletion
    found.consume()
    response = RedirectResponse(location, status_code=status)
    for header in delete:
        response.headers.append("set-cookie", header)
    return response


def _callback_name(flow: dict[str, Any]) -> str:
    """The provider name of the callback address the flow gave its provider: the config id for
    the mock, the provider's type for an outside provider (the address registered there, as
    2.8.86 gives it), so `work_google` of type google comes back to `.../callback/google`."""
    return str(flow["provider_redirect_uri"]).rsplit("/", 1)[1]


def _flow_needs_cookie(ctx: RequestContext, project: Project, inner_state: str) -> bool:
    """Flows started in 2.8's JSON mode have no inner cookie; every other flow needs its own."""
    row = ctx.sql.execute(
        "SELECT data FROM verification_codes WHERE project_id = ? AND code_hash = ? AND type = ?",
        (project.id, sha256_hex(inner_state), OUTER_FLOW),
    ).fetchone()
    return row is None or bool(load(row["data"]).get("inner_cookie", True))


def _finish_callback(ctx: RequestContext, project: Project, flow: dict[str, Any], params: dict[str, Any]) -> str:
    if now_millis() - flow["started_at_millis"] > 10 * 60 * 1000:
        raise CatalogueError("OUTER_OAUTH_TIMEOUT")
    _enabled_provider(project, flow["provider_id"], flow["type"])
    if params.get("error"):
        raise CatalogueError("OAUTH_PROVIDER_ACCESS_DENIED")
    if not params.get("code"):
        raise PlainError(400, "Inner OAuth callback failed due to invalid grant. Please try again.")
    if flow["scope"] != "legacy":
        raise CatalogueError("INVALID_SCOPE", scope=flow["scope"])
    if not trusted_redirect(ctx.service, project, flow["redirect_uri"]):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    tokens = None
    if flow.get("outside"):
        account, tokens = _outside_account(ctx, project, flow, params)
    else:
        account = _provider_account(ctx, project, params)
    provider_id, provider_scope = flow["provider_id"], flow.get("provider_scope", "")
    pending_link = None
    if flow["type"] == "link":
        # Checked now (errors go to the app's error page), attached only at the code exchange:
        # the browser that got here may not be the app that started the flow (oauth_flow.py).
        user_id, is_new_user = flow["link_user_id"], False
        check_link(ctx.sql, ctx.api, project.id, provider_id, account["account_id"], user_id)
        pending_link = {"provider_id": provider_id, "account": account, "provider_scope": provider_scope}
        pending_link["provider_tokens"] = tokens
    elif (
        flow.get("anonymous_user_id")
        and _unlinked(ctx, project, provider_id, account)
        and _merge_target(ctx, project, account) is None
    ):
        # A sign-up that upgrades the anonymous user of the authorize token: done at the code
        # exchange too, or a victim opening an attacker's URL would sign up into the
        # attacker's anonymous session.
        if not project.config["sign_up_enabled"]:
            raise CatalogueError("SIGN_UP_NOT_ENABLED")
        check_sign_up(project.config, account["email"], "oauth", provider_id)  # again, with restriction, at the exchange
        user_id, is_new_user = flow["anonymous_user_id"], True
        pending_link = {"provider_id": provider_id, "account": account, "provider_scope": provider_scope}
        pending_link["provider_tokens"] = tokens
        pending_link["upgrade_anonymous"] = True
    else:
        user_id, is_new_user = _account_user(ctx, project, flow, account)
        grant_scopes(ctx.sql, project.id, provider_id, account["account_id"], user_id, provider_scope)
        if tokens is not None:
            outside_oauth.store_tokens(ctx.sql, project.id, provider_id, account["account_id"], user_id, tokens)
    code = create_code(
        ctx.sql,
        project.id,
        AUTHORIZATION_CODE,
        {
            "user_id": user_id,
            "is_new_user": is_new_user,
            "redirect_uri": flow["redirect_uri"],
            "code_challenge": flow["code_challenge"],
            "code_challenge_method": flow["code_challenge_method"],
            "after_callback_redirect_url": flow["after_callback_redirect_url"],
            "pending_link": pending_link,
        },
        AUTHORIZATION_CODE_LIFETIME_MILLIS,
    )
    location = with_query_param(flow["redirect_uri"], "code", code)
    return with_query_param(location, "state", flow["state"])


def _outside_account(
    ctx: RequestContext, project: Project, flow: dict[str, Any], params: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The provider account and the provider's tokens, from the outside provider's answer."""
    provider = outside_oauth.outside_provider(
        ctx.service, _enabled_provider(project, flow["provider_id"], flow["type"])
    )
    if provider is None:  # the provider was switched to the mock since the flow started
        raise PlainError(400, "The OAuth provider's settings changed during the sign-in. Please try again.")
    answer = {k: v for k, v in params.items() if isinstance(v, str)}
    got = ctx.outside(
        ("oauth-callback", answer.get("state"), answer.get("code"), answer.get("error")),
        lambda: outside_oauth.finish(
            provider, answer, verifier=flow["inner_code_verifier"], redirect_uri=flow["provider_redirect_uri"]
        ),
    )
    if isinstance(got, outside_oauth.Failure):
        raise got.error(provider.provider_id)
    scopes = provider.scopes(flow.get("provider_scope") or "")
    return dict(got.account), outside_oauth.token_record(got.tokens, scopes)


def _provider_account(ctx: RequestContext, project: Project, params: dict[str, Any]) -> dict[str, Any]:
    """The account the mock provider's code stands for; it must have been issued for this flow."""
    invalid = PlainError(400, "Inner OAuth callback failed due to invalid grant. Please try again.")
    try:
        found = find_code(ctx, PROVIDER_CODE, str(params["code"]), project_id=project.id)
    except CatalogueError:
        raise invalid from None
    found.consume()
    if found.data["inner_state_hash"] != sha256_hex(str(params.get("state", "")).lower()):
        raise invalid
    return dict(found.data["account"])


def _unlinked(ctx: RequestContext, project: Project, provider_id: str, account: dict[str, Any]) -> bool:
    return sign_in_link(ctx.sql, project.id, provider_id, account["account_id"]) is None


def _merge_target(ctx: RequestContext, project: Project, account: dict[str, Any]) -> sqlite3.Row | None:
    """API 2.8 (service-api B10): the sign-in address of another user that an OAuth sign-up
    bringing the same e-mail meets, unless the project allows duplicates (2.7: never)."""
    strategy = project.config.get("oauth_account_merge_strategy", "link_method")
    if not ctx.api.oauth_provider_accounts or strategy == "allow_duplicates" or not account.get("email"):
        return None
    email = account["email"]
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT user_id, value, is_verified FROM contact_channels WHERE project_id = ? AND type = 'email'"
        " AND value IN (?, ?) AND used_for_auth = 1",
        (project.id, email, normalise_email(email)),
    ).fetchone()
    return row


def _merge_by_email(ctx: RequestContext, project: Project, provider_id: str, account: dict[str, Any]) -> str | None:
    """The user an OAuth sign-up joins by e-mail (10.4), or None for a new user.

    `link_method` (the default) attaches the provider account to the user who signs in with the
    address, but only when both sides verified it: otherwise whoever controls one unverified
    side (an attacker who signed up with the victim's address, or a provider that does not
    check addresses) would get into the other's account. `raise_error` never merges."""
    target = _merge_target(ctx, project, account)
    if target is None:
        return None
    strategy = project.config.get("oauth_account_merge_strategy", "link_method")
    if strategy == "link_method" and target["is_verified"] and account.get("email_verified") is True:
        attach_account(ctx.sql, project.id, provider_id, account, target["user_id"], "")
        return str(target["user_id"])
    # 2.8's details: the address the provider brought, and whether verifying the existing
    # address would let the merge through (link_method with an unverified existing address)
    would_work = strategy == "link_method" and not target["is_verified"]
    raise used_for_auth_by_someone_else(account["email"], would_work_if_verified=would_work)


def _account_user(
    ctx: RequestContext, project: Project, flow: dict[str, Any], account: dict[str, Any]
) -> tuple[str, bool]:
    """The user the provider account signs in (created on first sign-in), for `authenticate`."""
    provider_id = flow["provider_id"]
    row = sign_in_link(ctx.sql, project.id, provider_id, account["account_id"])
    if row is not None:
        return row["user_id"], False
    merged = _merge_by_email(ctx, project, provider_id, account)
    if merged is not None:
        return merged, False
    if not project.config["sign_up_enabled"]:
        raise CatalogueError("SIGN_UP_NOT_ENABLED")
    email = account["email"]
    restriction = check_sign_up(project.config, email, "oauth", provider_id)
    user_id = create_user(
        ctx.sql,
        project.id,
        primary_email=email,
        primary_email_verified=account["email_verified"],
        primary_email_auth_enabled=email is not None and not email_used_for_auth(ctx.sql, project.id, email),
        display_name=account.get("display_name"),
        profile_image_url=account.get("profile_image_url"),
    )
    mark_restricted(ctx.sql, project.id, user_id, restriction)
    attach_account(ctx.sql, project.id, provider_id, account, user_id, "")
    if project.config["create_team_on_sign_up"]:
        create_personal_team(ctx.sql, project, user_id, personal_team_name(account.get("display_name"), email))
    return user_id, True


for method in ("GET", "POST"):
    group.route(method, "/auth/oauth/callback/{provider_id}", tiers=None)(callback)


routes = [*group.routes, *mock_provider.routes, *oauth_cross_domain.routes]
