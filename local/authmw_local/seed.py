"""Given keys for the `internal` project, as Stack Auth's own development set-up seeds it.

Stack's end-to-end suite (and anything written against a Stack development backend) signs in
to the `internal` project with fixed local-development keys. `read_internal_keys(path)` reads
them from a dotenv file, either with the names of the suite's `apps/e2e/.env.development`
(`STACK_INTERNAL_PROJECT_CLIENT_KEY`, `..._SERVER_KEY`, `..._ADMIN_KEY`) or with the backend's
seed names (`STACK_SEED_INTERNAL_PROJECT_PUBLISHABLE_CLIENT_KEY`,
`..._SECRET_SERVER_KEY`, `..._SUPER_SECRET_ADMIN_KEY`). `seed_internal_keys` adds them as one
more key set of the project on every start (idempotent); the keys the local service made
itself keep working.

When the set is first added, the project also takes the name and sign-in methods of Stack's
seeded internal project ("Stack Dashboard", e-mail codes, client team creation, the shared
GitHub, Google, Microsoft and Spotify providers, and the team set-up of the backend version
the service answers as), so the suite reads the same project and the mails carry the same
sender and subjects.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .auth import INTERNAL_PROJECT_ID
from .db import dump
from .ids import new_uuid, now_millis
from .projects import get_project, save_project

SEEDED_KEY_DESCRIPTION = "Seeded from given keys (authmw dev --internal-keys)"
#: Seeded keys do not expire: they are fixed development values, like Stack's.
SEEDED_KEY_EXPIRY_MILLIS = 253402300799000  # 9999-12-31
STACK_INTERNAL_PROJECT_NAME = "Stack Dashboard"
#: The sign-in methods and client flags of Stack's seeded internal project (2.7 and 2.8 alike).
STACK_INTERNAL_PROJECT_CONFIG = {
    "magic_link_enabled": True,
    "passkey_enabled": False,
    "client_team_creation_enabled": True,
    "oauth_providers": [
        {"id": provider, "type": "shared", "enabled": True} for provider in ("github", "google", "microsoft", "spotify")
    ],
}

#: (attribute, the e2e suite's variable, the backend seed's variable)
#: Team permissions of Stack's seeded internal project: 2.7.16's seed made it without any (team
#: creators and members get none); 2.8.86's defines these two and makes them the defaults.
TEAM_PERMISSIONS_28 = (
    ("team_member", "1", ["$read_members"]),
    ("team_admin", "2", ["$read_members", "$remove_members", "$update_team"]),
)

_E2E, _SEED = "STACK_INTERNAL_PROJECT_", "STACK_SEED_INTERNAL_PROJECT_"
_VARIABLES = (
    ("publishable_client_key", _E2E + "CLIENT_KEY", _SEED + "PUBLISHABLE_CLIENT_KEY"),
    ("secret_server_key", _E2E + "SERVER_KEY", _SEED + "SECRET_SERVER_KEY"),
    ("super_secret_admin_key", _E2E + "ADMIN_KEY", _SEED + "SUPER_SECRET_ADMIN_KEY"),
)
_KEY_SHAPE = re.compile(r"^[A-Za-z0-9_.~-]{8,200}$")
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


class SeedError(ValueError):
    """A keys file that cannot be used; the message names the file, the variable and the fix."""


@dataclass(frozen=True)
class InternalKeys:
    publishable_client_key: str
    secret_server_key: str
    super_secret_admin_key: str

    def __repr__(self) -> str:  # the keys are secrets: never in logs or tracebacks
        return "InternalKeys(<3 keys>)"


def read_internal_keys(path: str | Path) -> InternalKeys:
    """The three keys of a dotenv file (see the module docstring for the accepted names)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or error
        raise SeedError(f"cannot read the keys file {file} ({reason}): pass a readable file.") from None
    values = _parse_dotenv(text)
    found: dict[str, str] = {}
    for attribute, e2e_name, seed_name in _VARIABLES:
        value = values.get(e2e_name) or values.get(seed_name)
        if not value:
            raise SeedError(f"the keys file {file} sets neither {e2e_name} nor {seed_name}: add one of them.")
        if not _KEY_SHAPE.match(value):
            raise SeedError(
                f"{e2e_name} in {file} is not a usable key: use 8-200 letters, digits or -_.~ (no spaces or quotes)."
            )
        found[attribute] = value
    return InternalKeys(**found)


def _parse_dotenv(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            continue
        value = match.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[match.group(1)] = value
    return values


def seed_internal_keys(c: sqlite3.Connection, keys: InternalKeys, api: str = "2.8") -> bool:
    """Make `keys` a valid key set of the internal project; True when it was added just now.
    The first time, the project takes the shape of Stack's seeded one in backend `api`.

    A key already used by another project's key set is refused: a key names one project."""
    existing = c.execute(
        "SELECT id FROM api_key_sets WHERE project_id = ? AND publishable_client_key = ? AND secret_server_key = ?"
        " AND super_secret_admin_key = ? AND manually_revoked_at_millis IS NULL",
        (INTERNAL_PROJECT_ID, keys.publishable_client_key, keys.secret_server_key, keys.super_secret_admin_key),
    ).fetchone()
    if existing is not None:
        return False
    for attribute, e2e_name, _ in _VARIABLES:
        clash = c.execute(
            f"SELECT 1 FROM api_key_sets WHERE {attribute} = ? AND project_id != ?",
            (getattr(keys, attribute), INTERNAL_PROJECT_ID),
        ).fetchone()
        if clash is not None:
            raise SeedError(f"the key of {e2e_name} already belongs to another project here: use another key.")
    c.execute(
        "INSERT INTO api_key_sets (id, project_id, description, created_at_millis, expires_at_millis,"
        " publishable_client_key, secret_server_key, super_secret_admin_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new_uuid(),
            INTERNAL_PROJECT_ID,
            SEEDED_KEY_DESCRIPTION,
            now_millis(),
            SEEDED_KEY_EXPIRY_MILLIS,
            keys.publishable_client_key,
            keys.secret_server_key,
            keys.super_secret_admin_key,
        ),
    )
    project = get_project(c, INTERNAL_PROJECT_ID)
    if project is not None:
        config = {**project.config, **STACK_INTERNAL_PROJECT_CONFIG, **_teams_of_version(c, api)}
        save_project(c, replace(project, display_name=STACK_INTERNAL_PROJECT_NAME, config=config))
    return True


def _teams_of_version(c: sqlite3.Connection, api: str) -> dict[str, Any]:
    """2.7.16: no team permissions, no team made at sign-up; 2.8.86: team_admin / team_member
    and a personal team for each new user."""
    if api == "2.7":
        return {"team_creator_default_permissions": [], "team_member_default_permissions": []}
    for permission_id, description, contained in TEAM_PERMISSIONS_28:
        c.execute(
            "INSERT OR IGNORE INTO permission_definitions (project_id, id, description, contained_permission_ids,"
            " created_at_millis) VALUES (?, ?, ?, ?, ?)",
            (INTERNAL_PROJECT_ID, permission_id, description, dump(contained), now_millis()),
        )
    return {
        "create_team_on_sign_up": True,
        "team_creator_default_permissions": [{"id": "team_admin"}],
        "team_member_default_permissions": [{"id": "team_member"}],
    }
