"""Creating and updating users with the semantics of contract 5.5 (shared by the user routes)."""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from .db import dump
from .errors import CatalogueError, PlainError
from .passwords import is_valid_bcrypt_hash
from .projects import Project
from .schema import Arr, Bool, Json, Obj, Str, Uuid
from .teams import create_team, is_member
from .tokens import revoke_user_refresh_tokens
from .users import add_contact_channel, create_user, email_used_for_auth, primary_email_channel

MAX_IMAGE_URL_LENGTH = 1_000_000
_CLIENT_IMAGE_RE = re.compile(r"^data:image/(png|jpg|jpeg|gif|bmp|webp);base64,(.*)$", re.DOTALL)


def _padded_base64(value: str) -> str | None:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return "is not valid base64"
    return None


def _image_url() -> Str:
    return Str(nullable=True, url=True, max_length=MAX_IMAGE_URL_LENGTH)


SERVER_FIELDS: dict[str, Any] = {
    "display_name": Str(nullable=True),
    "profile_image_url": _image_url(),
    "client_metadata": Json(),
    "client_read_only_metadata": Json(),
    "server_metadata": Json(),
    "primary_email": Str(nullable=True, email=True, min_length=1),
    "primary_email_verified": Bool(),
    "primary_email_auth_enabled": Bool(),
    "password": Str(nullable=True, max_length=70),
    "password_hash": Str(),
    "otp_auth_enabled": Bool(),
    "passkey_auth_enabled": Bool(),
    "totp_secret_base64": Str(nullable=True, test=_padded_base64),
}

SERVER_CREATE = Obj(
    {
        **SERVER_FIELDS,
        "oauth_providers": Arr(
            Obj({"id": Str(required=True), "account_id": Str(required=True), "email": Str(nullable=True)})
        ),
    },
    required=True,
)
SERVER_UPDATE = Obj({**SERVER_FIELDS, "selected_team_id": Uuid(nullable=True)}, required=True)
CLIENT_UPDATE = Obj(
    {
        "display_name": Str(nullable=True),
        "client_metadata": Json(),
        "selected_team_id": Uuid(nullable=True),
        "totp_secret_base64": Str(nullable=True, test=_padded_base64),
        "profile_image_url": Str(nullable=True, max_length=MAX_IMAGE_URL_LENGTH),
        "otp_auth_enabled": Bool(),
        "passkey_auth_enabled": Bool(),
    },
    required=True,
)


def check_client_image(value: str | None) -> None:
    """Client-tier writes take only base64 images (data URL or bare base64)."""
    if value is None:
        return
    match = _CLIENT_IMAGE_RE.match(value)
    payload = match.group(2) if match else value
    try:
        base64.b64decode(payload, validate=True)
        ok = bool(payload)
    except (binascii.Error, ValueError):
        ok = False
    if not ok:
        raise PlainError(400, "Invalid profile image URL")


def _password_hash_of(
    project: Project, fields: dict[str, Any], hasher: Callable[[str], str]
) -> tuple[bool, str | None]:
    """(changed, new hash) from `password` / `password_hash`; `hasher` hashes a new password."""
    if "password" in fields and "password_hash" in fields:
        raise PlainError(400, "Cannot set both password and password_hash at the same time.")
    if "password_hash" in fields:
        if not is_valid_bcrypt_hash(fields["password_hash"]):
            raise PlainError(400, "Invalid password hash. Make sure it's a bcrypt hash in Modular Crypt Format.")
        return True, fields["password_hash"]
    if "password" in fields:
        if fields["password"] is not None and not project.config["credential_enabled"]:
            raise PlainError(400, "Password auth not enabled in the project")
        return True, None if fields["password"] is None else hasher(fields["password"])
    return False, None


def _check_oauth_accounts_free(c: sqlite3.Connection, project_id: str, providers: list[dict[str, Any]]) -> None:
    # The service leaves this undocumented field's conflicts to a database error; a known
    # error says what is wrong instead of a 500.
    seen: set[tuple[str, str]] = set()
    for provider in providers:
        key = (provider["id"], provider["account_id"])
        taken = c.execute(
            "SELECT 1 FROM oauth_accounts WHERE project_id = ? AND provider_id = ? AND account_id = ?",
            (project_id, *key),
        ).fetchone()
        if taken is not None or key in seen:
            raise CatalogueError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER")
        seen.add(key)


def server_create_user(
    c: sqlite3.Connection, project: Project, fields: dict[str, Any], hasher: Callable[[str], str]
) -> str:
    email = fields.get("primary_email")
    if email is None and ("primary_email_verified" in fields or "primary_email_auth_enabled" in fields):
        raise PlainError(400, "primary_email_verified and primary_email_auth_enabled need primary_email")
    if email is not None and fields.get("primary_email_auth_enabled") and email_used_for_auth(c, project.id, email):
        raise CatalogueError("USER_EMAIL_ALREADY_EXISTS")
    if fields.get("otp_auth_enabled") and not project.config["magic_link_enabled"]:
        raise PlainError(400, "OTP auth not enabled in the project")
    _check_oauth_accounts_free(c, project.id, fields.get("oauth_providers", []))
    _, password_hash = _password_hash_of(project, fields, hasher)
    user_id = create_user(
        c,
        project.id,
        display_name=fields.get("display_name"),
        profile_image_url=fields.get("profile_image_url"),
        client_metadata=fields.get("client_metadata"),
        client_read_only_metadata=fields.get("client_read_only_metadata"),
        server_metadata=fields.get("server_metadata"),
        password_hash=password_hash,
        otp_auth_enabled=bool(fields.get("otp_auth_enabled")),
        totp_secret_base64=fields.get("totp_secret_base64"),
        primary_email=email,
        primary_email_verified=bool(fields.get("primary_email_verified")),
        primary_email_auth_enabled=bool(fields.get("primary_email_auth_enabled")),
    )
    for provider in fields.get("oauth_providers", []):
        c.execute(
            "INSERT INTO oauth_accounts (project_id, provider_id, account_id, user_id, email, created_at_millis)"
            " SELECT ?, ?, ?, ?, ?, signed_up_at_millis FROM users WHERE project_id = ? AND id = ?",
            (project.id, provider["id"], provider["account_id"], user_id, provider.get("email"), project.id, user_id),
        )
    if project.config["create_team_on_sign_up"]:
        name = (
            f"{fields['display_name']}'s Team"
            if fields.get("display_name")
            else f"{email}'s Team"
            if email
            else "Personal Team"
        )
        create_team(c, project, name, creator_user_id=user_id)
    return user_id


def update_user(
    c: sqlite3.Connection,
    project: Project,
    user: sqlite3.Row,
    fields: dict[str, Any],
    hasher: Callable[[str], str],
) -> None:
    user_id = user["id"]
    columns: dict[str, Any] = {}
    if "display_name" in fields:
        columns["display_name"] = fields["display_name"] or None
    if "profile_image_url" in fields:
        columns["profile_image_url"] = fields["profile_image_url"]
    for name in ("client_metadata", "client_read_only_metadata", "server_metadata"):
        if name in fields:
            columns[name] = dump(fields[name])

    changed, password_hash = _password_hash_of(project, fields, hasher)
    if changed:
        columns["password_hash"] = password_hash
        revoke_user_refresh_tokens(c, project.id, user_id)

    if fields.get("otp_auth_enabled") is True and not project.config["magic_link_enabled"]:
        raise PlainError(400, "OTP auth not enabled in the project")
    if "otp_auth_enabled" in fields:
        columns["otp_auth_enabled"] = int(fields["otp_auth_enabled"])
    if fields.get("passkey_auth_enabled") is True:
        raise PlainError(400, "Cannot manually enable passkey auth, it is enabled iff there is a passkey auth method")
    if fields.get("passkey_auth_enabled") is False:
        _delete_passkeys(c, project.id, user_id)
    if "totp_secret_base64" in fields:
        columns["totp_secret_base64"] = fields["totp_secret_base64"]
        columns["requires_totp_mfa"] = int(fields["totp_secret_base64"] is not None)
    if "selected_team_id" in fields:
        team_id = fields["selected_team_id"]
        if team_id is not None and not is_member(c, project.id, team_id, user_id):
            raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=team_id, user_id=user_id)
        columns["selected_team_id"] = team_id

    _update_primary_email(c, project, user_id, fields)
    if columns:
        assignments = ", ".join(f"{name} = ?" for name in columns)
        c.execute(
            f"UPDATE users SET {assignments} WHERE project_id = ? AND id = ?", (*columns.values(), project.id, user_id)
        )


def _update_primary_email(c: sqlite3.Connection, project: Project, user_id: str, fields: dict[str, Any]) -> None:
    channel = primary_email_channel(c, project.id, user_id)
    if "primary_email" in fields:
        email = fields["primary_email"]
        if email is None:
            if channel is not None:
                c.execute("DELETE FROM contact_channels WHERE project_id = ? AND id = ?", (project.id, channel["id"]))
            channel = None
        else:
            auth = bool(fields.get("primary_email_auth_enabled")) or bool(channel and channel["used_for_auth"])
            if auth and email_used_for_auth(c, project.id, email, except_user=user_id):
                raise CatalogueError("USER_EMAIL_ALREADY_EXISTS")
            if channel is not None:
                c.execute(
                    "UPDATE contact_channels SET value = ?, used_for_auth = ? WHERE project_id = ? AND id = ?",
                    (email, int(auth), project.id, channel["id"]),
                )
            else:
                add_contact_channel(
                    c, project.id, user_id, email, is_primary=True, is_verified=False, used_for_auth=auth
                )
            channel = primary_email_channel(c, project.id, user_id)
    if "primary_email_verified" in fields:
        if channel is None:
            raise PlainError(400, "primary_email_verified needs a primary e-mail")
        c.execute(
            "UPDATE contact_channels SET is_verified = ? WHERE project_id = ? AND id = ?",
            (int(fields["primary_email_verified"]), project.id, channel["id"]),
        )


def _delete_passkeys(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    if c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkeys'").fetchone():
        c.execute("DELETE FROM passkeys WHERE project_id = ? AND user_id = ?", (project_id, user_id))
