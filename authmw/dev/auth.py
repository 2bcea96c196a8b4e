"""Request authentication, in exactly the order of contract section 1.3."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .db import load
from .errors import CatalogueError, PlainError
from .keys import KeyStore
from .projects import Project, get_project, key_is_valid
from .tokens import verify_access_token
from .users import get_user

TIERS = ("client", "server", "admin")
INTERNAL_PROJECT_ID = "internal"

_KEY_HEADERS = {
    "client": "x-stack-publishable-client-key",
    "server": "x-stack-secret-server-key",
    "admin": "x-stack-super-secret-admin-key",
}
_MISSING_KEY = {
    "client": "CLIENT_AUTHENTICATION_REQUIRED",
    "server": "SERVER_AUTHENTICATION_REQUIRED",
    "admin": "ADMIN_AUTHENTICATION_REQUIRED",
}
_WRONG_KEY = {
    "client": "INVALID_PUBLISHABLE_CLIENT_KEY",
    "server": "INVALID_SECRET_SERVER_KEY",
    "admin": "INVALID_SUPER_SECRET_ADMIN_KEY",
}


@dataclass(frozen=True)
class Auth:
    tier: str
    project: Project
    user: sqlite3.Row | None

    @property
    def user_id(self) -> str | None:
        return None if self.user is None else self.user["id"]


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    return value if value else None  # empty values count as absent (1.2)


def resolve(c: sqlite3.Connection, keys: KeyStore, headers: Mapping[str, str]) -> Auth | None:
    """The request's Auth, None for anonymous requests, or a CatalogueError / PlainError."""
    project_id = _header(headers, "x-stack-project-id")
    access_type = _header(headers, "x-stack-access-type")
    access_token = _header(headers, "x-stack-access-token")
    admin_token = _header(headers, "x-stack-admin-access-token")
    override_key = _header(headers, "x-stack-development-override-key")

    def project_exists(pid: str) -> bool:
        return get_project(c, pid) is not None

    # 1. The user's access token is verified whenever a project id comes with it.
    claims = None
    if project_id and access_token:
        claims = verify_access_token(keys, access_token, project_id, project_exists)

    # 2.-4. Access type and project id.
    any_key = any(_header(headers, name) for name in _KEY_HEADERS.values())
    if access_type is None:
        if any_key or admin_token or override_key:
            raise CatalogueError("PROJECT_KEY_WITHOUT_ACCESS_TYPE")
        return None
    if access_type not in TIERS:
        raise CatalogueError("INVALID_ACCESS_TYPE", access_type=access_type)
    if project_id is None:
        raise CatalogueError("ACCESS_TYPE_WITHOUT_PROJECT_ID", request_type=access_type)

    # The admin key of `internal` opens every project (development deployments only).
    if override_key:
        if not key_is_valid(c, INTERNAL_PROJECT_ID, "admin", override_key):
            raise PlainError(401, "Invalid development override key.")
    # 5. An owner's admin access token replaces the key checks.
    elif admin_token:
        _check_admin_token(c, keys, admin_token, project_id, project_exists)
    else:
        # 6. The key of the requested tier.
        key = _header(headers, _KEY_HEADERS[access_type])
        if key is None:
            raise CatalogueError(_MISSING_KEY[access_type])
        if not key_is_valid(c, project_id, access_type, key):
            raise CatalogueError(_WRONG_KEY[access_type], project_id=project_id)

    # 7. The project itself.
    project = get_project(c, project_id)
    if project is None:
        raise CatalogueError("PROJECT_NOT_FOUND", project_id=project_id)

    # 9. The user of the access token; a deleted user means "no user".
    user = get_user(c, project.id, claims.user_id) if claims else None
    return Auth(tier=access_type, project=project, user=user)


def _check_admin_token(
    c: sqlite3.Connection, keys: KeyStore, token: str, project_id: str, project_exists: Callable[[str], bool]
) -> None:
    claims = verify_access_token(keys, token, INTERNAL_PROJECT_ID, project_exists, admin=True)
    if claims.project_id != INTERNAL_PROJECT_ID:
        raise CatalogueError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN")
    owner = get_user(c, INTERNAL_PROJECT_ID, claims.user_id)
    if owner is None:
        raise PlainError(401, "The user of the admin access token no longer exists.")
    metadata = load(owner["server_metadata"])
    managed = metadata.get("managedProjectIds") if isinstance(metadata, dict) else None
    if not isinstance(managed, list) or project_id not in managed:
        raise CatalogueError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN")
    if not project_exists(project_id):
        raise CatalogueError("INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN")
