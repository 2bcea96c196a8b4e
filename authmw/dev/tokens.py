"""Access tokens (ES256 JWTs, contract 3.1) and refresh tokens (opaque, stored hashed, 3.4)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

import jwt

from .errors import CatalogueError, expired_error
from .ids import new_uuid, now_millis, random_code, sha256_hex
from .keys import ISSUER, KeyStore

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


@dataclass(frozen=True)
class AccessTokenClaims:
    project_id: str
    user_id: str
    exp: int


def issue_access_token(
    keys: KeyStore, project_id: str, session: AccessTokenSubject, ttl_seconds: float, *, now: float | None = None
) -> str:
    """An access token with the 2.7 claims plus every claim the official 2.8 SDK requires."""
    iat = int(time.time() if now is None else now)
    claims = {
        "sub": session.user_id,
        "branchId": "main",
        "iss": ISSUER,
        "iat": iat,
        "aud": project_id,
        "exp": iat + max(1, int(round(ttl_seconds))),
        "project_id": project_id,
        "branch_id": "main",
        "refresh_token_id": session.refresh_token_id,
        "role": "authenticated",
        "name": session.name,
        "email": session.email,
        "email_verified": session.email_verified,
        "selected_team_id": session.selected_team_id,
        "signed_up_at": session.signed_up_at_millis,
        "is_anonymous": False,
        "is_restricted": False,
        "restricted_reason": None,
        "requires_totp_mfa": session.requires_totp_mfa,
    }
    return keys.for_project(project_id).sign(claims)


def verify_access_token(
    keys: KeyStore, token: str, project_id: str, project_exists: Callable[[str], bool], *, admin: bool = False
) -> AccessTokenClaims:
    """Verify a user access token for `x-stack-project-id` = project_id (contract 1.3 step 1).

    `project_exists(id)` tells whether a project's key may be used. `admin=True` gives the
    ADMIN_* error codes used for `x-stack-admin-access-token`.
    """
    unparsable = "UNPARSABLE_ADMIN_ACCESS_TOKEN" if admin else "UNPARSABLE_ACCESS_TOKEN"
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise CatalogueError(unparsable) from None
    if header.get("alg") != "ES256":
        raise CatalogueError(unparsable)
    audience = unverified.get("aud")
    if audience is None:
        key = keys.global_key()
        token_project = unverified.get("projectId")
    elif isinstance(audience, str) and project_exists(audience):
        key = keys.for_project(audience)
        token_project = audience
    else:
        raise CatalogueError(unparsable)
    try:
        claims = jwt.decode(
            token,
            key.public_key,
            algorithms=["ES256"],
            issuer=ISSUER,
            options={"verify_aud": False, "require": ["exp", "sub", "iss"]},
        )
    except jwt.ExpiredSignatureError:
        raise expired_error(
            "ADMIN_ACCESS_TOKEN_EXPIRED" if admin else "ACCESS_TOKEN_EXPIRED", unverified.get("exp")
        ) from None
    except jwt.PyJWTError:
        raise CatalogueError(unparsable) from None
    if (claims.get("branchId") or "main") != "main" or not isinstance(claims.get("sub"), str):
        raise CatalogueError(unparsable)
    if not admin and token_project != project_id:
        raise CatalogueError("INVALID_PROJECT_FOR_ACCESS_TOKEN")
    return AccessTokenClaims(project_id=str(token_project), user_id=claims["sub"], exp=int(claims["exp"]))


def create_refresh_token(
    c: sqlite3.Connection, project_id: str, user_id: str, lifetime_millis: int = REFRESH_TOKEN_LIFETIME_MILLIS
) -> tuple[str, str]:
    """A new refresh token and its session id."""
    token = random_code()
    session_id = new_uuid()
    now = now_millis()
    c.execute(
        "INSERT INTO refresh_tokens (id, token_hash, project_id, user_id, created_at_millis, expires_at_millis)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, sha256_hex(token), project_id, user_id, now, now + lifetime_millis),
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


def delete_refresh_token(c: sqlite3.Connection, project_id: str, token: str) -> bool:
    cur = c.execute(
        "DELETE FROM refresh_tokens WHERE token_hash = ? AND project_id = ?", (sha256_hex(token), project_id)
    )
    return cur.rowcount > 0


def revoke_user_refresh_tokens(
    c: sqlite3.Connection, project_id: str, user_id: str, *, keep: str | None = None
) -> None:
    sql = "DELETE FROM refresh_tokens WHERE project_id = ? AND user_id = ?"
    if keep is None:
        c.execute(sql, (project_id, user_id))
    else:
        c.execute(sql + " AND token_hash != ?", (project_id, user_id, sha256_hex(keep)))
