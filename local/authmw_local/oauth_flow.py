"""OAuth sign-in through the local mock provider (service-api A5.4.6).

No real provider is reachable from a development machine, so every enabled provider is served
by a built-in mock: `/auth/oauth/authorize/{provider}` redirects to `/dev/oauth/{provider}`
(mock_provider.py), a page that asks for an e-mail address and returns to the callback with a
code standing for that provider account (or with `error=access_denied`).
Everything the client sees (redirects, cookies, codes, PKCE, errors) follows the contract.

Linking (`type=link`) differs from the real service on purpose. The real service attaches the
provider account to the token's user at its own callback, so anyone can send a victim an
authorize URL built with their own access token: the victim's browser gets the inner cookie
too, the victim authorizes, and the victim's provider account lands on the attacker's user
(login CSRF through linking). Here the callback only checks the link and records it in the
authorization code; the account is attached when the code is exchanged at
`POST /auth/oauth/token` with the PKCE verifier, which only the app that started the flow
holds (the victim's app has no `stack-oauth-outer-{state}` cookie for the attacker's state and
never exchanges the code).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import sqlite3
from typing import Any

from .api_version import ApiVersion
from .errors import CatalogueError
from .ids import new_uuid, now_millis
from .projects import Project, get_project, key_is_valid
from .service import Service
from .urls import is_trusted_url

#: Verification-code types of the flow.
OUTER_FLOW = "oauth_outer_flow"
AUTHORIZATION_CODE = "oauth_authorization_code"
#: What the mock provider hands back to the service's callback.
PROVIDER_CODE = "oauth_mock_provider_code"

OUTER_FLOW_LIFETIME_MILLIS = 10 * 60 * 1000
AUTHORIZATION_CODE_LIFETIME_MILLIS = 300 * 1000
PROVIDER_CODE_LIFETIME_MILLIS = 300 * 1000
INNER_COOKIE_MAX_AGE = 600
INNER_COOKIE_PREFIX = "stack-oauth-inner-"
#: The native-app scheme API 2.8 accepts for `after_callback_redirect_url` (service-api B14.2).
NATIVE_APP_SCHEME = "stack-auth-mobile-oauth-url:"


def speaks_2_8(service: Service) -> bool:
    """Whether the service answers the OAuth routes as API 2.8 (service-api B14.2-B14.3).

    One of the features of the service's API version (api_version.py)."""
    return service.api.oauth_28


def trusted_redirect(service: Service, project: Project, url: str) -> bool:
    """Whether the flow may send a browser (and a code) to `url`: service-api A7.3 for 2.7,
    service-api B14.3 for 2.8 (urls.py: the rule of every callback URL)."""
    return is_trusted_url(project, url, rule_2_8=speaks_2_8(service))


#: The `client_secret` of a client that needs no publishable key (2.8: when the project does not
#: require one).
PUBLIC_CLIENT_SENTINEL = "__stack_public_client__"
#: The only branch of a local project.
MAIN_BRANCH = "main"


def client_project(ctx: Any, client_id: str, client_secret: str, *, wrong_secret: str) -> Project:
    """The project of an OAuth client: `client_id` is the project id, or (2.8) `{project}#{branch}`
    with the project's one branch, `main`; `client_secret` its publishable client key, or (2.8)
    the public-client sentinel when the project does not require a key."""
    project_id, _, branch = client_id.partition("#")
    project = get_project(ctx.sql, project_id) if speaks_2_8(ctx.service) or not branch else None
    if project is None or (branch and branch != MAIN_BRANCH):
        raise CatalogueError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", client_id=client_id)
    if speaks_2_8(ctx.service) and client_secret == PUBLIC_CLIENT_SENTINEL:
        if project.config.get("require_publishable_client_key", True):
            raise CatalogueError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", project_id=project.id)
        return project
    if not key_is_valid(ctx.sql, project.id, "client", client_secret):
        if wrong_secret == "INVALID_OAUTH_CLIENT_ID_OR_SECRET":
            raise CatalogueError(wrong_secret, client_id=client_id)
        raise CatalogueError(wrong_secret, project_id=project.id)
    return project


def pkce_matches(verifier: str, challenge: str, method: str) -> bool:
    if method == "plain":
        return hmac.compare_digest(verifier, challenge)
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return hmac.compare_digest(digest, challenge)


def sign_in_link(c: sqlite3.Connection, project_id: str, provider_id: str, account_id: str) -> sqlite3.Row | None:
    """The link through which the provider account signs in (at most one: API 2.8 lets other
    users link the same account for connected-account use only, service-api B10)."""
    row: sqlite3.Row | None = c.execute(
        "SELECT * FROM oauth_accounts"
        " WHERE project_id = ? AND provider_id = ? AND account_id = ? AND allow_sign_in = 1",
        (project_id, provider_id, account_id),
    ).fetchone()
    return row


def check_link(
    c: sqlite3.Connection, api: ApiVersion, project_id: str, provider_id: str, account_id: str, user_id: str
) -> None:
    """Raise the contract's error when the provider account cannot be linked to `user_id`: it
    signs another user in, or (API 2.7: `api.one_account_per_provider`) the user has another
    account of this provider. API 2.8 links a second account of a provider as one more link:
    backend 2.8.86's callback only asks whether the account signs someone else in. The same
    account linked again by its own user stays the one link it was, in both versions."""
    holder = sign_in_link(c, project_id, provider_id, account_id)
    if holder is not None and holder["user_id"] != user_id:
        raise CatalogueError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER")
    if not api.one_account_per_provider:
        return
    other = c.execute(
        "SELECT 1 FROM oauth_accounts WHERE project_id = ? AND user_id = ? AND provider_id = ? AND account_id != ?",
        (project_id, user_id, provider_id, account_id),
    ).fetchone()
    if other is not None:
        raise CatalogueError("USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION")


def attach_account(
    c: sqlite3.Connection, project_id: str, provider_id: str, account: dict[str, Any], user_id: str, provider_scope: str
) -> None:
    """Link the provider account to `user_id` (unless it is linked already) and remember the
    scopes granted. Safe to run twice: a link made meanwhile is kept as it is."""
    c.execute(
        "INSERT INTO oauth_accounts (id, project_id, provider_id, account_id, user_id, email, created_at_millis)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (new_uuid(), project_id, provider_id, account["account_id"], user_id, account["email"], now_millis()),
    )
    grant_scopes(c, project_id, provider_id, account["account_id"], user_id, provider_scope)


def grant_scopes(
    c: sqlite3.Connection, project_id: str, provider_id: str, account_id: str, user_id: str, provider_scope: str
) -> None:
    """The mock provider grants every scope asked for; remember them for connected-account
    tokens, on the account as linked to `user_id`."""
    key = (project_id, provider_id, account_id, user_id)
    row = c.execute(
        "SELECT granted_scopes FROM oauth_accounts"
        " WHERE project_id = ? AND provider_id = ? AND account_id = ? AND user_id = ?",
        key,
    ).fetchone()
    if row is None:
        return
    scopes = set(row["granted_scopes"].split()) | set(provider_scope.split())
    c.execute(
        "UPDATE oauth_accounts SET granted_scopes = ?"
        " WHERE project_id = ? AND provider_id = ? AND account_id = ? AND user_id = ?",
        (" ".join(sorted(scopes)), *key),
    )
