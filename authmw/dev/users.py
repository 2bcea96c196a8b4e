"""User rows, their contact channels, and the client / server views (contract 5.2)."""

from __future__ import annotations

import sqlite3
from typing import Any

from .db import dump, load
from .ids import new_uuid, now_millis
from .teams import get_team, team_view


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
    row: sqlite3.Row | None = c.execute(
        "SELECT u.* FROM users u JOIN contact_channels cc ON cc.user_id = u.id"
        " WHERE cc.project_id = ? AND cc.type = 'email' AND cc.value = ? AND cc.used_for_auth = 1",
        (project_id, email),
    ).fetchone()
    return row


def email_used_for_auth(c: sqlite3.Connection, project_id: str, email: str, *, except_user: str | None = None) -> bool:
    row = c.execute(
        "SELECT user_id FROM contact_channels WHERE project_id = ? AND type = 'email' AND value = ?"
        " AND used_for_auth = 1",
        (project_id, email),
    ).fetchone()
    return row is not None and row["user_id"] != except_user


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
) -> str:
    user_id = new_uuid()
    now = now_millis()
    c.execute(
        "INSERT INTO users (id, project_id, display_name, profile_image_url, client_metadata,"
        " client_read_only_metadata, server_metadata, password_hash, otp_auth_enabled, totp_secret_base64,"
        " signed_up_at_millis, last_active_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    return user_id


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
    if tier != "client":
        view["primary_email_auth_enabled"] = bool(channel and channel["used_for_auth"])
        view["server_metadata"] = load(row["server_metadata"])
        view["last_active_at_millis"] = row["last_active_at_millis"]
    return view


def _has_passkey(c: sqlite3.Connection, project_id: str, user_id: str) -> bool:
    # The passkey table arrives with the passkey routes; until then nobody has one.
    exists = c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkeys'").fetchone()
    if not exists:
        return False
    row = c.execute("SELECT 1 FROM passkeys WHERE project_id = ? AND user_id = ?", (project_id, user_id)).fetchone()
    return row is not None
