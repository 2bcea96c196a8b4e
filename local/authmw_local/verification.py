"""Verification codes with the common rules of service-api A5.3.

A code is 45 lower-case Crockford characters; its last 39 are the "nonce". Codes are stored
hashed. Every submission counts one attempt on every code of the project with the same nonce,
and that count survives a failing request.

    code = create_code(ctx.sql, project_id, "mfa_attempt", {"user_id": ...}, MFA_ATTEMPT_LIFETIME_MILLIS)
    found = find_code(ctx, "mfa_attempt", submitted)   # lookup errors; counts the attempt
    found.consume()                                     # marked used even if the action then fails
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .db import dump, load
from .endpoint import RequestContext
from .errors import CatalogueError
from .ids import now_millis, random_code, sha256_hex

CODE_LENGTH = 45
NONCE_LENGTH = 39
MAX_ATTEMPTS = 20

#: Lifetimes (service-api A7.5).
DEFAULT_LIFETIME_MILLIS = 7 * 24 * 3600 * 1000
MFA_ATTEMPT_LIFETIME_MILLIS = 5 * 60 * 1000
CHALLENGE_LIFETIME_MILLIS = 65 * 1000


def create_code(
    c: sqlite3.Connection,
    project_id: str,
    code_type: str,
    data: dict[str, Any],
    lifetime_millis: int = DEFAULT_LIFETIME_MILLIS,
    *,
    code: str | None = None,
) -> str:
    """Store a new code (a random one unless `code` is given) and return it."""
    code = code or random_code(CODE_LENGTH)
    now = now_millis()
    c.execute(
        "INSERT INTO verification_codes (code_hash, project_id, type, nonce, data, created_at_millis,"
        " expires_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (sha256_hex(code), project_id, code_type, code[-NONCE_LENGTH:], dump(data), now, now + lifetime_millis),
    )
    return code


@dataclass(frozen=True)
class FoundCode:
    ctx: RequestContext
    project_id: str
    code_hash: str
    data: dict[str, Any]

    def consume(self) -> None:
        def mark_used(c: sqlite3.Connection) -> None:
            c.execute(
                "UPDATE verification_codes SET used_at_millis = ?"
                " WHERE project_id = ? AND code_hash = ? AND used_at_millis IS NULL",
                (now_millis(), self.project_id, self.code_hash),
            )

        self.ctx.keep_on_error(mark_used)


def find_code(ctx: RequestContext, code_type: str, submitted: str, *, project_id: str | None = None) -> FoundCode:
    """Count the attempt, then check in the order not found, expired, used, too many attempts.

    The code belongs to the request's project unless `project_id` says otherwise (browser
    redirects such as the OAuth callback carry no project headers)."""
    project_id = project_id or ctx.project.id
    code = submitted.lower()
    nonce = code[-NONCE_LENGTH:]
    ctx.keep_on_error(
        lambda c: c.execute(
            "UPDATE verification_codes SET attempt_count = attempt_count + 1 WHERE project_id = ? AND nonce = ?",
            (project_id, nonce),
        )
    )
    row = ctx.sql.execute(
        "SELECT * FROM verification_codes WHERE code_hash = ? AND project_id = ? AND type = ?",
        (sha256_hex(code), project_id, code_type),
    ).fetchone()
    if row is None:
        raise CatalogueError("VERIFICATION_CODE_NOT_FOUND")
    if row["expires_at_millis"] <= now_millis():
        raise CatalogueError("VERIFICATION_CODE_EXPIRED")
    if row["used_at_millis"] is not None:
        raise CatalogueError("VERIFICATION_CODE_ALREADY_USED")
    if row["attempt_count"] > MAX_ATTEMPTS:
        raise CatalogueError("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED")
    return FoundCode(ctx, project_id, row["code_hash"], load(row["data"]))
