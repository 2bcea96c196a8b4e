"""Access tokens (ES256 JWTs, service-api A3.1; 2.8: service-api B3.1) and refresh tokens
(opaque, stored hashed, 3.4)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt

from .api_version import ANONYMOUS, RESTRICTED, USER, ApiVersion, kind_of_audience
from .db import dump
from .errors import CatalogueError, expired_error
from .ids import new_uuid, now_millis, random_code, sha256_hex
from .keys import KeyStore, SigningKey

#: Refresh-token lifetime of sign-in style endpoints: 365 days.
REFRESH_TOKEN_LIFETIME_MILLIS = 365 * 24 * 3600 * 1000


@dataclass(frozen=True)
class AccessTokenSubject:
    """What an access token says about its session and user."""

    user_id: str
    refresh_token_id: str
    name: str | None
    email: str | None
    email_verified: bool
    selected_team_id: str | None
    signed_up_at_millis: int
    requires_totp_mfa: bool
    is_anonymous: bool = False
    #: `anonymous`, `email_not_verified`, `restricted_by_administrator` or None (service-api B4.1).
    restricted_reason: str | None = None

    @property
    def kind(self) -> str:
        if self.is_anonymous:
            return ANONYMOUS
        return USER if self.restricted_reason is None else RESTRICTED


@dataclass(frozen=True)
class AccessTokenClaims:
    project_id: str
    user_id: str
    exp: int
    #: The session (refresh-token row) the token was issued for; None in tokens without one.
    refresh_token_id: str | None = None
    kind: str = USER
    restricted_reason: str | None = None


@dataclass(frozen=True)
class TokenRules:
    """How one service signs and reads access tokens: its API version and its public URL
    (the base of the 2.8 issuers)."""

    keys: KeyStore
    api: ApiVersion
    base_url: str

    def signing_key(self, project_id: str, kind: str) -> SigningKey:
        if self.api.jwks_per_audience:
            return self.keys.for_audience(self.api.audience(project_id, kind))[0]
        return self.keys.for_project(project_id)

    def jwks(self, project_id: str, kinds: tuple[str, ...] = (USER,)) -> list[dict[str, str]]:
        """The published keys: per audience the signing key first, then the second key (2.8);
        the one project key (2.7)."""
        if not self.api.jwks_per_audience:
            return [self.keys.for_project(project_id).jwk()]
        return [key.jwk() for kind in kinds for key in self.keys.for_audience(self.api.audience(project_id, kind))]

    def issue(self, project_id: str, subject: AccessTokenSubject, ttl_seconds: float, *, now: float | None = None) -> str:
        """An access token with every claim of the version (service-api B3.1)."""
        iat = int(time.time() if now is None else now)
        kind = subject.kind if self.api.anonymous_users else USER
        claims: dict[str, Any] = {"sub": subject.user_id}
        if not self.api.per_project_issuer:
            claims["branchId"] = "main"  # 2.7's camelCase claim; 2.8 sends branch_id only
        claims.update(
            {
                "iss": self.api.issuer(self.base_url, project_id, kind),
                "iat": iat,
                "aud": self.api.audience(project_id, kind),
                "exp": iat + max(1, int(round(ttl_seconds))),
            }
        )
        if not self.api.token_profile_claims:
            return self.signing_key(project_id, kind).sign(claims)
        claims.update(
            {
                "project_id": project_id,
                "branch_id": "main",
                "refresh_token_id": subject.refresh_token_id,
                "role": "authenticated",
                "name": subject.name,
                "email": subject.email,
                "email_verified": subject.email_verified,
                "selected_team_id": subject.selected_team_id,
                # seconds (service-api B3.1); local services before 0.2 wrote milliseconds
                "signed_up_at": subject.signed_up_at_millis // 1000,
                "is_anonymous": kind == ANONYMOUS,
                "is_restricted": kind != USER,
                "restricted_reason": None if kind == USER else {"type": subject.restricted_reason},
                "requires_totp_mfa": subject.requires_totp_mfa,
            }
        )
        return self.signing_key(project_id, kind).sign(claims)

    def verify(
        self, token: str, project_id: str, project_exists: Callable[[str], bool], *, admin: bool = False
    ) -> AccessTokenClaims:
        """Verify a user access token for `x-stack-project-id` = project_id (service-api A1.3).

        `project_exists(id)` tells whether a project's key may be used. `admin=True` gives the
        ADMIN_* error codes used for `x-stack-admin-access-token` (whose user may be neither
        anonymous nor restricted)."""
        unparsable = "UNPARSABLE_ADMIN_ACCESS_TOKEN" if admin else "UNPARSABLE_ACCESS_TOKEN"
        try:
            unverified = jwt.decode(token, options={"verify_signature": False})
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise CatalogueError(unparsable) from None
        if header.get("alg") != "ES256":
            raise CatalogueError(unparsable)
        found = (
            self._key_28(unverified, header, project_exists, unparsable)
            if self.api.per_project_issuer
            else self._key_27(unverified, project_exists, unparsable)
        )
        key, token_project, kind, issuer = found
        try:
            claims = jwt.decode(
                token,
                key.public_key,
                algorithms=["ES256"],
                issuer=issuer,
                options={"verify_aud": False, "require": ["exp", "sub", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            raise expired_error(
                "ADMIN_ACCESS_TOKEN_EXPIRED" if admin else "ACCESS_TOKEN_EXPIRED",
                unverified.get("exp"),
                project_id=token_project,
                user_id=unverified.get("sub"),
                refresh_token_id=unverified.get("refresh_token_id"),
            ) from None
        except jwt.PyJWTError:
            raise CatalogueError(unparsable) from None
        branch = claims.get("branch_id", claims.get("branchId")) or "main"
        if branch != "main" or not isinstance(claims.get("sub"), str):
            raise CatalogueError(unparsable)
        reason = None
        if self.api.anonymous_users:
            reason = _restricted_reason(claims, kind)
            if reason is _INCONSISTENT or (admin and kind != USER):
                raise CatalogueError(unparsable)
        if not admin and token_project != project_id:
            raise CatalogueError(
                "INVALID_PROJECT_FOR_ACCESS_TOKEN", expected_project_id=project_id, actual_project_id=token_project
            )
        session = claims.get("refresh_token_id")
        return AccessTokenClaims(
            project_id=str(token_project),
            user_id=claims["sub"],
            exp=int(claims["exp"]),
            refresh_token_id=session if isinstance(session, str) else None,
            kind=kind,
            restricted_reason=reason if isinstance(reason, str) else None,
        )

    def _key_27(
        self, unverified: dict[str, Any], project_exists: Callable[[str], bool], unparsable: str
    ) -> tuple[SigningKey, object, str, str]:
        audience = unverified.get("aud")
        issuer = self.api.issuer(self.base_url, "")
        if audience is None:
            return self.keys.global_key(), unverified.get("projectId"), USER, issuer
        if isinstance(audience, str) and project_exists(audience):
            return self.keys.for_project(audience), audience, USER, issuer
        raise CatalogueError(unparsable)

    def _key_28(
        self,
        unverified: dict[str, Any],
        header: dict[str, Any],
        project_exists: Callable[[str], bool],
        unparsable: str,
    ) -> tuple[SigningKey, str, str, str]:
        audience = unverified.get("aud")
        if not isinstance(audience, str):
            raise CatalogueError(unparsable)  # no legacy global signing in 2.8 (3.1)
        token_project, kind = kind_of_audience(audience)
        if not project_exists(token_project):
            raise CatalogueError(unparsable)
        for key in self.keys.for_audience(audience):
            if key.kid == header.get("kid"):
                return key, token_project, kind, self.api.issuer(self.base_url, token_project, kind)
        raise CatalogueError(unparsable)


#: A token whose anonymous / restricted claims contradict its audience.
_INCONSISTENT = object()


def _restricted_reason(claims: dict[str, Any], kind: str) -> object:
    """The restriction a 2.8 token carries, checked the way the backend checks it (3.1):
    anonymous implies restricted, `is_restricted` iff a reason, the audience matches both."""
    is_anonymous = claims.get("is_anonymous", False) is True
    is_restricted = claims.get("is_restricted", False) is True
    reason = claims.get("restricted_reason")
    reason_type = reason.get("type") if isinstance(reason, dict) else None
    if is_anonymous != (kind == ANONYMOUS) or is_restricted != (kind != USER):
        return _INCONSISTENT
    if is_restricted != (reason_type is not None) or (reason is not None and reason_type is None):
        return _INCONSISTENT
    if is_anonymous and reason_type != "anonymous":
        return _INCONSISTENT
    return reason_type


def create_refresh_token(
    c: sqlite3.Connection,
    project_id: str,
    user_id: str,
    lifetime_millis: int = REFRESH_TOKEN_LIFETIME_MILLIS,
    *,
    is_impersonation: bool = False,
) -> tuple[str, str]:
    """A new refresh token and its session id."""
    token = random_code()
    session_id = new_uuid()
    now = now_millis()
    c.execute(
        "INSERT INTO refresh_tokens (id, token_hash, project_id, user_id, created_at_millis, expires_at_millis,"
        " is_impersonation) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (session_id, sha256_hex(token), project_id, user_id, now, now + lifetime_millis, int(is_impersonation)),
    )
    return token, session_id


@dataclass(frozen=True)
class RefreshSession:
    id: str
    user_id: str


def find_refresh_session(c: sqlite3.Connection, project_id: str, token: str) -> RefreshSession:
    """The live session of a refresh token of this project, else REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED."""
    row = c.execute(
        "SELECT id, user_id, expires_at_millis FROM refresh_tokens WHERE token_hash = ? AND project_id = ?",
        (sha256_hex(token), project_id),
    ).fetchone()
    if row is None or row["expires_at_millis"] <= now_millis():
        raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
    return RefreshSession(id=row["id"], user_id=row["user_id"])


def mark_session_used(c: sqlite3.Connection, project_id: str, session_id: str, ip_info: dict[str, Any] | None) -> None:
    """Record an access-token issuance on the session (service-api B3.4): time, and IP and
    location when the end user is known."""
    c.execute(
        "UPDATE refresh_tokens SET last_used_at_millis = ?, last_used_ip_info = coalesce(?, last_used_ip_info)"
        " WHERE project_id = ? AND id = ?",
        (now_millis(), dump(ip_info), project_id, session_id),
    )


def delete_refresh_token(c: sqlite3.Connection, project_id: str, token: str) -> bool:
    cur = c.execute(
        "DELETE FROM refresh_tokens WHERE token_hash = ? AND project_id = ?", (sha256_hex(token), project_id)
    )
    return cur.rowcount > 0


def delete_session(c: sqlite3.Connection, project_id: str, session_id: str, user_id: str | None = None) -> bool:
    """End a session by id (of `user_id` when given); False when there was none."""
    sql = "DELETE FROM refresh_tokens WHERE id = ? AND project_id = ?"
    args: tuple[str, ...] = (session_id, project_id)
    if user_id is not None:
        sql, args = sql + " AND user_id = ?", (*args, user_id)
    return c.execute(sql, args).rowcount > 0


def revoke_user_refresh_tokens(
    c: sqlite3.Connection, project_id: str, user_id: str, *, keep: str | None = None
) -> None:
    sql = "DELETE FROM refresh_tokens WHERE project_id = ? AND user_id = ?"
    if keep is None:
        c.execute(sql, (project_id, user_id))
    else:
        c.execute(sql + " AND token_hash != ?", (project_id, user_id, sha256_hex(keep)))
