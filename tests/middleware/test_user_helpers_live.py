"""request.user's server-tier helpers against the local service: awaitable under ASGI, plain
under WSGI, each on the middleware's own driver."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from authmw import ServerApp
from authmw.middleware import WSGIAuthMiddleware
from authmw_fastapi import CurrentUser, install

from .support import cookie_header


@pytest.fixture
def server(local_service):
    with ServerApp(local_service.config) as app:
        yield app


def cookie_of(local_service, session) -> dict[str, str]:
    return {"cookie": cookie_header(local_service.project_id, session.refresh_token, session.access_token)}


def test_request_user_server_helpers_are_awaitable_under_asgi(local_service, server):
    s = local_service.sign_up()
    team = server.teams.create("Helpers", creator_user_id=s.user_id)
    app = FastAPI()
    install(app, local_service.config)

    @app.get("/api/me/overview")
    async def overview(user: CurrentUser) -> dict[str, Any]:
        teams = await user.list_teams()
        can_update = await user.has_permission(team.id, "$update_team")
        can_read = await user.has_permission(team.id, "no_such_permission")
        held = await user.list_permissions(team.id, recursive=False)
        updated = await user.update_metadata(server_metadata={"plan": "pro"}, client_read_only_metadata={"x": 1})
        full = await user.get_server_user()
        return {
            "teams": [t.id for t in teams],
            "can_update": can_update,
            "can_read": can_read,
            "held": [p.id for p in held],
            "server_metadata": updated.server_metadata,
            "same": full == updated,
        }

    with TestClient(app) as client:
        body = client.get("/api/me/overview", headers=cookie_of(local_service, s)).json()
    assert body == {
        "teams": [team.id],
        "can_update": True,
        "can_read": False,
        "held": [local_service.team_roles[0]],
        "server_metadata": {"plan": "pro"},
        "same": True,
    }
    assert server.users.get(s.user_id).client_read_only_metadata == {"x": 1}


def test_request_user_server_helpers_are_plain_under_wsgi(local_service, server):
    s = local_service.sign_up()
    team = server.teams.create("WSGI", creator_user_id=s.user_id)

    def overview(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        user = environ["authmw.user"]
        body = {
            "teams": [t.id for t in user.list_teams()],
            "can_delete": user.has_permission(team.id, "$delete_team"),
            "metadata": user.update(server_metadata={"n": 1}).server_metadata,
        }
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]

    app = WSGIAuthMiddleware(overview, local_service.config)
    with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver") as client:
        body = client.get("/", headers=cookie_of(local_service, s)).json()
    app.close()
    assert body == {"teams": [team.id], "can_delete": True, "metadata": {"n": 1}}
