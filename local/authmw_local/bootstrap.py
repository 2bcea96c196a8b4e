"""First-start setup: the local project, the `internal` project and their keys; project.env."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from .api_version import ApiVersion, api_version
from .auth import INTERNAL_PROJECT_ID
from .db import Database
from .ids import now_millis
from .projects import (
    BOOTSTRAP_KEY_LIFETIME_MILLIS,
    create_api_key_set,
    create_project,
    get_project,
    save_project,
)
from .seed import InternalKeys, seed_internal_keys

LOCAL_PROJECT_NAME = "authmw local project"
INTERNAL_PROJECT_NAME = "authmw internal"
BOOTSTRAP_KEY_DESCRIPTION = "Created by the local service on first start"
ENV_FILE_NAME = "project.env"

#: The local project starts with every sign-in method on, as the real service's development
#: project does, so the handler pages show them all: password, magic link, passkeys, and GitHub
#: and Google (served by the local mock provider). Projects created later get the contract's
#: defaults (password only).
LOCAL_PROJECT_CONFIG = {
    "magic_link_enabled": True,
    "passkey_enabled": True,
    "oauth_providers": [
        {"id": "github", "type": "shared", "enabled": True},
        {"id": "google", "type": "shared", "enabled": True},
    ],
}


@dataclass(frozen=True)
class ProjectKeys:
    project_id: str
    publishable_client_key: str
    secret_server_key: str
    super_secret_admin_key: str


@dataclass(frozen=True)
class Bootstrap:
    project: ProjectKeys
    internal: ProjectKeys
    created: bool  # True on the very first start of this data folder


def ensure_projects(
    db: Database, internal_keys: InternalKeys | None = None, api: str = "2.8", name: str | None = None
) -> Bootstrap:
    """Create the projects and keys on first start; reuse them later. A project that was deleted
    (DELETE /projects/current) is created afresh, with new keys, as on a first start.

    `internal_keys` (seed.py) are added as one more key set of the `internal` project, which
    then takes the shape of Stack's seeded one in backend `api`. Both projects get the default
    team permission definitions of `api`, as the backend gives every project it creates (its
    seed included): 2.8.86 `team_admin` / `team_member`, 2.7.16 `admin` / `member`."""
    version = api_version(api)
    with db.tx() as c:
        created = False
        project_id = _meta(c, "project_id")
        if project_id is None or get_project(c, project_id) is None:
            project = _new_project_with_keys(c, name or LOCAL_PROJECT_NAME, None, version, LOCAL_PROJECT_CONFIG)
            c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('project_id', ?)", (project.project_id,))
            created = True
        else:
            project = _keys_of(c, project_id)
            existing = get_project(c, project_id)
            if name and existing is not None and existing.display_name != name:
                save_project(c, replace(existing, display_name=name))
        if get_project(c, INTERNAL_PROJECT_ID) is None:
            internal = _new_project_with_keys(c, INTERNAL_PROJECT_NAME, INTERNAL_PROJECT_ID, version)
        else:
            internal = _keys_of(c, INTERNAL_PROJECT_ID)
        if internal_keys is not None:
            seed_internal_keys(c, internal_keys, api)
    return Bootstrap(project=project, internal=internal, created=created)


def _meta(c: sqlite3.Connection, key: str) -> str | None:
    row = c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row["value"]


def _new_project_with_keys(
    c: sqlite3.Connection,
    name: str,
    project_id: str | None,
    api: ApiVersion,
    config: dict[str, object] | None = None,
) -> ProjectKeys:
    project = create_project(c, name, project_id=project_id, api=api)
    if config:
        save_project(c, replace(project, config={**project.config, **config}))
    create_api_key_set(c, project.id, BOOTSTRAP_KEY_DESCRIPTION, now_millis() + BOOTSTRAP_KEY_LIFETIME_MILLIS)
    return _keys_of(c, project.id)


def _keys_of(c: sqlite3.Connection, project_id: str) -> ProjectKeys:
    row = c.execute(
        "SELECT * FROM api_key_sets WHERE project_id = ? AND description = ? ORDER BY created_at_millis LIMIT 1",
        (project_id, BOOTSTRAP_KEY_DESCRIPTION),
    ).fetchone()
    if row is None:
        raise RuntimeError(
            f"The local service's key set of project {project_id} is missing from the database;"
            " remove the data folder to start afresh."
        )
    return ProjectKeys(
        project_id=project_id,
        publishable_client_key=row["publishable_client_key"],
        secret_server_key=row["secret_server_key"],
        super_secret_admin_key=row["super_secret_admin_key"],
    )


def env_values(api_url: str, keys: ProjectKeys) -> dict[str, str]:
    return {
        "AUTHMW_API_URL": api_url,
        "AUTHMW_PROJECT_ID": keys.project_id,
        "AUTHMW_PUBLISHABLE_CLIENT_KEY": keys.publishable_client_key,
        "AUTHMW_SECRET_SERVER_KEY": keys.secret_server_key,
        "AUTHMW_SUPER_SECRET_ADMIN_KEY": keys.super_secret_admin_key,
    }


def write_env_file(data_dir: str | Path, values: dict[str, str]) -> Path:
    path = Path(data_dir) / ENV_FILE_NAME
    text = "".join(f"{name}={value}\n" for name, value in values.items())
    tmp = path.with_suffix(".env.tmp")
    tmp.unlink(missing_ok=True)  # left by a crash (or planted): never written through
    # Created owner-only: a file made readable and narrowed afterwards can be opened in between.
    with os.fdopen(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "w", encoding="utf-8") as file:
        file.write(text)
    tmp.replace(path)
    return path
