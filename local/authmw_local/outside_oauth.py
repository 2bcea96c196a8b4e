"""OAuth with outside providers: the local service as the OAuth 2 / OpenID Connect client of a
real provider (Google, GitHub, Microsoft, ..., any OIDC issuer), as the hosted service is.

Which providers are outside ones (everything else is served by the built-in mock,
mock_provider.py, the default):
- a `standard` provider (the project's own client id and secret) with the local setting
  `real_provider: true` talks to the provider's own endpoints (PRESETS), or, with
  `oidc_issuer_url`, to that OpenID Connect issuer found by discovery;
- `shared` providers, when the service runs with `shared_oauth_server` (an OIDC server that
  stands in for the hosted service's shared OAuth apps, as the real backend's
  STACK_OAUTH_MOCK_URL does: Stack's own e2e suite runs its mock OIDC server there). Its
  clients are named by the provider id, with SHARED_CLIENT_SECRET.

The flow (oauth_authorize.py): authorize sends the browser to the provider with a fresh inner
`state` and PKCE (S256) challenge; the callback exchanges the code with the verifier, checks the
`iss` of the answer (RFC 9207) and the ID token (signature by the issuer's JWKS, issuer,
audience, expiry), reads the user's profile and keeps the provider's tokens for connected
accounts (connected_accounts.py), which are refreshed with the refresh token when they expire
or are revoked. Every network call here runs outside the request's database transaction
(`RequestContext.outside`), so a slow provider holds no lock.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import httpx
import jwt

from .errors import CatalogueError, PlainError
from .ids import new_uuid, now_millis
from .oauth_config import provider_kind
from .service import Service

if TYPE_CHECKING:
    from .endpoint import RequestContext

#: The client secret of every client of Stack's mock OAuth server (apps/mock-oauth-server).
SHARED_CLIENT_SECRET = "MOCK-SERVER-SECRET"
#: Seconds for one call to a provider.
TIMEOUT = 15.0
#: A provider token that expires within this is not handed out (it is refreshed instead).
EXPIRY_MARGIN_MILLIS = 5 * 60 * 1000
#: When the provider says nothing about the access token's lifetime.
DEFAULT_ACCESS_TOKEN_SECONDS = 3600
#: Attempts at reading the user's profile when the provider fails in a way that may pass.
PROFILE_ATTEMPTS = 3
_RETRY_BASE_SECONDS = 0.25
_TRANSIENT_ERRORS = {"server_error", "temporarily_unavailable", "timeout"}
_ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]


@dataclass(frozen=True)
class Preset:
    """A provider's own endpoints, the scope always asked for and how its profile reads."""

    profile: str  # "oidc", "github", "spotify", "discord"
    base_scope: str
    discovery_url: str | None = None
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    userinfo_endpoint: str | None = None
    extra_params: Mapping[str, str] = field(default_factory=dict)
    #: GitHub's tokens carry no lifetime; 8 hours, as the hosted service assumes.
    default_access_token_seconds: int = DEFAULT_ACCESS_TOKEN_SECONDS


PRESETS: dict[str, Preset] = {
    "google": Preset(
        "oidc",
        "openid email profile",
        discovery_url="https://accounts.google.com",
        extra_params={"include_granted_scopes": "true"},
    ),
    "github": Preset(
        "github",
        "user:email",
        authorization_endpoint="https://github.com/login/oauth/authorize",
        token_endpoint="https://github.com/login/oauth/access_token",
        userinfo_endpoint="https://api.github.com/user",
        default_access_token_seconds=8 * 3600,
    ),
    "microsoft": Preset("oidc", "openid email profile offline_access User.Read"),
    "gitlab": Preset("oidc", "openid email profile read_user", discovery_url="https://gitlab.com"),
    "spotify": Preset(
        "spotify",
        "user-read-email user-read-private",
        authorization_endpoint="https://accounts.spotify.com/authorize",
        token_endpoint="https://accounts.spotify.com/api/token",
        userinfo_endpoint="https://api.spotify.com/v1/me",
    ),
    "discord": Preset(
        "discord",
        "identify email",
        authorization_endpoint="https://discord.com/oauth2/authorize",
        token_endpoint="https://discord.com/api/oauth2/token",
        userinfo_endpoint="https://discord.com/api/users/@me",
    ),
}


@dataclass(frozen=True)
class OutsideProvider:
    """One provider of one project as an OAuth client sees it."""

    provider_id: str
    client_id: str
    client_secret: str
    preset: Preset
    #: Stack's mock server: the profile's `sub` is the e-mail address, taken as verified.
    shared_mock: bool = False

    @property
    def base_scope(self) -> str:
        return self.preset.base_scope

    def scopes(self, extra: str = "") -> list[str]:
        """The scopes asked for: the base ones and the app's `provider_scope`, each once."""
        out: list[str] = []
        for scope in f"{self.base_scope} {extra}".split():
            if scope not in out:
                out.append(scope)
        return out


def outside_provider(service: Service, config: Mapping[str, Any]) -> OutsideProvider | None:
    """The outside provider serving a project's provider settings, or None for the built-in mock."""
    provider_id = provider_kind(config)
    if config.get("type") == "shared":
        url = service.shared_oauth_server
        if url is None:
            return None
        preset = Preset("oidc", "openid offline_access", discovery_url=url)
        return OutsideProvider(provider_id, provider_id, SHARED_CLIENT_SECRET, preset, shared_mock=True)
    issuer = config.get("oidc_issuer_url")
    if not issuer and not config.get("real_provider"):
        return None
    client_id, client_secret = str(config.get("client_id") or ""), str(config.get("client_secret") or "")
    if issuer:
        base = PRESETS[provider_id].base_scope if provider_id in PRESETS and PRESETS[provider_id].profile == "oidc" else ""
        preset = Preset("oidc", base or "openid email profile", discovery_url=str(issuer))
    elif provider_id == "microsoft":
        tenant = config.get("microsoft_tenant_id") or "common"
        preset = Preset(
            "oidc", PRESETS["microsoft"].base_scope, discovery_url=f"https://login.microsoftonline.com/{tenant}/v2.0"
        )
    else:
        preset = PRESETS[provider_id]
    return OutsideProvider(provider_id, client_id, client_secret, preset)


def setting_problem(config: Mapping[str, Any]) -> str | None:
    """Why a provider's local settings cannot work (for the admin's update), or None."""
    issuer = config.get("oidc_issuer_url")
    if not issuer and not config.get("real_provider"):
        return None
    provider_id = provider_kind(config)
    if config.get("type") != "standard":
        return f"{provider_id}: real_provider and oidc_issuer_url need type 'standard' with the app's own client id and secret"
    if issuer:
        if not str(issuer).startswith(("https://", "http://")):
            return f"{provider_id}: oidc_issuer_url must be an http(s) URL, e.g. https://accounts.google.com"
        return None
    if provider_id not in PRESETS and provider_id != "microsoft":
        known = ", ".join(sorted({*PRESETS, "microsoft"}))
        return (
            f"{provider_id}: the local service knows the endpoints of {known}; for another provider"
            " that speaks OpenID Connect set oidc_issuer_url"
        )
    return None


# ---------------------------------------------------------------------------------------------
# Talking to the provider (no database here: callers run these outside the transaction)


@dataclass(frozen=True)
class Endpoints:
    issuer: str | None
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str | None
    jwks_uri: str | None


@dataclass(frozen=True)
class TokenSet:
    access_token: str
    refresh_token: str | None
    expires_at_millis: int
    id_token: str | None = None


@dataclass(frozen=True)
class Failure:
    """What went wrong at the provider, as the flow answers it."""

    kind: str  # "access_denied", "invalid_grant", "invalid_client", "unavailable", "refused"
    detail: str = ""

    def error(self, provider_id: str) -> Exception:
        if self.kind == "access_denied":
            return CatalogueError("OAUTH_PROVIDER_ACCESS_DENIED")
        if self.kind == "unavailable":
            return CatalogueError("OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE")
        if self.kind == "invalid_grant":
            return PlainError(400, "Inner OAuth callback failed due to invalid grant. Please try again.")
        if self.kind == "invalid_client":
            return PlainError(
                400,
                f"Invalid client credentials for the OAuth provider {provider_id}. Check its client id and"
                " secret in the project's settings.",
            )
        return PlainError(400, f"The OAuth provider {provider_id} refused the sign-in: {self.detail}")


class _ProviderError(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.kind)
        self.failure = failure


_DISCOVERED: dict[str, Endpoints] = {}


def _client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, headers={"accept": "application/json", "user-agent": "authmw-local"})


def endpoints(provider: OutsideProvider) -> Endpoints:
    """The provider's endpoints: its preset, or its discovery document (kept once read)."""
    preset = provider.preset
    if preset.discovery_url is None:
        assert preset.authorization_endpoint and preset.token_endpoint
        return Endpoints(None, preset.authorization_endpoint, preset.token_endpoint, preset.userinfo_endpoint, None)
    url = preset.discovery_url.rstrip("/")
    if url in _DISCOVERED:
        return _DISCOVERED[url]
    if not url.endswith("/.well-known/openid-configuration"):
        url += "/.well-known/openid-configuration"
    try:
        with _client() as client:
            response = client.get(url)
    except httpx.HTTPError as error:
        raise _ProviderError(Failure("unavailable", f"discovery at {url}: {error}")) from None
    if response.status_code >= 500 or response.status_code == 429:
        raise _ProviderError(Failure("unavailable", f"discovery at {url}: status {response.status_code}"))
    try:
        document = response.json()
        found = Endpoints(
            str(document["issuer"]),
            str(document["authorization_endpoint"]),
            str(document["token_endpoint"]),
            document.get("userinfo_endpoint"),
            document.get("jwks_uri"),
        )
    except (ValueError, KeyError, TypeError):
        raise _ProviderError(Failure("refused", f"no OpenID Connect discovery document at {url}")) from None
    _DISCOVERED[preset.discovery_url.rstrip("/")] = found
    return found


def pkce_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_verifier() -> str:
    return secrets.token_urlsafe(48)


def authorization_url(
    provider: OutsideProvider, found: Endpoints, *, state: str, verifier: str, redirect_uri: str, extra_scope: str
) -> str:
    # in the order the hosted service's OAuth client writes them
    query = {
        "client_id": provider.client_id,
        "scope": " ".join(provider.scopes(extra_scope)),
        "response_type": "code",
        "redirect_uri": redirect_uri,
        "code_challenge_method": "S256",
        "code_challenge": pkce_challenge(verifier),
        "state": state,
        "access_type": "offline",
        "prompt": "consent",
        **provider.preset.extra_params,
    }
    separator = "&" if "?" in found.authorization_endpoint else "?"
    return found.authorization_endpoint + separator + urlencode(query)


def discover(provider: OutsideProvider) -> Endpoints | Failure:
    try:
        return endpoints(provider)
    except _ProviderError as error:
        return error.failure


@dataclass(frozen=True)
class SignedIn:
    account: dict[str, Any]
    tokens: TokenSet


def finish(
    provider: OutsideProvider, params: Mapping[str, Any], *, verifier: str, redirect_uri: str
) -> SignedIn | Failure:
    """The provider's answer at the callback: the code exchanged, the ID token checked, the
    profile read. A Failure, never an exception, for anything the provider does."""
    try:
        found = endpoints(provider)
        error = params.get("error")
        if error:
            kind = "access_denied" if error in ("access_denied", "consent_required") else "refused"
            if error in _TRANSIENT_ERRORS:
                kind = "unavailable"
            return Failure(kind, str(params.get("error_description") or error))
        if found.issuer and params.get("iss") and not _same_issuer(found.issuer, str(params["iss"])):
            return Failure("refused", "the answer names another issuer")
        code = params.get("code")
        if not isinstance(code, str) or not code:
            return Failure("invalid_grant")
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
        tokens = _token_request(provider, found, form)
        if found.jwks_uri and found.issuer and tokens.id_token is None and "openid" in provider.scopes():
            return Failure("refused", "no ID token in the answer")
        claims = _verify_id_token(provider, found, tokens.id_token) if tokens.id_token and found.jwks_uri else {}
        return SignedIn(_profile(provider, found, tokens, claims), tokens)
    except _ProviderError as failed:
        return failed.failure


def refresh(provider: OutsideProvider, refresh_token: str, scope: str | None) -> TokenSet | Failure:
    """A new access token for a refresh token (RFC 6749 section 6)."""
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    if scope:
        form["scope"] = scope
    try:
        return _token_request(provider, endpoints(provider), form)
    except _ProviderError as failed:
        return failed.failure


def access_token_works(provider: OutsideProvider, access_token: str) -> bool:
    """Whether the provider still takes the access token (it may have been revoked)."""
    try:
        found = endpoints(provider)
        if not found.userinfo_endpoint:
            return True
        with _client() as client:
            response = client.get(found.userinfo_endpoint, headers=_bearer(provider, access_token))
        return response.status_code == 200
    except (_ProviderError, httpx.HTTPError):
        return False


def _bearer(provider: OutsideProvider, access_token: str) -> dict[str, str]:
    headers = {"authorization": f"Bearer {access_token}"}
    if provider.preset.profile == "github":
        headers["x-github-api-version"] = "2022-11-28"
    return headers


def _token_request(provider: OutsideProvider, found: Endpoints, form: dict[str, str]) -> TokenSet:
    try:
        with _client() as client:
            response = client.post(
                found.token_endpoint, data=form, auth=(provider.client_id, provider.client_secret)
            )
    except httpx.HTTPError as error:
        raise _ProviderError(Failure("unavailable", str(error))) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        kind = "unavailable" if response.status_code >= 500 or response.status_code == 429 else "refused"
        raise _ProviderError(Failure(kind, f"status {response.status_code}"))
    answered = body.get("error")
    if answered or response.status_code != 200:
        code = str(answered or "")
        kind = {
            "invalid_grant": "invalid_grant",
            "invalid_client": "invalid_client",
            "unauthorized_client": "invalid_client",
            "access_denied": "access_denied",
            "consent_required": "access_denied",
        }.get(code, "unavailable" if code in _TRANSIENT_ERRORS or response.status_code >= 500 else "refused")
        raise _ProviderError(Failure(kind, str(body.get("error_description") or code or response.status_code)))
    access_token = body.get("access_token")
    if not isinstance(access_token, str) or not access_token:
        raise _ProviderError(Failure("refused", "no access token in the answer"))
    expires_in = body.get("expires_in")
    seconds = (
        int(expires_in)
        if isinstance(expires_in, (int, float)) or (isinstance(expires_in, str) and expires_in.isdigit())
        else provider.preset.default_access_token_seconds
    )
    refresh_token = body.get("refresh_token")
    id_token = body.get("id_token")
    return TokenSet(
        access_token,
        refresh_token if isinstance(refresh_token, str) and refresh_token else None,
        now_millis() + seconds * 1000,
        id_token if isinstance(id_token, str) else None,
    )


def _verify_id_token(provider: OutsideProvider, found: Endpoints, id_token: str) -> dict[str, Any]:
    """The ID token's claims, after checking its signature against the issuer's keys, its
    issuer, audience and lifetime (OpenID Connect Core 3.1.3.7)."""
    assert found.jwks_uri is not None
    try:
        header = jwt.get_unverified_header(id_token)
        with _client() as client:
            response = client.get(found.jwks_uri)
        keys = jwt.PyJWKSet.from_dict(response.json())
        candidates = [k for k in keys.keys if header.get("kid") in (None, k.key_id)]
        if not candidates:
            raise _ProviderError(Failure("refused", "the ID token is signed by a key the issuer does not list"))
        claims: dict[str, Any] = jwt.decode(
            id_token,
            candidates[0],
            algorithms=_ID_TOKEN_ALGORITHMS,
            audience=provider.client_id,
            options={"require": ["iss", "sub", "aud", "exp", "iat"]},
            leeway=60,
        )
        if found.issuer is None or not _same_issuer(found.issuer, str(claims["iss"]), claims.get("tid")):
            raise _ProviderError(Failure("refused", "the ID token is of another issuer"))
        return claims
    except httpx.HTTPError as error:
        raise _ProviderError(Failure("unavailable", str(error))) from None
    except (jwt.PyJWTError, ValueError) as error:
        raise _ProviderError(Failure("refused", f"invalid ID token ({error})")) from None


def _same_issuer(expected: str, actual: str, tenant: object = None) -> bool:
    """Whether `actual` is the discovered issuer. Microsoft's multi-tenant discovery names
    its issuer with a `{tenantid}` placeholder: the ID token's `tid` fills it."""
    if "{tenantid}" in expected:
        if not isinstance(tenant, str) or not tenant:
            return actual.startswith(expected.split("{tenantid}")[0])
        expected = expected.replace("{tenantid}", tenant)
    return actual == expected


def _profile(provider: OutsideProvider, found: Endpoints, tokens: TokenSet, claims: Mapping[str, Any]) -> dict[str, Any]:
    """The provider account: id, e-mail address (and whether the provider verified it), name
    and picture, read from the provider's profile endpoint, with a few attempts when the
    provider fails in a way that may pass."""
    for attempt in range(PROFILE_ATTEMPTS):
        try:
            return _read_profile(provider, found, tokens, claims)
        except _ProviderError as error:
            if error.failure.kind != "unavailable" or attempt == PROFILE_ATTEMPTS - 1:
                raise
            time.sleep(_RETRY_BASE_SECONDS * 2**attempt)
    raise AssertionError("unreachable")


def _get_json(provider: OutsideProvider, url: str, access_token: str) -> Any:
    try:
        with _client() as client:
            response = client.get(url, headers=_bearer(provider, access_token))
    except httpx.HTTPError as error:
        raise _ProviderError(Failure("unavailable", str(error))) from None
    if response.status_code == 429 or response.status_code >= 500:
        raise _ProviderError(Failure("unavailable", f"status {response.status_code} from {url}"))
    if response.status_code != 200:
        raise _ProviderError(Failure("refused", f"status {response.status_code} from {url}"))
    try:
        return response.json()
    except ValueError:
        raise _ProviderError(Failure("refused", f"no JSON from {url}")) from None


def _read_profile(
    provider: OutsideProvider, found: Endpoints, tokens: TokenSet, claims: Mapping[str, Any]
) -> dict[str, Any]:
    profile = provider.preset.profile
    info: Mapping[str, Any] = dict(claims)
    if found.userinfo_endpoint:
        got = _get_json(provider, found.userinfo_endpoint, tokens.access_token)
        info = got if isinstance(got, dict) else {}
    if profile == "github":
        emails = _get_json(provider, "https://api.github.com/user/emails", tokens.access_token)
        primary = next((e for e in emails if isinstance(e, dict) and e.get("primary")), {}) if isinstance(emails, list) else {}
        return _account(info.get("id"), primary.get("email"), primary.get("verified") is True, info.get("name"), info.get("avatar_url"))
    if profile == "spotify":
        images = info.get("images") or [{}]
        # Spotify does not check addresses: never taken as verified
        return _account(info.get("id"), info.get("email"), False, info.get("display_name"), images[0].get("url"))
    if profile == "discord":
        avatar = info.get("avatar")
        picture = f"https://cdn.discordapp.com/avatars/{info.get('id')}/{avatar}.png" if avatar else None
        return _account(info.get("id"), info.get("email"), info.get("verified") is True, info.get("global_name") or info.get("username"), picture)
    sub = info.get("sub")
    if claims and sub != claims.get("sub"):
        raise _ProviderError(Failure("refused", "the profile is of another subject than the ID token"))
    if provider.shared_mock:
        return _account(sub, sub, True, info.get("name"), info.get("picture"))
    return _account(sub, info.get("email"), info.get("email_verified") is True, info.get("name"), info.get("picture"))


def _account(account_id: Any, email: Any, verified: bool, name: Any, picture: Any) -> dict[str, Any]:
    if account_id is None or str(account_id) == "":
        raise _ProviderError(Failure("refused", "the profile has no account id"))
    address = email.strip().lower() if isinstance(email, str) and "@" in email else None
    return {
        "account_id": str(account_id),
        "email": address,
        "email_verified": bool(verified and address),
        "display_name": name if isinstance(name, str) else None,
        "profile_image_url": picture if isinstance(picture, str) else None,
    }


# ---------------------------------------------------------------------------------------------
# The provider's tokens of a linked account (connected accounts)


def store_tokens(
    c: sqlite3.Connection, project_id: str, provider_id: str, account_id: str, user_id: str, tokens: Mapping[str, Any]
) -> None:
    """Keep the provider's tokens of a flow on the account as linked to `user_id`."""
    row = c.execute(
        "SELECT id FROM oauth_accounts WHERE project_id = ? AND provider_id = ? AND account_id = ? AND user_id = ?",
        (project_id, provider_id, account_id, user_id),
    ).fetchone()
    if row is None:
        return
    scopes = str(tokens["scopes"])
    if tokens.get("refresh_token"):
        _insert_token(c, project_id, row["id"], "refresh", tokens["refresh_token"], scopes, None)
    _insert_token(c, project_id, row["id"], "access", tokens["access_token"], scopes, tokens["expires_at_millis"])


def token_record(tokens: TokenSet, scopes: list[str]) -> dict[str, Any]:
    """A TokenSet as kept in a flow's data until the account is linked."""
    return {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "expires_at_millis": tokens.expires_at_millis,
        "scopes": " ".join(scopes),
    }


def _insert_token(
    c: sqlite3.Connection, project_id: str, link_id: str, kind: str, token: str, scopes: str, expires: int | None
) -> None:
    c.execute(
        "INSERT INTO oauth_provider_tokens"
        " (id, project_id, oauth_account_id, kind, token, scopes, expires_at_millis, is_valid, created_at_millis)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
        (new_uuid(), project_id, link_id, kind, token, scopes, expires, now_millis()),
    )


def _invalidate(c: sqlite3.Connection, project_id: str, token_id: str) -> None:
    c.execute("UPDATE oauth_provider_tokens SET is_valid = 0 WHERE project_id = ? AND id = ?", (project_id, token_id))


def connected_access_token(ctx: RequestContext, provider: OutsideProvider, link_ids: list[str], scope: str) -> str:
    """An access token of the provider for one of the linked accounts `link_ids` that has every
    scope of `scope`: a kept one the provider still takes, else one got with a kept refresh
    token. OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE when neither works (the user must
    authorize again)."""
    project_id = ctx.project.id
    wanted = set(scope.split())
    marks = ",".join("?" * len(link_ids))
    rows = ctx.sql.execute(
        f"SELECT * FROM oauth_provider_tokens WHERE project_id = ? AND oauth_account_id IN ({marks})"
        " AND is_valid = 1 ORDER BY created_at_millis, rowid",
        (project_id, *link_ids),
    ).fetchall()
    usable = [row for row in rows if wanted <= set(row["scopes"].split())]
    for row in usable:
        if row["kind"] != "access" or row["expires_at_millis"] <= now_millis() + EXPIRY_MARGIN_MILLIS:
            continue
        if ctx.outside(("oauth-token-works", row["token"]), partial(access_token_works, provider, row["token"])):
            return str(row["token"])
        ctx.keep_on_error(partial(_invalidate, project_id=project_id, token_id=row["id"]))
    for row in usable:
        if row["kind"] != "refresh":
            continue
        got = ctx.outside(
            ("oauth-refresh", row["token"], scope), partial(refresh, provider, row["token"], scope or None)
        )
        if isinstance(got, Failure):
            if got.kind == "unavailable":
                raise got.error(provider.provider_id)
            ctx.keep_on_error(partial(_invalidate, project_id=project_id, token_id=row["id"]))
            continue
        assert isinstance(got, TokenSet)
        _insert_token(ctx.sql, project_id, row["oauth_account_id"], "access", got.access_token, row["scopes"], got.expires_at_millis)
        if got.refresh_token and got.refresh_token != row["token"]:
            _invalidate(ctx.sql, project_id, row["id"])
            _insert_token(ctx.sql, project_id, row["oauth_account_id"], "refresh", got.refresh_token, row["scopes"], None)
        return got.access_token
    raise CatalogueError("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE")
