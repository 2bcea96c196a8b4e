"""FastAPI routes called by machine clients with API keys (API 2.8): a user's key, a team's key,
a revoked key; routes that accept keys and routes that do not; an app that does not accept
them; project permissions with require_permission."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI, Request
from starlette.testclient import TestClient

from authmw import AuthConfig
from authmw.middleware import AnonymousUser, AuthUser
from authmw_fastapi import CurrentUser, Guard, install, require_permission, require_team_member

from .keys_support import Keys, keys  # noqa: F401 - the fixture

accepts_keys = Guard(api_keys=True)


def make_app(config: AuthConfig, held: str, missing: str) -> FastAPI:
    app = FastAPI()
    install(app, config)

    @app.get("/api/export")
    async def export(user: Any = Depends(accepts_keys)) -> dict[str, Any]:  # noqa: B008
        return {"id": user.id, "via": user.via}

    @app.get("/api/me")
    async def me(user: CurrentUser) -> dict[str, Any]:
        return {"id": user.id}

    @app.get("/api/teams/{team_id}/sync")
    async def sync(team_id: str, user: Any = Depends(require_team_member(api_keys=True))) -> dict[str, Any]:  # noqa: B008
        return {"team": team_id, "via": user.via}

    @app.get("/api/docs")
    async def docs(user: Any = Depends(require_permission(held, api_keys=True))) -> dict[str, Any]:  # noqa: B008
        return {"editor": user.id}

    @app.get("/api/admin-docs")
    async def admin_docs(user: Any = Depends(require_permission(missing, api_keys=True))) -> Any:  # noqa: B008
        return {"editor": user.id}

    @app.get("/who")
    async def who(request: Request) -> dict[str, Any]:
        user = request.user
        return {"type": type(user).__name__, "authenticated": user.is_authenticated, "via": user.via}

    return app


def client_of(keys: Keys, config: AuthConfig | None = None) -> TestClient:
    return TestClient(make_app(config or keys.config, keys.permission_id, keys.missing_permission_id))


def test_a_user_key_is_its_user_where_the_route_accepts_keys(keys: Keys) -> None:
    with client_of(keys) as web:
        ok = web.get("/api/export", headers=keys.bearer(keys.user_key))
        assert ok.status_code == 200, ok.text
        assert ok.json() == {"id": keys.user_id, "via": "user_api_key"}
        assert web.get("/api/docs", headers=keys.bearer(keys.user_key)).json() == {"editor": keys.user_id}
        lacking = web.get("/api/admin-docs", headers=keys.bearer(keys.user_key))
        assert lacking.status_code == 403 and lacking.json()["code"] == "PROJECT_PERMISSION_REQUIRED"
        # a route that takes sessions only refuses the key, naming why
        refused = web.get("/api/me", headers=keys.bearer(keys.user_key))
        assert refused.status_code == 401 and refused.json()["code"] == "API_KEY_NOT_ACCEPTED"
        assert refused.headers["x-stack-known-error"] == "API_KEY_NOT_ACCEPTED"


def test_a_team_key_is_no_user_but_passes_its_own_teams_guard(keys: Keys) -> None:
    with client_of(keys) as web:
        headers = keys.bearer(keys.team_key)
        own = web.get(f"/api/teams/{keys.team_id}/sync", headers=headers)
        assert own.status_code == 200 and own.json() == {"team": keys.team_id, "via": "team_api_key"}
        other = web.get(f"/api/teams/{keys.other_team_id}/sync", headers=headers)
        assert other.status_code == 403 and other.json()["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
        not_a_user = web.get("/api/export", headers=headers)
        assert not_a_user.status_code == 401 and not_a_user.json()["code"] == "USER_AUTHENTICATION_REQUIRED"
        who = web.get("/who", headers=headers).json()
        assert who == {"type": "ApiKeyTeam", "authenticated": False, "via": "team_api_key"}
        # the key's own user is a member of that team too: its user key passes as the member
        member = web.get(f"/api/teams/{keys.team_id}/sync", headers=keys.bearer(keys.user_key))
        assert member.json() == {"team": keys.team_id, "via": "user_api_key"}


def test_a_revoked_or_made_up_key_is_refused(keys: Keys) -> None:
    """The attack: a key that was revoked, and a made-up one with the right shape and checksum."""
    from authmw_local.routes.api_keys import make_api_key

    with client_of(keys) as web:
        for _ in range(2):  # the second time from the refused-key memory
            revoked = web.get("/api/export", headers=keys.bearer(keys.revoked_key))
            assert revoked.status_code == 401 and revoked.json()["code"] == "API_KEY_REVOKED"
            assert revoked.headers["www-authenticate"].startswith('Bearer realm="authmw", error="invalid_token"')
            assert keys.revoked_key not in revoked.text
        made_up = make_api_key("00000000-0000-4000-8000-000000000000", "user")
        forged = web.get("/api/export", headers=keys.bearer(made_up))
        assert forged.status_code == 401 and forged.json()["code"] == "API_KEY_NOT_FOUND"
        assert web.get("/api/export", headers=keys.bearer(keys.user_key)).status_code == 200  # the control


def test_an_app_that_does_not_accept_keys_refuses_them(keys: Keys) -> None:
    closed = keys.config.with_(accept_api_keys=False)
    with client_of(keys, closed) as web:
        refused = web.get("/api/export", headers=keys.bearer(keys.user_key))
        assert refused.status_code == 401 and refused.json()["code"] == "API_KEY_NOT_ACCEPTED"
        assert "does not accept API keys" in refused.json()["error"]


def test_request_user_of_a_key(keys: Keys) -> None:
    with client_of(keys) as web:
        who = web.get("/who", headers=keys.bearer(keys.user_key)).json()
        assert who == {"type": "ApiKeyUser", "authenticated": True, "via": "user_api_key"}
        assert web.get("/who").json() == {"type": "AnonymousUser", "authenticated": False, "via": None}
    assert AuthUser.via == "session" and AnonymousUser.via is None


def test_no_log_line_shows_a_key(keys: Keys, caplog: Any) -> None:
    """Everything authmw and httpx log at DEBUG while keys are checked, accepted and refused."""
    import logging

    from authmw import ServerApp

    caplog.set_level(logging.DEBUG)
    with ServerApp(keys.config) as server:
        assert server.get_user(api_key=keys.user_key) is not None
        assert server.get_user(api_key=keys.revoked_key) is None
    with client_of(keys) as web:
        for value in (keys.user_key, keys.team_key, keys.revoked_key):
            web.get("/api/export", headers=keys.bearer(value))
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert caplog.records, "nothing was logged: the test would prove nothing"
    for value in (keys.user_key, keys.team_key, keys.revoked_key):
        assert value not in text and value[3:48] not in text  # nor its secret part
