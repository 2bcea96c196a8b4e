"""authmw_fastapi team guards against the local service: 401 without a user, 403 without the
membership or permission, 200 with it."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from authmw import AdminApp, ServerApp
from authmw.errors import ConfigurationError
from authmw.middleware import AuthUser
from authmw_fastapi import (
    Guard,
    TeamCheck,
    install,
    require_team_member,
    require_team_permission,
)

from .support import cookie_header


@pytest.fixture(scope="module")
def permission(local_service) -> str:
    """A permission definition of the project: ``read_reports_<tag>``, contained in ``audit_<tag>``."""
    tag = uuid.uuid4().hex[:8]
    with AdminApp(local_service.config) as admin:
        admin.permission_definitions.create(f"read_reports_{tag}")
        admin.permission_definitions.create(f"audit_{tag}", contained_permission_ids=[f"read_reports_{tag}"])
    return f"read_reports_{tag}"


@pytest.fixture
def server(local_service):
    with ServerApp(local_service.config) as app:
        yield app


def guarded_app(local_service, permission: str) -> FastAPI:
    app = FastAPI()
    install(app, local_service.config)

    @app.get("/api/teams/{team_id}/reports")
    async def reports(team_id: str, user: AuthUser = Depends(require_team_permission(permission))) -> dict[str, Any]:  # noqa: B008
        return {"team": team_id, "user": user.id}

    @app.get("/api/teams/{team_id}")
    def team_page(team_id: str, user: AuthUser = Depends(require_team_member())) -> dict[str, Any]:  # noqa: B008
        return {"team": team_id, "member": user.id}

    may_update_team = require_team_permission("$update_team", team=lambda conn: conn.query_params.get("team"))

    @app.get("/api/settings")
    async def settings(user: AuthUser = Depends(may_update_team)) -> dict[str, Any]:  # noqa: B008
        return {"user": user.id}

    @app.get("/api/projects/{project}")
    async def wrong_parameter(user: AuthUser = Depends(require_team_member())) -> dict[str, Any]:  # noqa: B008
        return {}

    return app


def cookie_of(local_service, session) -> dict[str, str]:
    return {"cookie": cookie_header(local_service.project_id, session.refresh_token, session.access_token)}


def test_a_permission_guard_answers_401_403_and_200(local_service, server, permission):
    s = local_service.sign_up()
    team = server.teams.create("Guarded", creator_user_id=s.user_id)
    with TestClient(guarded_app(local_service, permission)) as client:
        path = f"/api/teams/{team.id}/reports"
        anonymous = client.get(path)
        assert anonymous.status_code == 401
        assert anonymous.json()["code"] == "USER_AUTHENTICATION_REQUIRED"

        refused = client.get(path, headers=cookie_of(local_service, s))
        assert refused.status_code == 403
        assert refused.json() == {
            "code": "TEAM_PERMISSION_REQUIRED",
            "error": f"User {s.user_id} does not have permission {permission} in team {team.id}.",
            "details": {"team_id": team.id, "user_id": s.user_id, "permission_id": permission},
        }

        server.team_permissions.grant(team.id, s.user_id, permission.replace("read_reports", "audit"))
        allowed = client.get(path, headers=cookie_of(local_service, s))  # contained in the granted one
        assert allowed.status_code == 200
        assert allowed.json() == {"team": team.id, "user": s.user_id}


def test_a_membership_guard(local_service, server, permission):
    member, outsider = local_service.sign_up(), local_service.sign_up()
    team = server.teams.create("Members only")
    server.teams.add_member(team.id, member.user_id)
    with TestClient(guarded_app(local_service, permission)) as client:
        assert client.get(f"/api/teams/{team.id}").status_code == 401
        ok = client.get(f"/api/teams/{team.id}", headers=cookie_of(local_service, member))
        assert ok.status_code == 200 and ok.json() == {"team": team.id, "member": member.user_id}
        refused = client.get(f"/api/teams/{team.id}", headers=cookie_of(local_service, outsider))
        assert refused.status_code == 403 and refused.json()["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
        not_a_team = client.get("/api/teams/not-a-uuid", headers=cookie_of(local_service, member))
        assert not_a_team.status_code == 403
        unknown = client.get(f"/api/teams/{uuid.uuid4()}", headers=cookie_of(local_service, member))
        assert unknown.status_code == 403


def test_the_team_from_a_callable(local_service, server, permission):
    creator, member = local_service.sign_up(), local_service.sign_up()
    team = server.teams.create("Settings", creator_user_id=creator.user_id)
    server.teams.add_member(team.id, member.user_id)
    with TestClient(guarded_app(local_service, permission)) as client:
        assert client.get(f"/api/settings?team={team.id}", headers=cookie_of(local_service, creator)).status_code == 200
        assert client.get(f"/api/settings?team={team.id}", headers=cookie_of(local_service, member)).status_code == 403
        assert client.get("/api/settings", headers=cookie_of(local_service, creator)).status_code == 403


def test_a_missing_path_parameter_names_the_fix(local_service, permission):
    s = local_service.sign_up()
    with (
        TestClient(guarded_app(local_service, permission)) as client,
        pytest.raises(ConfigurationError, match="path parameter 'team_id'"),
    ):
        client.get("/api/projects/x", headers=cookie_of(local_service, s))


def test_team_guards_compose_and_describe_themselves(permission):
    guard = require_team_permission(permission, team="org")
    assert guard.checks == (TeamCheck("org", permission),)
    assert "TeamCheck(team='org'" in repr(guard)
    assert isinstance(Guard(TeamCheck(), api=False), Guard)
    with pytest.raises(ValueError, match="permission id"):
        require_team_permission("")
