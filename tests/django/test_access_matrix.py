"""The conformance matrix of guards: the same five routes on FastAPI, Flask, Django (plain and
with linked Django users), DRF and Quart, against the running local service (API 2.8), called
by every kind of caller. ONE table of expected answers; every framework must give exactly it.

The app accepts API keys and signs in neither anonymous nor restricted users (the defaults):
an anonymous user is nobody to it, a restricted one is refused with its error, and a user's
key counts as its holder's session would. The service, the callers and the apps are made once
per module and shared by every framework (it lives here because Django is configured once
for this folder)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from access_support import PERMISSION, TEAM_PERMISSION, World, django_settings, world  # noqa: F401 - the fixture
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.test import Client, override_settings
from django.urls import path as url
from django.utils.html import escape
from rest_framework.response import Response as DRFResponse
from rest_framework.views import APIView

from authmw import AuthConfig

ROUTES = ("user", "user_keys", "team_member", "team_permission", "project_permission")
CALLERS = (
    "none",
    "cookie",
    "bearer",
    "anonymous",
    "restricted",
    "user_key",
    "team_key",
    "revoked_key",
    "anonymous_key",
    "restricted_key",
)

UAR = (401, "USER_AUTHENTICATION_REQUIRED")
NOT_ACCEPTED = (401, "API_KEY_NOT_ACCEPTED")
RESTRICTED = (401, "RESTRICTED_USER_NOT_ALLOWED")
OK = (200, None)

#: caller -> the answer of each route of ROUTES (status, error code).
EXPECTED: dict[str, tuple[tuple[int, str | None], ...]] = {
    "none": (UAR, UAR, UAR, UAR, UAR),
    "cookie": (OK, OK, OK, OK, OK),
    "bearer": (OK, OK, OK, OK, OK),
    "anonymous": (UAR, UAR, UAR, UAR, UAR),
    "restricted": (RESTRICTED, RESTRICTED, RESTRICTED, RESTRICTED, RESTRICTED),
    "user_key": (NOT_ACCEPTED, OK, OK, OK, OK),
    "team_key": (NOT_ACCEPTED, UAR, OK, (403, "TEAM_PERMISSION_REQUIRED"), UAR),  # a team is not a user
    "revoked_key": ((401, "API_KEY_REVOKED"),) * 5,
    "anonymous_key": (NOT_ACCEPTED, UAR, UAR, UAR, UAR),
    "restricted_key": (NOT_ACCEPTED, RESTRICTED, RESTRICTED, RESTRICTED, RESTRICTED),
}


#: A framework's app as one function: (route path, headers) -> (status, JSON body, location).
Call = Callable[[str, dict[str, str]], tuple[int, Any, str | None]]
#: A page every framework but DRF guards with its plain user guard (answers as a page).
PAGE = "/page/user"
#: caller -> (status, error code, where a page is sent: the handler page and the return path).
PAGE_EXPECTED: dict[str, tuple[int, str | None, str | None]] = {
    "none": (303, None, "sign-in"),
    "anonymous": (303, None, "sign-in"),
    "restricted": (303, None, "onboarding"),
    "cookie": (200, None, None),
    "bearer": (200, None, None),
    "user_key": (401, "API_KEY_NOT_ACCEPTED", None),
    "restricted_key": (401, "API_KEY_NOT_ACCEPTED", None),
}


def _json(headers: Any, body: bytes) -> Any:
    return json.loads(body) if "json" in (headers.get("content-type") or "") else None


def _paths(team_id: str) -> dict[str, str]:
    return {
        "user": "/api/user",
        "user_keys": "/api/user-keys",
        "team_member": f"/api/teams/{team_id}/member",
        "team_permission": f"/api/teams/{team_id}/permission",
        "project_permission": "/api/permission",
    }


def _fastapi(config: AuthConfig) -> Call:
    from fastapi import Depends, FastAPI
    from fastapi.testclient import TestClient

    from authmw_fastapi import Guard, install, require_permission, require_team_member, require_team_permission

    app = FastAPI()
    install(app, config)
    guards = {
        "/api/user": Guard(),
        "/api/user-keys": Guard(api_keys=True),
        "/api/teams/{team_id}/member": require_team_member(api_keys=True),
        "/api/teams/{team_id}/permission": require_team_permission(TEAM_PERMISSION, api_keys=True),
        "/api/permission": require_permission(PERMISSION, api_keys=True),
    }
    for route, guard in guards.items():

        async def view(user: Any = Depends(guard)) -> dict[str, Any]:
            return {"ok": True}

        app.get(route)(view)
    page_guard = Guard(api=None)

    @app.get(PAGE)
    async def page(user: Any = Depends(page_guard)) -> dict[str, Any]:
        return {"ok": True}

    client = TestClient(app, follow_redirects=False)
    client.__enter__()

    def call(path: str, headers: dict[str, str]) -> tuple[int, Any, str | None]:
        r = client.get(path, headers=headers)
        return r.status_code, _json(r.headers, r.content), r.headers.get("location")

    return call


def _flask(config: AuthConfig) -> Call:
    from flask import Flask

    from authmw_flask import AuthMW, require_permission, team_member_required, team_permission_required, user_required

    app = Flask("matrix")
    AuthMW(app, config=config)
    app.add_url_rule("/api/user", "user", user_required(lambda: {"ok": True}))
    app.add_url_rule("/api/user-keys", "user_keys", user_required(api_keys=True)(lambda: {"ok": True}))
    app.add_url_rule(
        "/api/teams/<team_id>/member", "member", team_member_required(api_keys=True)(lambda team_id: {"ok": True})
    )
    app.add_url_rule(
        "/api/teams/<team_id>/permission",
        "team_permission",
        team_permission_required(TEAM_PERMISSION, api_keys=True)(lambda team_id: {"ok": True}),
    )
    app.add_url_rule("/api/permission", "permission", require_permission(PERMISSION, api_keys=True)(lambda: {"ok": True}))
    app.add_url_rule(PAGE, "page", user_required(lambda: "page"))
    client = app.test_client()

    def call(path: str, headers: dict[str, str]) -> tuple[int, Any, str | None]:
        headers = dict(headers)
        for pair in filter(None, headers.pop("cookie", "").split("; ")):  # (the client keeps its own jar)
            name, _, value = pair.partition("=")
            client.set_cookie(name, value)
        r = client.get(path, headers=headers)
        for cookie in list(client._cookies):
            client.delete_cookie(cookie[2], domain=cookie[0], path=cookie[1])
        return r.status_code, _json(r.headers, r.data), r.headers.get("location")

    return call


def _quart(config: AuthConfig) -> Call:
    from quart import Quart

    from authmw_quart import AuthMW, require_permission, team_member_required, team_permission_required, user_required

    app = Quart("matrix")
    AuthMW(app, config=config)

    async def ok(**_: Any) -> dict[str, Any]:
        return {"ok": True}

    app.add_url_rule("/api/user", "user", user_required(ok))
    app.add_url_rule("/api/user-keys", "user_keys", user_required(api_keys=True)(ok))
    app.add_url_rule("/api/teams/<team_id>/member", "member", team_member_required(api_keys=True)(ok))
    app.add_url_rule(
        "/api/teams/<team_id>/permission", "team_permission", team_permission_required(TEAM_PERMISSION, api_keys=True)(ok)
    )
    app.add_url_rule("/api/permission", "permission", require_permission(PERMISSION, api_keys=True)(ok))
    app.add_url_rule(PAGE, "page", user_required(ok))
    loop = asyncio.new_event_loop()

    def call(path: str, headers: dict[str, str]) -> tuple[int, Any, str | None]:
        async def get() -> tuple[int, Any, str | None]:
            response = await app.test_client().get(path, headers=headers)
            return response.status_code, _json(response.headers, await response.get_data()), response.headers.get("location")

        return loop.run_until_complete(get())

    return call


# -- Django: plain views, linked Django users, DRF (one URLconf: this module) ---------------

from authmw_django import (  # noqa: E402
    require_permission as dj_require_permission,
    team_member_required as dj_team_member_required,
    team_permission_required as dj_team_permission_required,
    user_required as dj_user_required,
)
from authmw_django.rest_framework import HasPermission, HasTeamPermission, IsSignedIn, IsTeamMember  # noqa: E402


def _ok(request: HttpRequest, **_: Any) -> JsonResponse:
    return JsonResponse({"ok": True})


def _drf(*permissions: Any) -> Any:
    class View(APIView):
        permission_classes = list(permissions)

        def get(self, request: Any, **_: Any) -> DRFResponse:
            return DRFResponse({"ok": True})

    return View.as_view()


urlpatterns = [
    url("django/api/user", dj_user_required(_ok)),
    url("django/api/user-keys", dj_user_required(api_keys=True)(_ok)),
    url("django/api/teams/<team_id>/member", dj_team_member_required(api_keys=True)(_ok)),
    url("django/api/teams/<team_id>/permission", dj_team_permission_required(TEAM_PERMISSION, api_keys=True)(_ok)),
    url("django/api/permission", dj_require_permission(PERMISSION, api_keys=True)(_ok)),
    url("django/page/user", dj_user_required(_ok)),
    url("drf/api/user", _drf(IsSignedIn)),
    url("drf/api/user-keys", _drf(IsSignedIn.of(api_keys=True))),
    url("drf/api/teams/<team_id>/member", _drf(IsTeamMember.of(api_keys=True))),
    url("drf/api/teams/<team_id>/permission", _drf(HasTeamPermission.of(TEAM_PERMISSION, api_keys=True))),
    url("drf/api/permission", _drf(HasPermission.of(PERMISSION, api_keys=True))),
    url("django/teams/<team_id>/page", dj_team_member_required(_ok)),
]


def _forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A 403 page that shows the refusal's text, as an app's 403.html with ``{{ exception }}`` does."""
    return HttpResponse(f"<p>{escape(str(exception))}</p>", status=403)


handler403 = _forbidden

def _django(config: AuthConfig, prefix: str, **options: Any) -> Call:
    settings = django_settings(config, __name__, **options)
    client = Client()
    with override_settings(**settings):
        client.handler.load_middleware()

    def call(path: str, headers: dict[str, str]) -> tuple[int, Any, str | None]:
        with override_settings(**settings):
            r = client.get(f"/{prefix}{path}", headers=headers)
        client.cookies.clear()  # (a linked user's Django session must not carry to the next caller)
        return r.status_code, _json(r.headers, r.content), r.headers.get("location")

    return call


FRAMEWORKS: dict[str, Callable[[AuthConfig], Call]] = {
    "fastapi": _fastapi,
    "flask": _flask,
    "quart": _quart,
    "django": lambda config: _django(config, "django"),
    "django_users": lambda config: _django(config, "django", DJANGO_USERS=True),
    "drf": lambda config: _django(config, "drf"),
}


@pytest.fixture(scope="module")
def answers(world: World, database: None) -> dict[str, dict[tuple[str, str], Any]]:
    """Every framework's answer to every caller on every route, asked once; and the page's
    answers (as a browser asks: HTML first) of every framework with pages."""
    paths = _paths(world.team_id)
    found: dict[str, dict[tuple[str, str], Any]] = {}
    for name, make in FRAMEWORKS.items():
        call = make(world.config)
        table = found[name] = {}
        for caller in CALLERS:
            for route in ROUTES:
                status, body, _ = call(paths[route], {**world.headers[caller], "accept": "application/json"})
                code = body.get("code") if isinstance(body, dict) and status != 200 else None
                table[caller, route] = (status, code)
        if name == "drf":
            continue  # (an API framework: no pages)
        for caller in PAGE_EXPECTED:
            status, body, location = call(PAGE, {**world.headers[caller], "accept": "text/html,*/*;q=0.8"})
            code = body.get("code") if isinstance(body, dict) and status != 200 else None
            table[caller, "page"] = (status, code, location)
    return found


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_every_framework_gives_the_one_table(answers: Any, framework: str) -> None:
    expected = {(caller, route): EXPECTED[caller][i] for caller in CALLERS for i, route in enumerate(ROUTES)}
    wrong = {cell: (answers[framework][cell], want) for cell, want in expected.items() if answers[framework][cell] != want}
    assert wrong == {}, f"{framework}: (got, expected) by (caller, route): {wrong}"


@pytest.mark.parametrize("framework", [name for name in FRAMEWORKS if name != "drf"])
def test_every_framework_sends_pages_to_the_same_place(answers: Any, framework: str) -> None:
    here = "/django" + PAGE if framework.startswith("django") else PAGE
    wrong = {}
    for caller, (status, code, page) in PAGE_EXPECTED.items():
        location = None if page is None else f"/handler/{page}?after_auth_return_to={quote(here, safe='')}"
        if answers[framework][caller, "page"] != (status, code, location):
            wrong[caller] = (answers[framework][caller, "page"], (status, code, location))
    assert wrong == {}, f"{framework}: (got, expected) by caller: {wrong}"


def test_every_framework_refuses_a_team_id_that_is_only_almost_a_uuid(world: World, database: None) -> None:
    """A team id with a line break after the UUID (``%0A`` in the path) passed the UUID check
    (``$`` matches before a final newline) and reached the service, whose SCHEMA_ERROR became
    a 500 on the permission routes. It names no team: the same 403 as any unknown team. The
    control is the table above (the same caller with the team's own id gets 200)."""
    almost = _paths(world.team_id + "\n")
    wrong = {}
    for name, make in FRAMEWORKS.items():
        call = make(world.config)
        for route, code in (("team_member", "TEAM_MEMBERSHIP_NOT_FOUND"), ("team_permission", "TEAM_PERMISSION_REQUIRED")):
            status, body, _ = call(almost[route].replace("\n", "%0A"), {**world.headers["cookie"], "accept": "application/json"})
            got = (status, body.get("code") if isinstance(body, dict) else None)
            if got != (403, code):
                wrong[name, route] = got
        status, body, _ = call(_paths(world.team_id)["team_permission"], {**world.headers["cookie"], "accept": "application/json"})
        if status != 200:
            wrong[name, "control"] = (status, body)
    assert wrong == {}, wrong



#: A sentence of a crafted link, put where a team id goes (``/teams/{id}/page``).
LURE = "Your account is locked. Call 1-555-0100 now"


def test_a_pages_403_never_repeats_the_team_id_of_the_url(world: World, database: None) -> None:
    """Flask and Quart answered a page refused for want of a membership with ``abort(403,
    description=...)`` of the error's message, "User <id> is not found in team <the URL's
    text>", and Django raised PermissionDenied with it (shown by any 403.html with
    ``{{ exception }}``): a crafted link put its own sentence on the site. The page says fixed
    words; the control is a member's own team page."""
    from flask import Flask
    from quart import Quart

    from authmw_flask import AuthMW as FlaskAuthMW, team_member_required as flask_team
    from authmw_quart import AuthMW as QuartAuthMW, team_member_required as quart_team

    flask = Flask("pages")
    FlaskAuthMW(flask, config=world.config)
    flask.add_url_rule("/teams/<team_id>/page", "page", flask_team(lambda team_id: "team page"))
    quart = Quart("pages")
    QuartAuthMW(quart, config=world.config)

    async def team_page(team_id: str) -> str:
        return "team page"

    quart.add_url_rule("/teams/<team_id>/page", "page", quart_team(team_page))
    loop = asyncio.new_event_loop()

    def pages(path: str) -> dict[str, tuple[int, str]]:
        headers = {**world.headers["cookie"], "accept": "text/html"}
        client = flask.test_client()
        for pair in filter(None, headers.pop("cookie", "").split("; ")):
            name, _, value = pair.partition("=")
            client.set_cookie(name, value)
        r = client.get(path, headers=headers)
        found = {"flask": (r.status_code, r.get_data(as_text=True))}

        async def get() -> tuple[int, str]:
            answer = await quart.test_client().get(path, headers={**world.headers["cookie"], "accept": "text/html"})
            return answer.status_code, (await answer.get_data()).decode()

        found["quart"] = loop.run_until_complete(get())
        with override_settings(**django_settings(world.config, __name__)):
            r = Client().get("/django" + path, headers={**world.headers["cookie"], "accept": "text/html"})
        found["django"] = (r.status_code, r.content.decode())
        return found

    for name, (status, body) in pages("/teams/" + quote(LURE) + "/page").items():
        assert status == 403, (name, body)
        assert "1-555" not in body and "locked" not in body, (name, body)
        assert "is not found in team" not in body, (name, body)  # nor whom the site refused
        assert "You are not a member of the team this page belongs to." in body, (name, body)
    for name, (status, body) in pages(f"/teams/{world.team_id}/page").items():
        assert status == 200, (name, status, body)
