"""API 2.8 project permissions and their definitions in the local service (service-api B,
section 9, and the project_permission.* webhooks of 13.2), over HTTP."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import Api, assert_known_error
from .test_api_keys import new_project

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def define(api: Api, permission_id: str, **body: Any) -> httpx.Response:
    return api.call("POST", "/project-permission-definitions", "admin", json={"id": permission_id, **body})


def grant(api: Api, user_id: str, permission_id: str) -> httpx.Response:
    return api.call("POST", f"/project-permissions/{user_id}/{permission_id}", "server", json={})


def held(api: Api, user: dict[str, str], recursive: bool = False) -> list[dict[str, str]]:
    query = {"user_id": "me", "recursive": "true" if recursive else "false"}
    response = api.call("GET", "/project-permissions", token=user["access_token"], params=query)
    assert response.status_code == 200, response.text
    items: list[dict[str, str]] = response.json()["items"]
    return items


def test_definitions_are_created_listed_renamed_and_deleted(api_28: Api) -> None:
    api = new_project(api_28)
    assert api.call("GET", "/project-permission-definitions", "admin").json() == {"is_paginated": False, "items": []}
    assert define(api, "p1").json() == {"contained_permission_ids": [], "id": "p1"}
    created = define(api, "p2", description="Two", contained_permission_ids=["p1"])
    assert created.status_code == 201
    assert created.json() == {"contained_permission_ids": ["p1"], "description": "Two", "id": "p2"}
    define(api, "p3", contained_permission_ids=["p2"])
    listed = api.call("GET", "/project-permission-definitions", "admin").json()["items"]
    assert [d["id"] for d in listed] == ["p1", "p2", "p3"]
    # a rename carries over to grants and to definitions containing it
    user = api.sign_up()
    assert grant(api, user["user_id"], "p1").status_code == 201
    renamed = api.call("PATCH", "/project-permission-definitions/p1", "admin", json={"id": "p0"})
    assert renamed.json() == {"contained_permission_ids": [], "id": "p0"}
    assert [p["id"] for p in held(api, user)] == ["p0"]
    by_id = {d["id"]: d for d in api.call("GET", "/project-permission-definitions", "admin").json()["items"]}
    assert by_id["p2"]["contained_permission_ids"] == ["p0"]
    # a delete removes grants and containments
    assert api.call("DELETE", "/project-permission-definitions/p0", "admin").json() == {"success": True}
    assert held(api, user) == []
    by_id = {d["id"]: d for d in api.call("GET", "/project-permission-definitions", "admin").json()["items"]}
    assert by_id["p2"]["contained_permission_ids"] == [] and "p0" not in by_id
    # team definitions do not show project ones, nor the other way round
    team_ids = [d["id"] for d in api.call("GET", "/team-permission-definitions", "admin").json()["items"]]
    assert "p2" not in team_ids and "team_admin" in team_ids
    assert_known_error(api.call("DELETE", "/project-permission-definitions/team_admin", "admin"), "PERMISSION_NOT_FOUND", 404)
    assert_known_error(api.call("DELETE", "/team-permission-definitions/p2", "admin"), "PERMISSION_NOT_FOUND", 404)


def test_ids_are_shared_between_team_and_project_definitions(api_28: Api) -> None:
    api = new_project(api_28)
    define(api, "shared_id")
    team = api.call("POST", "/team-permission-definitions", "admin", json={"id": "shared_id"})
    body = assert_known_error(team, "PERMISSION_ID_ALREADY_EXISTS", 400)
    assert body["details"] == {"permission_id": "shared_id"}
    assert body["error"] == 'Permission with ID "shared_id" already exists. Choose a different ID.'
    assert_known_error(define(api, "team_member"), "PERMISSION_ID_ALREADY_EXISTS", 400)
    define(api, "other")
    rename = api.call("PATCH", "/project-permission-definitions/other", "admin", json={"id": "shared_id"})
    assert_known_error(rename, "PERMISSION_ID_ALREADY_EXISTS", 400)
    team_dup = api.call("POST", "/team-permission-definitions", "admin", json={"id": "team_member"})
    assert_known_error(team_dup, "PERMISSION_ID_ALREADY_EXISTS", 400)


def test_contained_permissions_must_be_project_definitions(api_28: Api) -> None:
    api = new_project(api_28)
    missing = assert_known_error(define(api, "p1", contained_permission_ids=["p2"]), "CONTAINED_PERMISSION_NOT_FOUND", 400)
    assert missing["details"] == {"permission_id": "p2"}
    for team_id in ("team_member", "$read_members"):
        refused = define(api, "p1", contained_permission_ids=[team_id])
        assert_known_error(refused, "CONTAINED_PERMISSION_NOT_FOUND", 400)
    define(api, "p1")
    update = api.call("PATCH", "/project-permission-definitions/p1", "admin", json={"contained_permission_ids": ["nope"]})
    assert_known_error(update, "CONTAINED_PERMISSION_NOT_FOUND", 400)
    # a team definition may not contain a project one either
    team = api.call("POST", "/team-permission-definitions", "admin", json={"id": "t1", "contained_permission_ids": ["p1"]})
    assert_known_error(team, "CONTAINED_PERMISSION_NOT_FOUND", 400)


def test_grants_and_revocations(api_28: Api) -> None:
    api = new_project(api_28)
    define(api, "child", description="Child permission")
    define(api, "parent", contained_permission_ids=["child"])
    user, other = api.sign_up(), api.sign_up()
    assert held(api, user) == []
    first = grant(api, user["user_id"], "parent")
    assert first.status_code == 201 and first.json() == {"id": "parent", "user_id": user["user_id"]}
    assert grant(api, user["user_id"], "parent").status_code == 201  # idempotent
    grant(api, other["user_id"], "child")
    assert held(api, user) == [{"id": "parent", "user_id": user["user_id"]}]
    assert [p["id"] for p in held(api, user, recursive=True)] == ["child", "parent"]
    everyone = api.call("GET", "/project-permissions", "server").json()["items"]
    assert everyone == sorted(everyone, key=lambda p: (p["user_id"], p["id"])) and len(everyone) == 2
    only_child = api.call("GET", "/project-permissions", "server", params={"permission_id": "child", "recursive": "true"})
    assert {p["user_id"] for p in only_child.json()["items"]} == {user["user_id"], other["user_id"]}
    revoked = api.call("DELETE", f"/project-permissions/{user['user_id']}/parent", "server")
    assert revoked.json() == {"success": True}
    assert held(api, user) == []
    again = api.call("DELETE", f"/project-permissions/{user['user_id']}/parent", "server")
    assert_known_error(again, "PERMISSION_NOT_FOUND", 404)


def test_grant_errors(api_28: Api) -> None:
    api = new_project(api_28)
    user = api.sign_up()
    unknown = assert_known_error(grant(api, user["user_id"], "does_not_exist"), "PERMISSION_NOT_FOUND", 404)
    assert unknown["error"] == 'Permission "does_not_exist" not found. Make sure you created it on the dashboard.'
    scope = assert_known_error(grant(api, user["user_id"], "team_admin"), "WRONG_PERMISSION_SCOPE", 404)
    assert scope["details"] == {"permission_id": "team_admin", "expected_scope": "project", "actual_scope": "team"}
    assert scope["error"] == (
        'Permission "team_admin" not found. (It was found for a different scope "team", but scope "project" was expected.)'
    )
    assert_known_error(grant(api, user["user_id"], "$update_team"), "PERMISSION_NOT_FOUND", 404)
    assert_known_error(grant(api, user["user_id"], "$made_up"), "SCHEMA_ERROR", 400)
    define(api, "p")
    assert_known_error(grant(api, UNKNOWN_ID, "p"), "USER_NOT_FOUND", 404)
    # a project permission granted as a team permission is the mirror error
    team = api.call("POST", "/teams", "server", json={"display_name": "T", "creator_user_id": user["user_id"]}).json()
    as_team = api.call("POST", f"/team-permissions/{team['id']}/{user['user_id']}/p", "server", json={})
    details = assert_known_error(as_team, "WRONG_PERMISSION_SCOPE", 404)["details"]
    assert details == {"permission_id": "p", "expected_scope": "team", "actual_scope": "project"}
    client = api.call("POST", f"/project-permissions/{user['user_id']}/p", token=user["access_token"], json={})
    assert_known_error(client, "INSUFFICIENT_ACCESS_TYPE", 401)


def test_the_client_lists_only_its_own_permissions(api_28: Api) -> None:
    """The attack: a user reading another user's grants through the client tier."""
    api = new_project(api_28)
    define(api, "secret_role")
    victim, attacker = api.sign_up(), api.sign_up()
    grant(api, victim["user_id"], "secret_role")
    text = 'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user'
    for params in ({"user_id": victim["user_id"]}, {}):
        refused = api.call("GET", "/project-permissions", token=attacker["access_token"], params=params)
        assert refused.status_code == 403 and refused.text == text
    own = api.call("GET", "/project-permissions", token=victim["access_token"], params={"user_id": victim["user_id"]})
    assert own.json()["items"] == [{"id": "secret_role", "user_id": victim["user_id"]}]  # the control


def test_user_default_permissions_are_granted_at_sign_up(api_28: Api) -> None:
    api = new_project(api_28)
    define(api, "reader")
    bad = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"user_default_permissions": [{"id": "team_admin"}]}})
    assert bad.status_code == 400
    api.set_config(user_default_permissions=[{"id": "reader"}])
    config = api.call("GET", "/internal/projects/current", "admin").json()["config"]
    assert config["user_default_permissions"] == [{"id": "reader"}]
    user = api.sign_up()
    assert held(api, user) == [{"id": "reader", "user_id": user["user_id"]}]


def test_grants_and_revocations_send_webhooks(api_28: Api) -> None:
    api = new_project(api_28)
    endpoint = api.call("POST", "/internal/webhook-endpoints", "admin", json={"url": "http://127.0.0.1:9/hook"})
    assert endpoint.status_code == 201, endpoint.text
    define(api, "test_permission")
    api.set_config(user_default_permissions=[{"id": "test_permission"}])
    user = api.sign_up()  # default grants send no project_permission event
    api.call("DELETE", f"/project-permissions/{user['user_id']}/test_permission", "server")
    grant(api, user["user_id"], "test_permission")
    messages = api.http.get("/dev/webhook-messages", params={"project_id": api.project_id}).json()["items"]
    events = [m["payload"] for m in reversed(messages) if m["type"].startswith("project_permission.")]
    data = {"id": "test_permission", "user_id": user["user_id"]}
    assert events == [
        {"type": "project_permission.deleted", "data": data},
        {"type": "project_permission.created", "data": data},
    ]


def test_api_2_7_has_no_project_permissions(api_27: Api) -> None:
    user = api_27.sign_up()
    for method, path, tier in (
        ("GET", "/project-permission-definitions", "admin"),
        ("POST", "/project-permission-definitions", "admin"),
        ("GET", "/project-permissions", "server"),
        ("POST", f"/project-permissions/{user['user_id']}/x", "server"),
        ("DELETE", f"/project-permissions/{user['user_id']}/x", "server"),
    ):
        response = api_27.call(method, path, tier, json={})
        assert response.status_code == 404 and "this page does not exist" in response.text, (method, path)
    # 2.7's duplicate team definition keeps its plain error
    api_27.call("POST", "/team-permission-definitions", "admin", json={"id": "dup27"})
    again = api_27.call("POST", "/team-permission-definitions", "admin", json={"id": "dup27"})
    assert again.status_code == 400 and "x-stack-known-error" not in again.headers
    api_27.call("DELETE", "/team-permission-definitions/dup27", "admin")
