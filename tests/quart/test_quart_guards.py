"""authmw_quart's guards and websockets with Quart's own test client against a local service
answering as 2.8: team member / team permission / project permission guards allowing and
refusing (signed out, wrong team, missing permission), API keys on each guard (accepted,
refused, revoked), and websocket routes with and without a session, and from another site."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from middleware.keys_support import HELD, MISSING, Keys, keys  # noqa: F401 - the fixture
from middleware.support import cookie_header
from quart import Quart, websocket
from quart.testing import WebsocketResponseError

from authmw import AuthConfig, ServerApp
from authmw_quart import (
    AuthMW,
    current_user,
    require_permission,
    team_member_required,
    team_permission_required,
    user_required,
)


def make_app(config: AuthConfig, **options: Any) -> Quart:
    app = Quart(__name__)
    AuthMW(app, config=config, **options)

    @app.get("/api/teams/<team_id>/sync")
    @team_member_required(api_keys=True)
    async def sync(team_id: str) -> Any:
        return {"team": team_id, "via": current_user.via}

    @app.get("/api/orgs/<org>/")
    @team_member_required(team=lambda org: org)
    async def org(org: str) -> Any:
        return {"team": org}

    @app.get("/teams/<team_id>/settings")
    @team_permission_required("$update_team")
    async def settings(team_id: str) -> Any:
        return {"team": team_id, "may": "update"}

    @app.get("/api/docs")
    @require_permission(HELD, api_keys=True)
    async def docs() -> Any:
        return {"editor": current_user.id}

    @app.get("/api/admin-docs")
    @require_permission(MISSING)
    async def admin_docs() -> Any:
        return {"editor": current_user.id}

    @app.get("/api/export")
    @user_required(api_keys=True)
    async def export() -> Any:
        return {"id": current_user.id, "via": current_user.via}

    @app.websocket("/ws/whoami")
    async def whoami() -> None:
        await websocket.accept()
        await websocket.send(json.dumps({"id": current_user.id}))

    @app.websocket("/ws/guarded")
    @user_required
    async def guarded() -> None:
        await websocket.accept()
        await websocket.send(json.dumps({"id": current_user.id}))

    return app


def get(app: Quart, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    async def run() -> tuple[int, Any]:
        r = await app.test_client().get(path, headers=headers or {})
        body = await r.get_data()
        return r.status_code, json.loads(body) if r.mimetype == "application/json" else body

    return asyncio.run(run())


def ws(app: Quart, path: str, headers: dict[str, str] | None = None) -> Any:
    """What the websocket route sends, or the handshake's refusal as (status, body)."""

    async def run() -> Any:
        try:
            async with app.test_client().websocket(path, headers=headers or {}) as socket:
                return json.loads(await socket.receive())
        except WebsocketResponseError as refused:
            return refused.response.status_code, json.loads(await refused.response.get_data())

    return asyncio.run(run())


def session_cookie(service: Any) -> tuple[Any, dict[str, str]]:
    s = service.sign_up()
    return s, {"cookie": cookie_header(service.project_id, s.refresh_token, s.access_token)}


def test_team_guards_allow_members_and_refuse_others(service_28, keys: Keys) -> None:
    app = make_app(keys.config)
    s, cookie = session_cookie(service_28)
    status, body = get(app, f"/api/teams/{keys.team_id}/sync")  # signed out
    assert status == 401 and body["code"] == "USER_AUTHENTICATION_REQUIRED"
    assert get(app, f"/teams/{keys.team_id}/settings", {"accept": "text/html"})[0] == 303
    with ServerApp(keys.config) as server:
        team = server.teams.create("Quart team").id
        status, body = get(app, f"/api/orgs/{team}/", cookie)  # not a member
        assert status == 403 and body["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
        server.teams.add_member(team, s.user_id)
        assert get(app, f"/api/orgs/{team}/", cookie) == (200, {"team": team})
        status, body = get(app, f"/api/teams/{keys.team_id}/sync", cookie)  # the wrong team
        assert status == 403 and body["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
        assert get(app, f"/api/teams/{team}/sync", cookie) == (200, {"team": team, "via": "session"})
        status, body = get(app, f"/teams/{team}/settings", {**cookie, "accept": "application/json"})
        assert status == 403 and body["code"] == "TEAM_PERMISSION_REQUIRED"
        assert body["details"]["permission_id"] == "$update_team"
        server.team_permissions.grant(team, s.user_id, "$update_team")
        assert get(app, f"/teams/{team}/settings", cookie) == (200, {"team": team, "may": "update"})


def test_require_permission_allows_holders_and_refuses_others(service_28, keys: Keys) -> None:
    app = make_app(keys.config)
    s, cookie = session_cookie(service_28)
    assert get(app, "/api/docs")[1]["code"] == "USER_AUTHENTICATION_REQUIRED"
    status, body = get(app, "/api/docs", cookie)
    assert status == 403 and body["code"] == "PROJECT_PERMISSION_REQUIRED"
    with ServerApp(keys.config) as server:
        server.project_permissions.grant(s.user_id, HELD)
    assert get(app, "/api/docs", cookie) == (200, {"editor": s.user_id})


def test_api_keys_on_each_guard(keys: Keys) -> None:
    app = make_app(keys.config)
    user, team, revoked = (keys.bearer(v) for v in (keys.user_key, keys.team_key, keys.revoked_key))
    assert get(app, "/api/docs", user) == (200, {"editor": keys.user_id})
    status, body = get(app, "/api/admin-docs", user)  # this guard takes sessions only
    assert status == 401 and body["code"] == "API_KEY_NOT_ACCEPTED"
    assert get(app, f"/api/teams/{keys.team_id}/sync", user) == (200, {"team": keys.team_id, "via": "user_api_key"})
    status, body = get(app, f"/api/teams/{keys.other_team_id}/sync", user)
    assert status == 403 and body["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
    # a team's key: its own team's guard only, and it holds no permission
    assert get(app, f"/api/teams/{keys.team_id}/sync", team) == (200, {"team": keys.team_id, "via": "team_api_key"})
    status, body = get(app, f"/api/teams/{keys.other_team_id}/sync", team)
    assert status == 403 and body["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
    status, body = get(app, "/api/docs", team)
    assert status == 401 and body["code"] == "USER_AUTHENTICATION_REQUIRED"
    status, body = get(app, f"/teams/{keys.team_id}/settings", team)
    assert status == 401 and body["code"] == "API_KEY_NOT_ACCEPTED"
    for path in ("/api/export", "/api/docs", f"/api/teams/{keys.team_id}/sync"):
        status, body = get(app, path, revoked)
        assert status == 401 and body["code"] == "API_KEY_REVOKED"


def test_websocket_routes_get_the_user_of_the_session(local_service) -> None:
    app = make_app(local_service.config)
    s, cookie = session_cookie(local_service)
    assert ws(app, "/ws/whoami") == {"id": None}
    assert ws(app, "/ws/whoami", cookie) == {"id": s.user_id}
    assert ws(app, "/ws/whoami", {"authorization": f"Bearer {s.access_token}"}) == {"id": s.user_id}
    assert ws(app, "/ws/whoami", {**cookie, "origin": "http://localhost"}) == {"id": s.user_id}  # same site
    status, body = ws(app, "/ws/guarded")
    assert status == 401 and body["code"] == "USER_AUTHENTICATION_REQUIRED"
    assert ws(app, "/ws/guarded", cookie) == {"id": s.user_id}


@pytest.mark.parametrize("origin", ["https://evil.example", "null"])
def test_a_cross_site_websocket_of_a_cookie_session_is_refused(local_service, origin: str) -> None:
    app = make_app(local_service.config)
    s, cookie = session_cookie(local_service)
    status, _ = ws(app, "/ws/whoami", {**cookie, "origin": origin})
    assert status == 403
    # a session in a header is not sent by browsers on their own: not checked
    assert ws(app, "/ws/whoami", {"authorization": f"Bearer {s.access_token}", "origin": origin}) == {"id": s.user_id}
    # the opt-in that lets a cross-site websocket in without the user
    anonymous = make_app(local_service.config, websocket_cross_site="anonymous")
    assert ws(anonymous, "/ws/whoami", {**cookie, "origin": origin}) == {"id": None}
