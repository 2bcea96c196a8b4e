"""What the access tests share (tests/django: Django is configured once for this folder): a
2.8 project that allows both kinds of API keys, and every kind of caller of it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from api_sessions import session_headers, sign_up_anonymously

from authmw import AdminApp, AuthConfig, ServerApp
from authmw.errors import PermissionIdAlreadyExists

PERMISSION = "matrix_docs_write"
TEAM_PERMISSION = "$update_team"


@dataclass(frozen=True)
class World:
    config: AuthConfig  # accept_api_keys=True
    team_id: str
    headers: dict[str, dict[str, str]]  # caller -> request headers


def _restricted_tokens(service: Any) -> dict[str, str]:
    """A user an admin restricted, and a fresh session of it (its token says so)."""
    session = service.sign_up()
    base, config = f"{service.url}/api/v1", service.config
    headers = {
        "x-stack-project-id": config.project_id,
        "x-stack-access-type": "server",
        "x-stack-secret-server-key": config.secret_server_key or "",
    }
    restrict = {"restricted_by_admin": True, "restricted_by_admin_reason": "Under review"}
    r = httpx.patch(f"{base}/users/{session.user_id}", headers=headers, json=restrict)
    assert r.status_code == 200, r.text
    r = httpx.post(f"{base}/auth/sessions", headers=headers, json={"user_id": session.user_id})
    assert r.status_code == 200, r.text
    return {**r.json(), "user_id": session.user_id}


@pytest.fixture(scope="module")
def world(service_28: Any) -> Iterator[World]:
    config = service_28.config
    suffix = uuid.uuid4().hex[:8]
    with AdminApp(config) as admin, ServerApp(config) as server:
        admin.update_project(config={"allow_user_api_keys": True, "allow_team_api_keys": True})
        try:
            admin.project_permission_definitions.create(PERMISSION)
        except PermissionIdAlreadyExists:
            pass
        session = service_28.sign_up()
        server.project_permissions.grant(session.user_id, PERMISSION)
        team = server.teams.create(f"Matrix {suffix}", creator_user_id=session.user_id)
        assert server.team_permissions.has(team.id, session.user_id, TEAM_PERMISSION)
        anonymous = sign_up_anonymously(service_28)
        restricted = _restricted_tokens(service_28)
        user_key = server.user_api_keys.create(session.user_id, description="matrix").api_key
        team_key = server.team_api_keys.create(team.id, description="matrix").api_key
        revoked = server.user_api_keys.create(session.user_id, description="old")
        server.user_api_keys.revoke(revoked.id)
        anonymous_key = server.user_api_keys.create(anonymous["user_id"], description="anon").api_key
        restricted_key = server.user_api_keys.create(restricted["user_id"], description="restricted").api_key

        def bearer(value: str) -> dict[str, str]:
            return {"authorization": f"Bearer {value}"}

        pid = config.project_id
        headers = {
            "none": {},
            "cookie": session_headers("cookie", pid, session.access_token, session.refresh_token),
            "bearer": bearer(session.access_token),
            "anonymous": bearer(anonymous["access_token"]),
            "restricted": bearer(restricted["access_token"]),
            "user_key": bearer(user_key),
            "team_key": bearer(team_key),
            "revoked_key": bearer(revoked.api_key),
            "anonymous_key": bearer(anonymous_key),
            "restricted_key": bearer(restricted_key),
        }
        try:
            yield World(config.with_(accept_api_keys=True), team.id, headers)
        finally:
            admin.project_permission_definitions.delete(PERMISSION)
            admin.update_project(config={"allow_user_api_keys": False, "allow_team_api_keys": False})


LINKED_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "authmw_django.AuthMiddleware",
]


def django_settings(config: AuthConfig, urlconf: str, **options: Any) -> dict[str, Any]:
    """Django settings of a site taking API keys (``options``: more ``AUTHMW`` keys; linked
    Django users get their middleware), its URLs in the module ``urlconf``."""
    authmw = {
        "PROJECT_ID": config.project_id,
        "API_URL": config.api_url,
        "PUBLISHABLE_CLIENT_KEY": config.publishable_client_key,
        "SECRET_SERVER_KEY": config.secret_server_key,
        "ACCEPT_API_KEYS": True,
        **options,
    }
    middleware = {"MIDDLEWARE": LINKED_MIDDLEWARE} if options.get("DJANGO_USERS") else {}
    return {"ROOT_URLCONF": urlconf, "AUTHMW": authmw, **middleware}
