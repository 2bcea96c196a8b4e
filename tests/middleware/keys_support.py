"""What the adapter tests of API keys share: a project that allows both kinds of keys, a user
with a user key, a team with a team key, a revoked key, and a project permission."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from authmw import AdminApp, AuthConfig, ServerApp
from authmw.errors import PermissionIdAlreadyExists

#: The project permissions of the tests (fixed: guards name them where views are declared).
HELD = "keys_docs_write"
MISSING = "keys_docs_admin"


@dataclass(frozen=True)
class Keys:
    config: AuthConfig  # accept_api_keys=True
    user_id: str
    team_id: str
    other_team_id: str
    permission_id: str  # a project permission the key's user holds
    missing_permission_id: str  # one it does not hold
    user_key: str
    team_key: str
    revoked_key: str

    def bearer(self, value: str) -> dict[str, str]:
        return {"authorization": f"Bearer {value}"}


@pytest.fixture(scope="module")
def keys(service_28: Any) -> Iterator[Keys]:
    """API keys and project permissions exist from API 2.8: a service answering as 2.8."""
    config = service_28.config
    suffix = uuid.uuid4().hex[:8]
    held, missing = HELD, MISSING
    with AdminApp(config) as admin, ServerApp(config) as server:
        admin.update_project(config={"allow_user_api_keys": True, "allow_team_api_keys": True})
        for permission_id in (held, missing):
            try:
                admin.project_permission_definitions.create(permission_id)
            except PermissionIdAlreadyExists:
                pass  # made by another module's fixture that ended without deleting it
        user = server.users.create(primary_email=f"script-{suffix}@example.com")
        server.project_permissions.grant(user.id, held)
        team = server.teams.create(f"Bots {suffix}", creator_user_id=user.id)
        other = server.teams.create(f"Others {suffix}")
        user_key = server.user_api_keys.create(user.id, description="script")
        team_key = server.team_api_keys.create(team.id, description="bot")
        revoked = server.user_api_keys.create(user.id, description="old")
        server.user_api_keys.revoke(revoked.id)
        try:
            yield Keys(
                config=config.with_(accept_api_keys=True),
                user_id=user.id,
                team_id=team.id,
                other_team_id=other.id,
                permission_id=held,
                missing_permission_id=missing,
                user_key=user_key.api_key,
                team_key=team_key.api_key,
                revoked_key=revoked.api_key,
            )
        finally:
            admin.project_permission_definitions.delete(held)
            admin.project_permission_definitions.delete(missing)
            admin.update_project(config={"allow_user_api_keys": False, "allow_team_api_keys": False})
