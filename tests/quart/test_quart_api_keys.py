"""authmw_quart views called by machine clients with API keys (API 2.8): a user's key, a team's
key and a revoked key, on a view whose guard accepts keys and on one whose guard does not."""

from __future__ import annotations

import asyncio
from typing import Any

from middleware.keys_support import Keys, keys  # noqa: F401 - the fixture
from quart import Quart

from authmw_quart import AuthMW, current_user, user_required


def make_app(keys: Keys) -> Quart:
    app = Quart(__name__)
    AuthMW(app, config=keys.config)

    @app.get("/api/export")
    @user_required(api_keys=True)
    async def export() -> Any:
        return {"id": current_user.id, "via": current_user.via}

    @app.get("/api/me")
    @user_required
    async def me() -> Any:
        return {"id": current_user.id}

    return app


def test_user_key_team_key_and_revoked_key(keys: Keys) -> None:
    app = make_app(keys)

    async def get(path: str, value: str) -> tuple[int, Any]:
        response = await app.test_client().get(path, headers=keys.bearer(value))
        return response.status_code, await response.get_json()

    async def run() -> None:
        assert await get("/api/export", keys.user_key) == (200, {"id": keys.user_id, "via": "user_api_key"})
        status, body = await get("/api/me", keys.user_key)  # sessions only
        assert status == 401 and body["code"] == "API_KEY_NOT_ACCEPTED"
        status, body = await get("/api/export", keys.team_key)  # a team is not a user
        assert status == 401 and body["code"] == "USER_AUTHENTICATION_REQUIRED"
        status, body = await get("/api/export", keys.revoked_key)
        assert status == 401 and body["code"] == "API_KEY_REVOKED"

    asyncio.run(run())
