"""Attack tests of issue 38 (items 1, 2, 3, 6) and the restricted user's page (issue 40), each
with a control showing the legitimate call still works. They use only names every version
of the adapters has, so they can be run against an older tree to see them fail there."""

from __future__ import annotations

import asyncio
from typing import Any

from access_support import TEAM_PERMISSION, World, django_settings, world  # noqa: F401 - the fixture
from django.http import HttpRequest, JsonResponse
from django.test import Client, override_settings
from django.urls import path as url
from rest_framework.response import Response as DRFResponse
from rest_framework.views import APIView

from authmw_django import user_required as dj_user_required
from authmw_django.rest_framework import IsSignedIn


def _bearer(world: World, caller: str) -> dict[str, str]:
    return world.headers[caller]


# -- item 1: an anonymous or restricted user's own key is not a full user -----------------------


def test_an_anonymous_or_restricted_users_key_gets_what_their_session_gets(world: World) -> None:
    from fastapi import Depends, FastAPI
    from fastapi.testclient import TestClient

    from authmw_fastapi import Guard, install

    app = FastAPI()
    install(app, world.config)  # allow_anonymous / allow_restricted off (the defaults)

    @app.get("/api/export")
    async def export(user: Any = Depends(Guard(api_keys=True))) -> dict[str, Any]:
        return {"id": user.id}

    client = TestClient(app)
    assert client.get("/api/export", headers=world.headers["anonymous"]).status_code == 401
    assert client.get("/api/export", headers=world.headers["anonymous_key"]).status_code == 401  # was 200
    r = client.get("/api/export", headers=world.headers["restricted_key"])
    assert r.status_code == 401 and r.json()["code"] == "RESTRICTED_USER_NOT_ALLOWED"  # was 200
    assert client.get("/api/export", headers=world.headers["user_key"]).status_code == 200  # control


# -- item 2: DRF's IsSignedIn admitted a user's key on a route that never opted in --------------


class _DRFMe(APIView):
    permission_classes = [IsSignedIn]

    def get(self, request: Any) -> DRFResponse:
        return DRFResponse({"ok": True})


def _ok(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})


urlpatterns = [url("drf/api/me", _DRFMe.as_view()), url("api/keys", dj_user_required(api_keys=True)(_ok))]


def _django(world: World, **options: Any) -> tuple[Client, dict[str, Any]]:
    settings = django_settings(world.config, __name__, **options)
    client = Client()
    with override_settings(**settings):
        client.handler.load_middleware()
    return client, settings


def test_drf_refuses_a_key_on_a_view_that_did_not_opt_in(world: World) -> None:
    client, settings = _django(world)
    with override_settings(**settings):
        r = client.get("/drf/api/me", headers=world.headers["user_key"])
        assert r.status_code == 401 and r.json()["code"] == "API_KEY_NOT_ACCEPTED"  # was 200
        assert client.get("/drf/api/me", headers=world.headers["bearer"]).status_code == 200  # control


# -- item 3: DJANGO_USERS + ACCEPT_API_KEYS answered 500 to every request with a user's key ----------


def test_linked_django_users_take_a_users_key(world: World, database: None) -> None:
    client, settings = _django(world, DJANGO_USERS=True)
    with override_settings(**settings):
        assert client.get("/api/keys", headers=world.headers["user_key"]).status_code == 200  # was 500
        assert client.get("/api/keys", headers=world.headers["bearer"]).status_code == 200  # control
        assert client.get("/api/keys", headers=world.headers["none"]).status_code == 401


# -- item 6: Quart answered a page's 403 with JSON; FastAPI's api_paths ignored the setting -------


def test_quart_answers_a_pages_403_as_flask_does(world: World) -> None:
    from quart import Quart

    from authmw_quart import AuthMW, team_permission_required

    app = Quart("attack")
    AuthMW(app, config=world.config)

    @app.route("/teams/<team_id>/settings")
    @team_permission_required(TEAM_PERMISSION, api_keys=True)
    async def settings_page(team_id: str) -> str:
        return "settings"

    async def get(caller: str) -> Any:
        headers = {**world.headers[caller], "accept": "text/html"}
        return await app.test_client().get(f"/teams/{world.team_id}/settings", headers=headers)

    async def run() -> None:
        refused = await get("team_key")  # a known caller lacking the permission, on a page
        assert refused.status_code == 403
        assert "text/html" in refused.headers["content-type"]  # was application/json
        assert (await get("bearer")).status_code == 200  # control

    asyncio.run(run())


def test_fastapi_reads_api_paths_from_the_setting(world: World) -> None:
    from fastapi import Depends, FastAPI
    from fastapi.testclient import TestClient

    from authmw_fastapi import Guard, install

    app = FastAPI()
    install(app, world.config, api_paths=("/v2/",))
    guard = Guard(api=None)

    @app.get("/v2/me")
    async def me(user: Any = Depends(guard)) -> dict[str, Any]:
        return {"id": user.id}

    @app.get("/account")
    async def account(user: Any = Depends(guard)) -> dict[str, Any]:
        return {"id": user.id}

    client = TestClient(app, follow_redirects=False)
    browser = {"accept": "text/html"}
    r = client.get("/v2/me", headers=browser)
    assert r.status_code == 401 and r.json()["code"] == "USER_AUTHENTICATION_REQUIRED"  # was a 303
    assert client.get("/account", headers=browser).status_code == 303  # control: a page
    assert client.get("/v2/me", headers={**browser, **world.headers["bearer"]}).status_code == 200


# -- issue 40: a restricted user's page goes to the onboarding page, an API answers 401 -----------


def test_a_restricted_user_is_sent_to_verify_their_email(world: World) -> None:
    from flask import Flask

    from authmw_flask import AuthMW, user_required

    app = Flask("restricted")
    AuthMW(app, config=world.config)
    app.add_url_rule("/reports", "reports", user_required(lambda: "reports"))
    app.add_url_rule("/api/reports", "api_reports", user_required(lambda: {"ok": True}))
    client = app.test_client()
    page = {**world.headers["restricted"], "accept": "text/html"}
    r = client.get("/reports?tab=2", headers=page)
    assert r.status_code == 303
    assert r.headers["location"] == "/handler/onboarding?after_auth_return_to=%2Freports%3Ftab%3D2"
    r = client.get("/api/reports", headers=world.headers["restricted"])
    assert r.status_code == 401 and r.get_json()["code"] == "RESTRICTED_USER_NOT_ALLOWED"
    r = client.get("/reports", headers={**world.headers["none"], "accept": "text/html"})  # control: nobody
    assert r.status_code == 303 and r.headers["location"].startswith("/handler/sign-in")
    assert client.get("/reports", headers={**world.headers["bearer"], "accept": "text/html"}).status_code == 200
