"""Projects: defaults of a new project (service-api A5.2), the client and admin views, key sets."""

from __future__ import annotations

import hmac
import sqlite3
from dataclasses import dataclass
from typing import Any

from .api_version import ApiVersion, current_api
from .db import dump, load
from .ids import new_uuid, now_millis, random_code
from .oauth_config import provider_kind, signs_in

SYSTEM_PERMISSIONS: dict[str, str] = {
    "$delete_team": "Delete the team",
    "$invite_members": "Invite other users to the team",
    "$read_members": "Read and list the other members of the team",
    "$remove_members": "Remove other members from the team",
    "$update_team": "Update the team information",
}

#: API 2.8 adds one system team permission, which gates client-tier team API keys (service-api B9.3).
SYSTEM_PERMISSIONS_28: dict[str, str] = {
    **SYSTEM_PERMISSIONS,
    "$manage_api_keys": "Create and manage API keys for the team",
}


def system_permissions(api: ApiVersion | None = None) -> dict[str, str]:
    """The system team permissions of the version (the one serving the request by default)."""
    return SYSTEM_PERMISSIONS_28 if (api or current_api()).project_permissions else SYSTEM_PERMISSIONS


DEFAULT_PERMISSION_DEFINITIONS: list[tuple[str, str, list[str]]] = [
    ("admin", "Default permission for team creators", sorted(SYSTEM_PERMISSIONS)),
    ("member", "Default permission for team members", ["$invite_members", "$read_members"]),
]
#: What backend 2.8.86 gives a project made through its API (`L/projects.tsx`, service-api B9.3).
DEFAULT_PERMISSION_DEFINITIONS_28: list[tuple[str, str, list[str]]] = [
    ("team_admin", "Default permission for team admins", sorted(SYSTEM_PERMISSIONS_28)),
    ("team_member", "Default permission for team members", ["$invite_members", "$read_members"]),
]

#: Boolean config flags an admin may toggle with PATCH /projects/current.
BOOLEAN_FLAGS = (
    "allow_localhost",
    "sign_up_enabled",
    "credential_enabled",
    "magic_link_enabled",
    "passkey_enabled",
    "client_team_creation_enabled",
    "client_user_deletion_enabled",
    "create_team_on_sign_up",
)

#: Flags of the client view, in wire order.
CLIENT_FLAGS = (
    "sign_up_enabled",
    "credential_enabled",
    "magic_link_enabled",
    "passkey_enabled",
    "client_team_creation_enabled",
    "client_user_deletion_enabled",
)


#: The id of the default e-mail theme of 2.8.86 (`emails.selectedThemeId` of a new project's config).
DEFAULT_EMAIL_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"


#: The apps of 2.8.86's config (`apps.installed.<id>.enabled`), in its order. The dashboard shows
#: them; the local service keeps the switch and changes nothing else by it (the backend gates only
#: analytics by it, which the local service does not offer).
APP_IDS = (
    "authentication", "fraud-protection", "onboarding", "teams", "rbac", "api-keys", "payments",
    "emails", "email-api", "data-vault", "webhooks", "tv-mode", "launch-checklist", "catalyst",
    "neon", "convex", "vercel", "analytics",
)  # fmt: skip
#: The apps a project made through 2.8.86's API starts with (every other app starts disabled).
APPS_ENABLED_AT_CREATION = ("authentication", "emails")


def app_setting(app_id: str) -> str:
    """The local config key of an app's `enabled` switch."""
    return f"app_enabled:{app_id}"


def default_config() -> dict[str, Any]:
    return {
        "allow_localhost": True,
        "sign_up_enabled": True,
        "credential_enabled": True,
        "magic_link_enabled": False,
        "passkey_enabled": False,
        "legacy_global_jwt_signing": False,
        "client_team_creation_enabled": False,
        "client_user_deletion_enabled": False,
        "create_team_on_sign_up": False,
        "oauth_providers": [],
        "domains": [],
        "email_config": {"type": "shared"},
        "team_creator_default_permissions": [{"id": "admin"}],
        "team_member_default_permissions": [{"id": "member"}],
        # 2.8 (service-api B1.2, B7.4, B8.1, B14.4). The backend's default for new projects is not
        # to require the publishable key, but every project that existed when the setting came
        # was set to require it; the local service keeps requiring it unless told otherwise.
        "require_publishable_client_key": True,
        "require_email_verification": False,
        "allow_user_api_keys": False,
        "allow_team_api_keys": False,
        "oauth_account_merge_strategy": "link_method",
        # 2.8: project permissions granted to every new user (service-api B9.2)
        "user_default_permissions": [],
        # 2.8 sign-up rules ({rule id: rule}) and what happens when none decides (sign_up_rules.py)
        "sign_up_rules": {},
        "sign_up_rules_default_action": "allow",
        # 2.8 apps (the dashboard's switches; see APP_IDS)
        **{app_setting(app): app in APPS_ENABLED_AT_CREATION for app in APP_IDS},
    }


#: 2.8's project logos (kept in the config; null until set).
LOGO_FIELDS = ("logo_url", "logo_full_url", "logo_dark_mode_url", "logo_full_dark_mode_url")
#: Fields of a local provider entry that are not part of 2.8's admin view.
HIDDEN_PROVIDER_FIELDS = ("enabled", "allow_sign_in", "allow_connected_accounts", "provider_type")


@dataclass(frozen=True)
class Project:
    id: str
    display_name: str
    description: str
    created_at_millis: int
    is_production_mode: bool
    config_id: str
    config: dict[str, Any]
    #: The team of `internal` that owns the project (API 2.8); None for 2.7-made projects.
    owner_team_id: str | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Project:
        return cls(
            id=row["id"],
            display_name=row["display_name"],
            description=row["description"] or "",
            created_at_millis=row["created_at_millis"],
            is_production_mode=bool(row["is_production_mode"]),
            config_id=row["config_id"],
            config={**default_config(), **load(row["config"])},
            owner_team_id=row["owner_team_id"],
        )

    def enabled_oauth_providers(self) -> list[dict[str, str]]:
        """The providers offered for sign-in, by type (2.8.86: `id` is the provider's type)."""
        providers = sorted(self.config["oauth_providers"], key=provider_kind)
        return [{"id": provider_kind(p)} for p in providers if signs_in(p)]

    def client_view(self, api: ApiVersion) -> dict[str, Any]:
        config: dict[str, Any] = {flag: bool(self.config[flag]) for flag in CLIENT_FLAGS}
        config["enabled_oauth_providers"] = self.enabled_oauth_providers()
        if api.admin_project_at_internal:  # service-api B14.4
            config["allow_user_api_keys"] = bool(self.config["allow_user_api_keys"])
            config["allow_team_api_keys"] = bool(self.config["allow_team_api_keys"])
            config["domains"] = [dict(d) for d in self.config["domains"]]
        return {"id": self.id, "display_name": self.display_name, "config": config}

    def admin_view_28(self) -> dict[str, Any]:
        """The 2.8 admin view (GET /internal/projects/current, service-api B14.4): no user count,
        config id, legacy signing flag or provider `enabled`; logos, owner team, onboarding
        status and the 2.8 config fields instead."""
        view = self.admin_view(0)
        del view["user_count"]
        config = view["config"]
        del config["id"], config["legacy_global_jwt_signing"]
        config["oauth_providers"] = [
            # 2.8.86 lists `apple_bundle_ids` only when some are set, and no provider whose
            # sign-in is off (`allowSignIn` of its config record)
            {
                **{k: v for k, v in p.items() if k not in HIDDEN_PROVIDER_FIELDS and (k != "apple_bundle_ids" or v)},
                "id": provider_kind(p),
                "provider_config_id": p["id"],
            }
            for p in sorted(self.config["oauth_providers"], key=provider_kind)
            if signs_in(p)
        ]
        # `require_email_verification` (and the local `require_publishable_client_key`) can be
        # written but are not part of 2.8.86's admin view (projectsCrudAdminReadSchema).
        for flag in ("allow_user_api_keys", "allow_team_api_keys"):
            config[flag] = bool(self.config[flag])
        config["email_theme"] = self.config.get("email_theme") or DEFAULT_EMAIL_THEME_ID
        config["user_default_permissions"] = sorted(self.config["user_default_permissions"], key=lambda p: p["id"])
        config["oauth_account_merge_strategy"] = self.config.get("oauth_account_merge_strategy", "link_method")
        for name in LOGO_FIELDS:
            view[name] = self.config.get(name)
        view["owner_team_id"] = self.owner_team_id
        view["onboarding_status"] = "completed"
        return view

    def owner_view(self, api: ApiVersion, user_count: int) -> dict[str, Any]:
        """The admin view of the version."""
        return self.admin_view_28() if api.admin_project_at_internal else self.admin_view(user_count)

    def admin_view(self, user_count: int) -> dict[str, Any]:
        c = self.config
        return {
            "id": self.id,
            "display_name": self.display_name,
            "description": self.description,
            "created_at_millis": self.created_at_millis,
            "user_count": user_count,
            "is_production_mode": self.is_production_mode,
            "config": {
                "id": self.config_id,
                **{flag: bool(c[flag]) for flag in BOOLEAN_FLAGS},
                "legacy_global_jwt_signing": bool(c["legacy_global_jwt_signing"]),
                "oauth_providers": [
                    {k: v for k, v in p.items() if k not in HIDDEN_PROVIDER_FIELDS[1:]}
                    for p in sorted(c["oauth_providers"], key=lambda p: p["id"])
                ],
                "enabled_oauth_providers": self.enabled_oauth_providers(),
                "domains": list(c["domains"]),
                "email_config": c["email_config"],
                "team_creator_default_permissions": sorted(
                    c["team_creator_default_permissions"], key=lambda p: p["id"]
                ),
                "team_member_default_permissions": sorted(c["team_member_default_permissions"], key=lambda p: p["id"]),
            },
        }


def get_project(c: sqlite3.Connection, project_id: str) -> Project | None:
    row = c.execute("SELECT * FROM projects WHERE id = ?", (project_id,)).fetchone()
    return None if row is None else Project.from_row(row)


def user_count(c: sqlite3.Connection, project_id: str) -> int:
    count: int = c.execute("SELECT COUNT(*) FROM users WHERE project_id = ?", (project_id,)).fetchone()[0]
    return count


def create_project(
    c: sqlite3.Connection,
    display_name: str,
    *,
    project_id: str | None = None,
    description: str = "",
    api: ApiVersion | None = None,
) -> Project:
    """A new project. With `api` of 2.8 (a project made by a service answering as 2.8, through
    its API or at its first start) its team definitions are 2.8's `team_admin` / `team_member`;
    else (2.7, or no version given) `admin` / `member`."""
    now = now_millis()
    project_id = project_id or new_uuid()
    config = default_config()
    definitions = DEFAULT_PERMISSION_DEFINITIONS
    if api is not None and api.project_permissions:
        definitions = DEFAULT_PERMISSION_DEFINITIONS_28
        config["team_creator_default_permissions"] = [{"id": "team_admin"}]
        config["team_member_default_permissions"] = [{"id": "team_member"}]
    c.execute(
        "INSERT INTO projects (id, display_name, description, created_at_millis, is_production_mode,"
        " config_id, config) VALUES (?, ?, ?, ?, 0, ?, ?)",
        (project_id, display_name, description, now, new_uuid(), dump(config)),
    )
    for permission_id, description_text, contained in definitions:
        c.execute(
            "INSERT INTO permission_definitions (project_id, id, description, contained_permission_ids,"
            " created_at_millis) VALUES (?, ?, ?, ?, ?)",
            (project_id, permission_id, description_text, dump(contained), now),
        )
    project = get_project(c, project_id)
    assert project is not None
    return project


def set_owner_team(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    c.execute("UPDATE projects SET owner_team_id = ? WHERE id = ?", (team_id, project_id))


def owned_project_ids(c: sqlite3.Connection, internal_project_id: str, internal_user_id: str) -> list[str]:
    """API 2.8: the projects whose owner team (a team of `internal`) has this user as a member."""
    rows = c.execute(
        "SELECT p.id FROM projects p JOIN team_members m ON m.team_id = p.owner_team_id"
        " WHERE m.project_id = ? AND m.user_id = ?",
        (internal_project_id, internal_user_id),
    ).fetchall()
    return [row["id"] for row in rows]


def save_project(c: sqlite3.Connection, project: Project) -> None:
    c.execute(
        "UPDATE projects SET display_name = ?, description = ?, is_production_mode = ?, config = ? WHERE id = ?",
        (project.display_name, project.description, int(project.is_production_mode), dump(project.config), project.id),
    )


@dataclass(frozen=True)
class ApiKeySet:
    id: str
    publishable_client_key: str | None
    secret_server_key: str | None
    super_secret_admin_key: str | None


#: 100 years: the bootstrap key set of the local service does not expire in practice.
BOOTSTRAP_KEY_LIFETIME_MILLIS = 100 * 365 * 24 * 3600 * 1000


def create_api_key_set(
    c: sqlite3.Connection,
    project_id: str,
    description: str,
    expires_at_millis: int,
    *,
    publishable: bool = True,
    secret: bool = True,
    admin: bool = True,
) -> ApiKeySet:
    key_set = ApiKeySet(
        id=new_uuid(),
        publishable_client_key="pck_" + random_code() if publishable else None,
        secret_server_key="ssk_" + random_code() if secret else None,
        super_secret_admin_key="sak_" + random_code() if admin else None,
    )
    c.execute(
        "INSERT INTO api_key_sets (id, project_id, description, created_at_millis, expires_at_millis,"
        " publishable_client_key, secret_server_key, super_secret_admin_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            key_set.id,
            project_id,
            description,
            now_millis(),
            expires_at_millis,
            key_set.publishable_client_key,
            key_set.secret_server_key,
            key_set.super_secret_admin_key,
        ),
    )
    return key_set


def api_key_set_view(row: sqlite3.Row, *, full: bool = False) -> dict[str, Any]:
    """A key set as listed (keys as `{"last_four"}`), or with full keys for the create response."""
    view: dict[str, Any] = {
        "id": row["id"],
        "description": row["description"],
        "created_at_millis": row["created_at_millis"],
        "expires_at_millis": row["expires_at_millis"],
    }
    if row["manually_revoked_at_millis"] is not None and not full:
        view["manually_revoked_at_millis"] = row["manually_revoked_at_millis"]
    for column in ("publishable_client_key", "secret_server_key", "super_secret_admin_key"):
        if row[column] is not None:
            view[column] = row[column] if full else {"last_four": row[column][-4:]}
    return view


def update_key_record(c: sqlite3.Connection, table: str, project_id: str, row: sqlite3.Row, body: dict[str, Any]) -> None:
    """A PATCH of a key set or of a user / team API key: a new description, and a revocation
    that keeps its first time (revoking again changes nothing)."""
    assert table in ("api_key_sets", "project_api_keys")
    if "description" in body:
        c.execute(
            f"UPDATE {table} SET description = ? WHERE project_id = ? AND id = ?",
            (body["description"], project_id, row["id"]),
        )
    if body.get("revoked") and row["manually_revoked_at_millis"] is None:
        c.execute(
            f"UPDATE {table} SET manually_revoked_at_millis = ? WHERE project_id = ? AND id = ?",
            (now_millis(), project_id, row["id"]),
        )


KEY_COLUMNS = {
    "client": "publishable_client_key",
    "server": "secret_server_key",
    "admin": "super_secret_admin_key",
}


def key_is_valid(c: sqlite3.Connection, project_id: str, tier: str, key: str) -> bool:
    """Does a live (not revoked, not expired) key set of the project hold this key for the tier?"""
    column = KEY_COLUMNS[tier]
    rows = c.execute(
        f"SELECT {column} AS key FROM api_key_sets WHERE project_id = ? AND {column} IS NOT NULL"
        " AND manually_revoked_at_millis IS NULL AND expires_at_millis > ?",
        (project_id, now_millis()),
    ).fetchall()
    return any(hmac.compare_digest(row["key"].encode(), key.encode()) for row in rows)
