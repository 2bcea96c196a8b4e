"""CLI sign-in (API 2.8): an app's own command-line tool signs its user in through the browser.

1. The tool asks `POST /auth/cli` for a polling code (kept by the tool) and a login code (put in
   the link it shows: the app's `{handler}/cli-auth-confirm?login_code=...` page).
2. In the browser, the signed-in user confirms; the page sends `POST /auth/cli/complete` with
   the login code and the browser session's refresh token (`mode: "check"` first tells the page
   whether the tool brought an anonymous session of its own; `claim-anon-session` hands that
   session to the browser once, so the browser can upgrade the anonymous user in place).
3. The tool polls `POST /auth/cli/poll` with the polling code: `waiting`, then once `success`
   (201) with the refresh token, then `used`; `expired` after the attempt's lifetime.

An attempt is two rows of `verification_codes` (stored hashed like every code): the polling
code's (`cli_auth`, holding the state) and the login code's (`cli_auth_login`, pointing at it).
The refresh token waits in the attempt's data between `complete` and the successful poll only.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any

from ..api_version import ApiVersion
from ..db import dump, load
from ..endpoint import ANY, EndpointGroup, RequestContext, also_at_latest
from ..errors import CatalogueError, PlainError
from ..ids import now_millis, sha256_hex
from ..responses import Created
from ..schema import Num, Obj, Str
from ..tokens import RefreshSession
from ..users import get_user
from ..verification import create_code

group = EndpointGroup()

ATTEMPT, LOGIN = "cli_auth", "cli_auth_login"
DEFAULT_LIFETIME_MILLIS = 2 * 3600 * 1000
MAX_LIFETIME_MILLIS = 24 * 3600 * 1000
INVALID_LOGIN_CODE = "Invalid login code or the code has expired"
NO_ANONYMOUS_SESSION = "No anonymous session associated with this code"


def _has_cli_auth(api: ApiVersion) -> bool:
    return api.anonymous_users  # came with the 2.8 line (after 2.7.16)


def _refresh_row(c: sqlite3.Connection, token: str) -> sqlite3.Row | None:
    """The refresh token's session in any project (so that another project's token is told apart)."""
    row: sqlite3.Row | None = c.execute(
        "SELECT id, project_id, user_id, expires_at_millis FROM refresh_tokens WHERE token_hash = ?",
        (sha256_hex(token),),
    ).fetchone()
    return row


def _anonymous_session(ctx: RequestContext, token: str | None) -> RefreshSession | None:
    """The live session of an anonymous user of this project that `token` refreshes, else None."""
    if token is None:
        return None
    row = _refresh_row(ctx.sql, token)
    if row is None or row["project_id"] != ctx.project.id or row["expires_at_millis"] <= now_millis():
        return None
    user = get_user(ctx.sql, ctx.project.id, row["user_id"])
    if user is None or not user["is_anonymous"]:
        return None
    return RefreshSession(id=row["id"], user_id=row["user_id"])


@group.post(
    "/auth/cli",
    tiers=ANY,
    body=Obj({"expires_in_millis": Num(max_value=MAX_LIFETIME_MILLIS), "anon_refresh_token": Str()}),
    when=_has_cli_auth,
)
def start(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body or {}
    lifetime = int(body.get("expires_in_millis", DEFAULT_LIFETIME_MILLIS))
    anonymous = body.get("anon_refresh_token") or None
    if anonymous is not None:
        row = _refresh_row(ctx.sql, anonymous)
        if row is None:
            raise PlainError(400, "Invalid anon refresh token")
        if row["project_id"] != ctx.project.id:
            raise PlainError(400, "Anon refresh token does not belong to this project")
        if row["expires_at_millis"] <= now_millis():
            raise PlainError(400, "The provided anon refresh token has expired")
        user = get_user(ctx.sql, ctx.project.id, row["user_id"])
        if user is None:
            raise PlainError(400, "User not found for provided refresh token")
        if not user["is_anonymous"]:
            raise PlainError(400, "The provided refresh token does not belong to an anonymous user")
    state = {"anon_refresh_token": anonymous, "refresh_token": None}
    polling_code = create_code(ctx.sql, ctx.project.id, ATTEMPT, state, lifetime)
    login_code = create_code(ctx.sql, ctx.project.id, LOGIN, {"attempt": sha256_hex(polling_code)}, lifetime)
    expires_at = now_millis() + lifetime
    return {"polling_code": polling_code, "login_code": login_code, "expires_at": _iso(expires_at)}


def _iso(millis: int) -> str:
    moment = dt.datetime.fromtimestamp(millis / 1000, tz=dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _attempt(ctx: RequestContext, code_hash: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM verification_codes WHERE code_hash = ? AND project_id = ? AND type = ?",
        (code_hash, ctx.project.id, ATTEMPT),
    ).fetchone()
    return row


def _save(ctx: RequestContext, attempt: sqlite3.Row, state: dict[str, Any], *, used: bool = False) -> None:
    ctx.sql.execute(
        "UPDATE verification_codes SET data = ?, used_at_millis = ? WHERE code_hash = ? AND project_id = ?",
        (dump(state), now_millis() if used else None, attempt["code_hash"], ctx.project.id),
    )


@group.post(
    "/auth/cli/poll", tiers=ANY, body=Obj({"polling_code": Str(required=True)}, required=True), when=_has_cli_auth
)
def poll(ctx: RequestContext) -> Any:
    attempt = _attempt(ctx, sha256_hex(ctx.body["polling_code"]))
    if attempt is None:
        raise CatalogueError("INVALID_POLLING_CODE")
    state = load(attempt["data"])
    if attempt["expires_at_millis"] <= now_millis():
        return {"status": "expired"}
    if attempt["used_at_millis"] is not None:
        return {"status": "used"}
    if state.get("refresh_token") is None:
        return {"status": "waiting"}
    token = state["refresh_token"]
    _save(ctx, attempt, {**state, "refresh_token": None}, used=True)  # handed over once, then forgotten
    return Created({"status": "success", "refresh_token": token})


@group.post(
    "/auth/cli/complete",
    tiers=ANY,
    body=Obj(
        {
            "login_code": Str(required=True),
            "mode": Str(one_of=("check", "claim-anon-session", "complete")),
            "refresh_token": Str(),
        },
        required=True,
    ),
    when=_has_cli_auth,
)
def complete(ctx: RequestContext) -> dict[str, Any]:
    login = ctx.sql.execute(
        "SELECT data FROM verification_codes WHERE code_hash = ? AND project_id = ? AND type = ?",
        (sha256_hex(ctx.body["login_code"]), ctx.project.id, LOGIN),
    ).fetchone()
    attempt = _attempt(ctx, load(login["data"])["attempt"]) if login is not None else None
    if attempt is None or attempt["expires_at_millis"] <= now_millis() or attempt["used_at_millis"] is not None:
        raise PlainError(400, INVALID_LOGIN_CODE)
    state = load(attempt["data"])
    if state.get("refresh_token") is not None:
        raise PlainError(400, INVALID_LOGIN_CODE)
    mode = ctx.body.get("mode", "complete")
    anonymous = _anonymous_session(ctx, state.get("anon_refresh_token"))
    if mode == "check":
        return {"cli_session_state": "anonymous" if anonymous else "none"}
    if mode == "claim-anon-session":
        if anonymous is None:
            raise PlainError(400, NO_ANONYMOUS_SESSION)
        token = state["anon_refresh_token"]
        _save(ctx, attempt, {**state, "anon_refresh_token": None})  # one claim only
        return {"access_token": ctx.service.access_token(ctx.sql, ctx.project.id, anonymous), "refresh_token": token}
    refresh_token = ctx.body.get("refresh_token")
    if not refresh_token:
        raise PlainError(400, "refresh_token is required when mode is 'complete'")
    row = _refresh_row(ctx.sql, refresh_token)
    if row is not None and row["project_id"] != ctx.project.id:
        raise PlainError(400, "Refresh token does not belong to this project")
    if row is None or row["expires_at_millis"] <= now_millis():
        raise PlainError(400, "Invalid refresh token")
    # The tool's anonymous session, if any, is left as it is: never merged into this user.
    _save(ctx, attempt, {"anon_refresh_token": None, "refresh_token": refresh_token})
    return {"success": True}


routes = also_at_latest(group.routes)
