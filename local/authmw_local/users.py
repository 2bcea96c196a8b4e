"""User rows, their contact channels, and the client / server views (service-api A5.2)."""

from __future__ import annotations

import sqlite3
from typing import Any

from . import end_user, webhooks
from .api_version import current_api
from .db import dump, load
from .errors import CatalogueError
from .ids import new_uuid, now_millis
from .projects import get_project
from .teams import get_team, team_view

#: `restricted_reason.type` values (service-api B4.1).
ANONYMOUS_REASON = "anonymous"
EMAIL_NOT_VERIFIED = "email_not_verified"
BY_ADMINISTRATOR = "restricted_by_administrator"


def normalise_email(value: str) -> str:
    """E-mails as the version stores them: 2.8 trims and lower-cases them (service-api B5.4)."""
    return value.strip().lower() if current_api().normalise_emails else value


def get_user(c: sqlite3.Connection, project_id: str, user_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = c.execute(
        "SELECT * FROM users WHERE id = ? AND project_id = ?", (user_id, project_id)
    ).fetchone()
    return row


def primary_email_channel(c: sqlite3.Connection, project_id: str, user_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = c.execute(
        "SELECT * FROM contact_channels WHERE project_id = ? AND user_id = ? AND type = 'email' AND is_primary = 1",
        (project_id, user_id),
    ).fetchone()
    return row


def find_user_by_auth_email(c: sqlite3.Connection, project_id: str, email: str) -> sqlite3.Row | None:
    """The user signing in with `email`: the value as given, then (2.8) its normalised form."""
    for value in dict.fromkeys((email, normalise_email(email))):
        row: sqlite3.Row | None = c.execute(
            "SELECT u.* FROM users u JOIN contact_channels cc ON cc.user_id = u.id"
            " WHERE cc.project_id = ? AND cc.type = 'email' AND cc.value = ? AND cc.used_for_auth = 1",
            (project_id, value),
        ).fetchone()
        if row is not None:
            return row
    return None


def email_used_for_auth(c: sqlite3.Connection, project_id: str, email: str, *, except_user: str | None = None) -> bool:
    """Is `email` (as given or, 2.8, normalised) some other user's sign-in e-mail?"""
    rows = c.execute(
        "SELECT user_id FROM contact_channels WHERE project_id = ? AND type = 'email' AND value IN (?, ?)"
        " AND used_for_auth = 1",
        (project_id, email, normalise_email(email)),
    ).fetchall()
    return any(row["user_id"] != except_user for row in rows)


def used_for_auth_by_someone_else(value: str | None, *, would_work_if_verified: bool = False) -> CatalogueError:
    """CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE for an e-mail address. 2.8 adds the
    address (`value`; None where 2.8.86 leaves it out, as its contact-channel update does) and
    whether verifying the existing address would let the OAuth merge through, to the details
    and the message; 2.7 has neither (errors.py drops them)."""
    return CatalogueError(
        "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
        type="email",
        contact_channel_value=value,
        would_work_if_email_was_verified=would_work_if_verified,
        quoted_value=f'"({value})"' if value else "",
        unverified_suffix=(
            " but the email is not verified. Please login to your existing account with the method you used to"
            " sign up, and then verify your email to sign in with this login method."
            if would_work_if_verified
            else "."
        ),
    )


def create_user(
    c: sqlite3.Connection,
    project_id: str,
    *,
    display_name: str | None = None,
    profile_image_url: str | None = None,
    client_metadata: Any = None,
    client_read_only_metadata: Any = None,
    server_metadata: Any = None,
    password_hash: str | None = None,
    otp_auth_enabled: bool = False,
    totp_secret_base64: str | None = None,
    primary_email: str | None = None,
    primary_email_verified: bool = False,
    primary_email_auth_enabled: bool = False,
    is_anonymous: bool = False,
    country_code: str | None = None,
) -> str:
    """A new user. 2.8: the e-mail is stored normalised and, unless given, `country_code` comes
    from the request's geo headers (best effort, service-api B4.1)."""
    user_id = new_uuid()
    now = now_millis()
    if primary_email is not None:
        primary_email = normalise_email(primary_email)
    if country_code is None and current_api().anonymous_users:
        info = end_user.current()
        country_code = info.end_user.country_code if info and info.end_user else None
    c.execute(
        "INSERT INTO users (id, project_id, display_name, profile_image_url, client_metadata,"
        " client_read_only_metadata, server_metadata, password_hash, otp_auth_enabled, totp_secret_base64,"
        " signed_up_at_millis, last_active_at_millis, is_anonymous, country_code)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            user_id,
            project_id,
            display_name or None,
            profile_image_url,
            dump(client_metadata),
            dump(client_read_only_metadata),
            dump(server_metadata),
            password_hash,
            int(otp_auth_enabled),
            totp_secret_base64,
            now,
            now,
            int(is_anonymous),
            country_code,
        ),
    )
    if primary_email is not None:
        add_contact_channel(
            c,
            project_id,
            user_id,
            primary_email,
            is_primary=True,
            is_verified=primary_email_verified,
            used_for_auth=primary_email_auth_enabled,
        )
    _grant_default_permissions(c, project_id, user_id)
    webhooks.user_created(c, project_id, user_id)
    return user_id


def _grant_default_permissions(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    """2.8: the project's `user_default_permissions` (no webhook for these, service-api B9.2)."""
    row = c.execute("SELECT config FROM projects WHERE id = ?", (project_id,)).fetchone()
    refs = (load(row["config"]) or {}).get("user_default_permissions", []) if row is not None else []
    for ref in refs:
        c.execute(
            "INSERT OR IGNORE INTO project_user_permissions (project_id, user_id, permission_id) VALUES (?, ?, ?)",
            (project_id, user_id, ref["id"]),
        )


def add_contact_channel(
    c: sqlite3.Connection,
    project_id: str,
    user_id: str,
    value: str,
    *,
    is_primary: bool,
    is_verified: bool,
    used_for_auth: bool,
) -> str:
    channel_id = new_uuid()
    value = normalise_email(value)
    if is_primary:
        c.execute(
            "UPDATE contact_channels SET is_primary = 0 WHERE project_id = ? AND user_id = ?", (project_id, user_id)
        )
    c.execute(
        "INSERT INTO contact_channels (id, project_id, user_id, type, value, is_primary, is_verified,"
        " used_for_auth, created_at_millis) VALUES (?, ?, ?, 'email', ?, ?, ?, ?, ?)",
        (channel_id, project_id, user_id, value, int(is_primary), int(is_verified), int(used_for_auth), now_millis()),
    )
    return channel_id


def touch_last_active(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    c.execute(
        "UPDATE users SET last_active_at_millis = ? WHERE project_id = ? AND id = ?",
        (now_millis(), project_id, user_id),
    )


def delete_user(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    # Memberships, channels, OAuth accounts and refresh tokens go by ON DELETE CASCADE.
    webhooks.user_deleted(c, project_id, user_id)
    c.execute("DELETE FROM users WHERE project_id = ? AND id = ?", (project_id, user_id))


def user_view(c: sqlite3.Connection, row: sqlite3.Row, tier: str) -> dict[str, Any]:
    """The client view for tier "client", the server view otherwise."""
    channel = primary_email_channel(c, row["project_id"], row["id"])
    has_password = row["password_hash"] is not None
    otp_enabled = bool(row["otp_auth_enabled"])
    passkey_enabled = _has_passkey(c, row["project_id"], row["id"])
    providers = [
        {"id": r["provider_id"], "account_id": r["account_id"], "email": r["email"]}
        for r in c.execute(
            "SELECT provider_id, account_id, email FROM oauth_accounts WHERE project_id = ? AND user_id = ?"
            " ORDER BY created_at_millis, provider_id",
            (row["project_id"], row["id"]),
        )
    ]
    selected_team = None
    if row["selected_team_id"] is not None:
        team = get_team(c, row["project_id"], row["selected_team_id"])
        selected_team = None if team is None else team_view(team, tier)
    view: dict[str, Any] = {
        "id": row["id"],
        "display_name": row["display_name"],
        "primary_email": channel["value"] if channel else None,
        "primary_email_verified": bool(channel and channel["is_verified"]),
        "profile_image_url": row["profile_image_url"],
        "signed_up_at_millis": row["signed_up_at_millis"],
        "client_metadata": load(row["client_metadata"]),
        "client_read_only_metadata": load(row["client_read_only_metadata"]),
        "has_password": has_password,
        "otp_auth_enabled": otp_enabled,
        "passkey_auth_enabled": passkey_enabled,
        "auth_with_email": has_password or otp_enabled,
        "requires_totp_mfa": bool(row["requires_totp_mfa"]),
        "oauth_providers": providers,
        "selected_team_id": selected_team["id"] if selected_team else None,
        "selected_team": selected_team,
    }
    anonymous_users = current_api().anonymous_users
    if anonymous_users:
        reason = restricted_reason(c, row, channel)
        view["is_anonymous"] = bool(row["is_anonymous"])
        view["is_restricted"] = reason is not None
        view["restricted_reason"] = None if reason is None else {"type": reason}
        view["restricted_by_admin"] = bool(row["restricted_by_admin"])
        view["restricted_by_admin_reason"] = row["restricted_by_admin_reason"]
    if tier != "client":
        view["primary_email_auth_enabled"] = bool(channel and channel["used_for_auth"])
        view["server_metadata"] = load(row["server_metadata"])
        view["last_active_at_millis"] = row["last_active_at_millis"]
        if anonymous_users:
            view["country_code"] = row["country_code"]
            view["restricted_by_admin_private_details"] = row["restricted_by_admin_private_details"]
            view["risk_scores"] = {
                "sign_up": {"bot": row["risk_score_bot"], "free_trial_abuse": row["risk_score_free_trial_abuse"]}
            }
    return view


def restricted_reason(c: sqlite3.Connection, row: sqlite3.Row, channel: sqlite3.Row | None = None) -> str | None:
    """Why a user is restricted, first match wins (service-api B4.1): anonymous; the project
    requires a verified e-mail and the primary one is not (or there is none); an administrator
    restricted the user. None for a normal user."""
    if row["is_anonymous"]:
        return ANONYMOUS_REASON
    project = get_project(c, row["project_id"])
    if project is not None and project.config.get("require_email_verification"):
        if channel is None:
            channel = primary_email_channel(c, row["project_id"], row["id"])
        if channel is None or not channel["is_verified"]:
            return EMAIL_NOT_VERIFIED
    if row["restricted_by_admin"]:
        return BY_ADMINISTRATOR
    return None


def _has_passkey(c: sqlite3.Connection, project_id: str, user_id: str) -> bool:
    # The passkey table arrives with the passkey routes; until then nobody has one.
    exists = c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkeys'").fetchone()
    if not exists:
        return False
    row = c.execute("SELECT 1 FROM passkeys WHERE project_id = ? AND user_id = ?", (project_id, user_id)).fetchone()
    return row is not None


def _server_user(c: sqlite3.Connection, project_id: str, user_id: str) -> dict[str, Any] | None:
    row = get_user(c, project_id, user_id)
    return None if row is None else user_view(c, row, "server")


webhooks.SUBJECT_VIEWS["user"] = _server_user
