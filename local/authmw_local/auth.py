"""Request authentication, in exactly the order of service-api A1.3 (2.7) or B1.3 (2.8)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .api_version import ANONYMOUS, ApiVersion, token_kinds
from .db import load
from .errors import CatalogueError, PlainError
from .projects import Project, get_project, key_is_valid, owned_project_ids
from .tokens import TokenRules
from .users import get_user

TIERS = ("client", "server", "admin")
INTERNAL_PROJECT_ID = "internal"
OVERRIDE_HEADER = "x-stack-development-override-key"
#: 2.8: lets a request carry an anonymous or restricted user's token (service-api B1.2).
ALLOW_ANONYMOUS_HEADER = str(token_kinds()["allow_anonymous_header"])
#: 2.8: lets a request carry a restricted (not anonymous) user's token.
ALLOW_RESTRICTED_HEADER = "x-stack-allow-restricted-user"

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
    #: The session named by the access token (`refresh_token_id`), when it names one.
    session_id: str | None = None

    @property
    def user_id(self) -> str | None:
        return None if self.user is None else self.user["id"]


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    return value if value else None  # empty values count as absent (1.2)


def resolve(c: sqlite3.Connection, tokens: TokenRules, headers: Mapping[str, str]) -> Auth | None:
    """The request's Auth, None for anonymous requests, or a CatalogueError / PlainError, in the
    order of the version (2.7: service-api A1.3; 2.8: service-api B1.3)."""
    if tokens.api.auth_order_28:
        return _resolve_28(c, tokens, headers)
    return _resolve_27(c, tokens, headers)


def _project_exists(c: sqlite3.Connection) -> Callable[[str], bool]:
    return lambda pid: get_project(c, pid) is not None


def _access_type(headers: Mapping[str, str]) -> tuple[str, str] | None:
    """(access type, project id), None for an anonymous request, or the errors of steps 1-3."""
    project_id = _header(headers, "x-stack-project-id")
    access_type = _header(headers, "x-stack-access-type")
    any_key = any(_header(headers, name) for name in _KEY_HEADERS.values())
    if access_type is None:
        if any_key or _header(headers, "x-stack-admin-access-token") or _header(headers, OVERRIDE_HEADER):
            raise CatalogueError("PROJECT_KEY_WITHOUT_ACCESS_TYPE")
        return None
    if access_type not in TIERS:
        raise CatalogueError("INVALID_ACCESS_TYPE", access_type=access_type)
    if project_id is None:
        raise CatalogueError("ACCESS_TYPE_WITHOUT_PROJECT_ID", request_type=access_type)
    return access_type, project_id


def _check_keys(
    c: sqlite3.Connection, tokens: TokenRules, headers: Mapping[str, str], access_type: str, project_id: str
) -> None:
    """The development override key, else an owner's admin access token, else the tier's key."""
    override_key = _header(headers, OVERRIDE_HEADER)
    admin_token = _header(headers, "x-stack-admin-access-token")
    # The admin key of `internal` opens every project (development deployments only).
    if override_key:
        if not key_is_valid(c, INTERNAL_PROJECT_ID, "admin", override_key):
            raise PlainError(401, "Invalid development override key.")
    elif admin_token:
        _check_admin_token(c, tokens, admin_token, project_id)
    else:
        key = _header(headers, _KEY_HEADERS[access_type])
        if key is None:
            if access_type == "client" and tokens.api.auth_order_28:
                project = get_project(c, project_id)
                if project is not None and not project.config["require_publishable_client_key"]:
                    return
                raise CatalogueError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", project_id=project_id)
            raise CatalogueError(_MISSING_KEY[access_type])
        if not key_is_valid(c, project_id, access_type, key):
            raise CatalogueError(_WRONG_KEY[access_type], project_id=project_id)


def _resolve_27(c: sqlite3.Connection, tokens: TokenRules, headers: Mapping[str, str]) -> Auth | None:
    project_id = _header(headers, "x-stack-project-id")
    access_token = _header(headers, "x-stack-access-token")
    # 1. The user's access token is verified whenever a project id comes with it.
    claims = None
    if project_id and access_token:
        claims = tokens.verify(access_token, project_id, _project_exists(c))
    # 2.-4. Access type and project id.
    kind = _access_type(headers)
    if kind is None:
        return None
    access_type, project_id = kind
    # 5.-6. Override key, admin access token, the key of the tier.
    _check_keys(c, tokens, headers, access_type, project_id)
    # 7. The project itself.
    project = get_project(c, project_id)
    if project is None:
        raise CatalogueError("PROJECT_NOT_FOUND", project_id=project_id)
    # 9. The user of the access token; a deleted user means "no user".
    user = get_user(c, project.id, claims.user_id) if claims else None
    return Auth(tier=access_type, project=project, user=user, session_id=claims.refresh_token_id if claims else None)


def _resolve_28(c: sqlite3.Connection, tokens: TokenRules, headers: Mapping[str, str]) -> Auth | None:
    # 1.-3. Access type and project id; without an access type the token is not read at all.
    kind = _access_type(headers)
    if kind is None:
        return None
    access_type, project_id = kind
    # 4. The access token, and whether its kind of user may make this request.
    claims = None
    access_token = _header(headers, "x-stack-access-token")
    if access_token:
        claims = tokens.verify(access_token, project_id, _project_exists(c))
        allow_anonymous = headers.get(ALLOW_ANONYMOUS_HEADER) == "true"
        allow_restricted = allow_anonymous or headers.get(ALLOW_RESTRICTED_HEADER) == "true"
        if claims.kind == ANONYMOUS and not allow_anonymous:
            raise CatalogueError("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED")
        if claims.restricted_reason is not None and not allow_restricted:
            raise CatalogueError(
                "RESTRICTED_USER_NOT_ALLOWED",
                restricted_reason={"type": claims.restricted_reason},
                reason=claims.restricted_reason,
            )
    # 5. The project itself.
    project = get_project(c, project_id)
    if project is None:
        raise CatalogueError("CURRENT_PROJECT_NOT_FOUND", project_id=project_id)
    # 6. Override key, admin access token, the key of the tier.
    _check_keys(c, tokens, headers, access_type, project_id)
    # 7. The branch.
    branch_id = _header(headers, "x-stack-branch-id")
    if branch_id is not None and branch_id != "main":
        raise CatalogueError("BRANCH_DOES_NOT_EXIST", branch_id=branch_id)
    # 8. The user of the access token (a deleted user means "no user") and its session.
    user = get_user(c, project.id, claims.user_id) if claims else None
    return Auth(tier=access_type, project=project, user=user, session_id=claims.refresh_token_id if claims else None)


def managed_project_ids(c: sqlite3.Connection, api: ApiVersion, owner: sqlite3.Row) -> list[str]:
    """The projects a user of `internal` manages: 2.7 lists them in the user's server metadata
    (`managedProjectIds`); 2.8 derives them from the user's teams (service-api B14.4)."""
    if api.admin_project_at_internal:
        return owned_project_ids(c, INTERNAL_PROJECT_ID, owner["id"])
    metadata = load(owner["server_metadata"])
    managed = metadata.get("managedProjectIds") if isinstance(metadata, dict) else None
    return [pid for pid in managed if isinstance(pid, str)] if isinstance(managed, list) else []


def _check_admin_token(c: sqlite3.Connection, tokens: TokenRules, token: str, project_id: str) -> None:
    project_exists = _project_exists(c)
    claims = tokens.verify(token, INTERNAL_PROJECT_ID, project_exists, admin=True)
    if claims.project_id != INTERNAL_PROJECT_ID:
        raise CatalogueError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN")
    owner = get_user(c, INTERNAL_PROJECT_ID, claims.user_id)
    if owner is None:
        raise PlainError(401, "The user of the admin access token no longer exists.")
    if project_id not in managed_project_ids(c, tokens.api, owner):
        raise CatalogueError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN")
    if not project_exists(project_id):
        raise CatalogueError("INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN")
