"""Flask views called by machine clients with API keys (API 2.8): a user's key, a team's key,
a revoked key; views whose guard accepts keys and views whose guard does not."""

from __future__ import annotations

from typing import Any

from flask import Flask
from middleware.keys_support import HELD, MISSING, Keys, keys  # noqa: F401 - the fixture

from authmw import AuthConfig
from authmw_flask import AuthMW, current_user, require_permission, team_member_required, user_required


def make_app(config: AuthConfig) -> Flask:
    app = Flask(__name__)
    app.config["TESTING"] = True
    AuthMW(app, config=config)

    @app.get("/api/export")
    @user_required(api_keys=True)
    def export() -> Any:
        return {"id": current_user.id, "via": current_user.via}

    @app.get("/api/me")
    @user_required
    def me() -> Any:
        return {"id": current_user.id}

    @app.get("/api/teams/<team_id>/sync")
    @team_member_required(api_keys=True)
    def sync(team_id: str) -> Any:
        return {"team": team_id, "via": current_user.via}

    @app.get("/api/docs")
    @require_permission(HELD, api_keys=True)
    async def docs() -> Any:
        return {"editor": current_user.id}

    @app.get("/api/admin-docs")
    @require_permission(MISSING, api_keys=True)
    def admin_docs() -> Any:
        return {"editor": current_user.id}

    return app


def test_user_key_team_key_and_revoked_key(keys: Keys) -> None:
    web = make_app(keys.config).test_client()
    user, team, revoked = (keys.bearer(v) for v in (keys.user_key, keys.team_key, keys.revoked_key))
    # a user's key is its user where the guard accepts keys
    assert web.get("/api/export", headers=user).json == {"id": keys.user_id, "via": "user_api_key"}
    assert web.get("/api/docs", headers=user).json == {"editor": keys.user_id}
    lacking = web.get("/api/admin-docs", headers=user)
    assert lacking.status_code == 403 and lacking.json["code"] == "PROJECT_PERMISSION_REQUIRED"
    refused = web.get("/api/me", headers=user)
    assert refused.status_code == 401 and refused.json["code"] == "API_KEY_NOT_ACCEPTED"
    # a team's key: its own team's guard only
    assert web.get(f"/api/teams/{keys.team_id}/sync", headers=team).json == {"team": keys.team_id, "via": "team_api_key"}
    other = web.get(f"/api/teams/{keys.other_team_id}/sync", headers=team)
    assert other.status_code == 403 and other.json["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
    not_a_user = web.get("/api/export", headers=team)
    assert not_a_user.status_code == 401 and not_a_user.json["code"] == "USER_AUTHENTICATION_REQUIRED"
    # a revoked key: refused by the middleware before any view
    for path in ("/api/export", "/api/me", f"/api/teams/{keys.team_id}/sync"):
        answer = web.get(path, headers=revoked)
        assert answer.status_code == 401 and answer.json["code"] == "API_KEY_REVOKED"
