"""Creating and updating users with the semantics of service-api A5.5 (shared by the user routes)."""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from . import webhooks
from .api_version import ApiVersion, current_api
from .db import dump
from .errors import CatalogueError, PlainError, email_taken
from .ids import new_uuid, now_millis
from .oauth_flow import sign_in_link
from .passwords import is_valid_bcrypt_hash
from .projects import Project
from .schema import Arr, Bool, Json, Num, Obj, Str, Unprefixed, Uuid
from .teams import create_team, is_member
from .tokens import revoke_user_refresh_tokens
from .users import add_contact_channel, create_user, email_used_for_auth, normalise_email, primary_email_channel

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


def _country_code(value: str) -> str | None:
    return None if re.fullmatch(r"[A-Za-z]{2}", value.strip()) else "must be a two-letter country code"


def _risk_score() -> Num:
    return Num(required=True, integer=True, min_value=0, max_value=100)


#: Server-tier fields 2.8 adds (service-api B5.2 and B5.3).
SERVER_FIELDS_28: dict[str, Any] = {
    "restricted_by_admin": Bool(),
    "restricted_by_admin_reason": Str(nullable=True),
    "restricted_by_admin_private_details": Str(nullable=True),
    "country_code": Str(nullable=True, test=_country_code),
    "risk_scores": Obj({"sign_up": Obj({"bot": _risk_score(), "free_trial_abuse": _risk_score()}, required=True)}),
}
OAUTH_PROVIDERS = Arr(Obj({"id": Str(required=True), "account_id": Str(required=True), "email": Str(nullable=True)}))



def _restriction_consistent(body: dict[str, Any]) -> Unprefixed | None:
    """2.8, an update: a reason or private details only come with `restricted_by_admin: true` in
    the same body (a schema check of the backend's update schema; its create schema lacks it,
    and creation answers the plain 400 of `_restriction_columns` instead)."""
    if body.get("restricted_by_admin") is not True:
        for name in ("restricted_by_admin_reason", "restricted_by_admin_private_details"):
            if body.get(name) is not None:
                # (the backend's own message for its schema test, which yup prints as written)
                return Unprefixed(f"{name} must be null when restricted_by_admin is not true")
    return None


SERVER_CREATE_27 = Obj({**SERVER_FIELDS, "oauth_providers": OAUTH_PROVIDERS}, required=True)
SERVER_CREATE = Obj(
    {**SERVER_FIELDS, "oauth_providers": OAUTH_PROVIDERS, **SERVER_FIELDS_28, "is_anonymous": Bool()}, required=True
)
SERVER_UPDATE_27 = Obj({**SERVER_FIELDS, "selected_team_id": Uuid(nullable=True)}, required=True)
SERVER_UPDATE = Obj(
    {**SERVER_FIELDS, "selected_team_id": Uuid(nullable=True), **SERVER_FIELDS_28, "is_anonymous": Bool(only=False)},
    required=True,
    test=_restriction_consistent,
)
CLIENT_FIELDS: dict[str, Any] = {
    "display_name": Str(nullable=True),
    "client_metadata": Json(),
    "selected_team_id": Uuid(nullable=True),
    "totp_secret_base64": Str(nullable=True, test=_padded_base64),
    "profile_image_url": Str(nullable=True, max_length=MAX_IMAGE_URL_LENGTH),
    "otp_auth_enabled": Bool(),
    "passkey_auth_enabled": Bool(),
}
CLIENT_UPDATE_27 = Obj(CLIENT_FIELDS, required=True)
#: 2.8 lets a user change their own primary e-mail (service-api B5.3).
CLIENT_UPDATE_28 = Obj({**CLIENT_FIELDS, "primary_email": Str(nullable=True, email=True, min_length=1)}, required=True)


def server_update_spec(api: ApiVersion) -> Obj:
    return SERVER_UPDATE if api.anonymous_users else SERVER_UPDATE_27


def client_update_spec(api: ApiVersion) -> Obj:
    return CLIENT_UPDATE_28 if api.anonymous_users else CLIENT_UPDATE_27


def _restriction_columns(fields: dict[str, Any]) -> dict[str, Any]:
    """The restriction, country and risk-score columns a 2.8 body sets (service-api B5.2-B5.3)."""
    columns: dict[str, Any] = {}
    restricted = fields.get("restricted_by_admin")
    for name in ("restricted_by_admin_reason", "restricted_by_admin_private_details"):
        value = fields.get(name) or None  # empty strings are stored as null
        if value is not None and restricted is not True:
            raise PlainError(400, f"{name} requires restricted_by_admin=true")
        if name in fields:
            columns[name] = value
    if restricted is not None:
        columns["restricted_by_admin"] = int(restricted)
        if not restricted:
            columns["restricted_by_admin_reason"] = None
            columns["restricted_by_admin_private_details"] = None
    if "country_code" in fields:
        code = fields["country_code"]
        columns["country_code"] = None if code is None else code.strip().upper()
    if "risk_scores" in fields:
        scores = fields["risk_scores"]["sign_up"]
        columns["risk_score_bot"] = int(scores["bot"])
        columns["risk_score_free_trial_abuse"] = int(scores["free_trial_abuse"])
    return columns


def personal_team_name(display_name: str | None, email: str | None) -> str:
    """`<display name>'s Team`, else `<e-mail>'s Team`, else `Personal Team` (5.2)."""
    if display_name:
        return f"{display_name}'s Team"
    return f"{email}'s Team" if email else "Personal Team"


def create_personal_team(c: sqlite3.Connection, project: Project, user_id: str, name: str) -> str:
    """The team `create_team_on_sign_up` makes; 2.8 also selects it (service-api B5.2)."""
    team_id = create_team(c, project, name, creator_user_id=user_id)
    if current_api().selects_personal_team:
        c.execute(
            "UPDATE users SET selected_team_id = ? WHERE project_id = ? AND id = ?", (team_id, project.id, user_id)
        )
    return team_id


def upgrade_anonymous_user(
    c: sqlite3.Connection, project: Project, user_id: str, email: str | None = None, *, email_verified: bool = False
) -> None:
    """An anonymous user becomes a real one (service-api B7.3): signed up now (with `email` as
    its primary sign-in address, when given), and teams still called `Personal Team` named
    after the user."""
    if email is not None:
        add_contact_channel(
            c, project.id, user_id, email, is_primary=True, is_verified=email_verified, used_for_auth=True
        )
    c.execute(
        "UPDATE users SET is_anonymous = 0, signed_up_at_millis = ? WHERE project_id = ? AND id = ?",
        (now_millis(), project.id, user_id),
    )
    user = c.execute("SELECT display_name FROM users WHERE project_id = ? AND id = ?", (project.id, user_id)).fetchone()
    channel = primary_email_channel(c, project.id, user_id)
    name = personal_team_name(user["display_name"], channel["value"] if channel else None)
    c.execute(
        "UPDATE teams SET display_name = ? WHERE project_id = ? AND display_name = 'Personal Team'"
        " AND id IN (SELECT team_id FROM team_members WHERE project_id = ? AND user_id = ?)",
        (name, project.id, project.id, user_id),
    )
    webhooks.user_updated(c, project.id, user_id)


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
            raise PlainError(
                400, "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format."
            )
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
        taken = sign_in_link(c, project_id, *key)
        if taken is not None or key in seen:
            raise CatalogueError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER")
        seen.add(key)


def server_create_user(
    c: sqlite3.Connection, project: Project, fields: dict[str, Any], hasher: Callable[[str], str]
) -> str:
    email = fields.get("primary_email")
    for flag in ("primary_email_auth_enabled", "primary_email_verified"):  # the service's order and words
        if email is None and fields.get(flag):
            raise PlainError(400, f"{flag} cannot be true without primary_email")
    if email is not None and fields.get("primary_email_auth_enabled") and email_used_for_auth(c, project.id, email):
        raise email_taken(normalise_email(email))
    if fields.get("otp_auth_enabled") and not project.config["magic_link_enabled"]:
        raise PlainError(400, "OTP auth not enabled in the project")
    _check_oauth_accounts_free(c, project.id, fields.get("oauth_providers", []))
    _, password_hash = _password_hash_of(project, fields, hasher)
    restriction = _restriction_columns(fields)
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
        is_anonymous=bool(fields.get("is_anonymous")),
        country_code=restriction.pop("country_code", None),
    )
    _set_columns(c, project.id, user_id, restriction)
    for provider in fields.get("oauth_providers", []):
        c.execute(
            "INSERT INTO oauth_accounts (id, project_id, provider_id, account_id, user_id, email, created_at_millis)"
            " SELECT ?, ?, ?, ?, ?, ?, signed_up_at_millis FROM users WHERE project_id = ? AND id = ?",
            (
                new_uuid(),
                project.id,
                provider["id"],
                provider["account_id"],
                user_id,
                provider.get("email"),
                project.id,
                user_id,
            ),
        )
    if project.config["create_team_on_sign_up"]:
        name = personal_team_name(fields.get("display_name"), email)
        create_personal_team(c, project, user_id, name)
    return user_id


def _set_columns(c: sqlite3.Connection, project_id: str, user_id: str, columns: dict[str, Any]) -> None:
    if columns:
        assignments = ", ".join(f"{name} = ?" for name in columns)
        c.execute(
            f"UPDATE users SET {assignments} WHERE project_id = ? AND id = ?", (*columns.values(), project_id, user_id)
        )


def update_user(
    c: sqlite3.Connection,
    project: Project,
    user: sqlite3.Row,
    fields: dict[str, Any],
    hasher: Callable[[str], str],
) -> None:
    user_id = user["id"]
    _check_flags_have_an_email(c, project, user_id, fields)
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
        # A new secret starts a new code sequence: the step spent with the old one says nothing
        # about it (else a re-enrolled user's first code in the same 30 s would be refused).
        columns["totp_last_used_step"] = None
    if "selected_team_id" in fields:
        team_id = fields["selected_team_id"]
        if team_id is not None and not is_member(c, project.id, team_id, user_id):
            raise CatalogueError("TEAM_MEMBERSHIP_NOT_FOUND", team_id=team_id, user_id=user_id)
        columns["selected_team_id"] = team_id

    columns.update(_restriction_columns(fields))
    if current_api().keeps_old_primary_email:
        _update_primary_email_28(c, project, user_id, fields)
    else:
        _update_primary_email(c, project, user_id, fields)
    _set_columns(c, project.id, user_id, columns)
    if fields.get("is_anonymous") is False and user["is_anonymous"]:
        upgrade_anonymous_user(c, project, user_id)
    webhooks.user_updated(c, project.id, user_id)


def _check_flags_have_an_email(c: sqlite3.Connection, project: Project, user_id: str, fields: dict[str, Any]) -> None:
    """`primary_email_auth_enabled` / `primary_email_verified` set true on a user who has no
    primary e-mail after the update: 400 naming the flag (the service's order and words, on both
    versions). A `primary_email: null` in the same update is the e-mail's removal on 2.8 (both
    flags become false) and leaves the old address in place on 2.7 (service-api A5.5, B5.3)."""
    if "primary_email" in fields and fields["primary_email"] is not None:
        return
    if "primary_email" in fields and current_api().keeps_old_primary_email:
        return
    if primary_email_channel(c, project.id, user_id) is not None:
        return
    for flag in ("primary_email_auth_enabled", "primary_email_verified"):
        if fields.get(flag):
            raise PlainError(400, f"{flag} cannot be true without primary_email")


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
                raise email_taken(email)
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
    _set_primary_verified(c, project, channel, fields)


def _update_primary_email_28(c: sqlite3.Connection, project: Project, user_id: str, fields: dict[str, Any]) -> None:
    """2.8's primary e-mail rules (service-api B5.3): a new value becomes a channel of its own
    (or an existing channel of the user with that value is promoted) and the old primary stays
    as a non-primary channel; null demotes the primary channel."""
    channel = primary_email_channel(c, project.id, user_id)
    if "primary_email" in fields:
        email = fields["primary_email"]
        c.execute(
            "UPDATE contact_channels SET is_primary = 0 WHERE project_id = ? AND user_id = ?", (project.id, user_id)
        )
        if email is not None:
            email = normalise_email(email)
            auth = (
                fields["primary_email_auth_enabled"]
                if "primary_email_auth_enabled" in fields
                else bool(channel and channel["used_for_auth"])
            )
            if auth and email_used_for_auth(c, project.id, email, except_user=user_id):
                raise email_taken(email)
            same = c.execute(
                "SELECT id FROM contact_channels WHERE project_id = ? AND user_id = ? AND type = 'email' AND value = ?",
                (project.id, user_id, email),
            ).fetchone()
            if same is not None:
                c.execute(
                    "UPDATE contact_channels SET is_primary = 1, used_for_auth = ? WHERE project_id = ? AND id = ?",
                    (int(auth), project.id, same["id"]),
                )
            else:
                add_contact_channel(
                    c, project.id, user_id, email, is_primary=True, is_verified=False, used_for_auth=auth
                )
        channel = primary_email_channel(c, project.id, user_id)
    elif "primary_email_auth_enabled" in fields and channel is not None:
        auth = bool(fields["primary_email_auth_enabled"])
        if auth and email_used_for_auth(c, project.id, channel["value"], except_user=user_id):
            raise email_taken(channel["value"])
        c.execute(
            "UPDATE contact_channels SET used_for_auth = ? WHERE project_id = ? AND id = ?",
            (int(auth), project.id, channel["id"]),
        )
    _set_primary_verified(c, project, channel, fields)


def _set_primary_verified(
    c: sqlite3.Connection, project: Project, channel: sqlite3.Row | None, fields: dict[str, Any]
) -> None:
    if "primary_email_verified" in fields:
        if channel is None:
            if fields["primary_email_verified"]:
                raise PlainError(400, "primary_email_verified cannot be true without primary_email")
            return
        c.execute(
            "UPDATE contact_channels SET is_verified = ? WHERE project_id = ? AND id = ?",
            (int(fields["primary_email_verified"]), project.id, channel["id"]),
        )


def _delete_passkeys(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    if c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkeys'").fetchone():
        c.execute("DELETE FROM passkeys WHERE project_id = ? AND user_id = ?", (project_id, user_id))
