"""API 2.8 user and team API keys in the local service (service-api B8), over HTTP.

Each test works in a project of its own, made through the 2.8 API (so its team definitions are
2.8's team_admin / team_member) with both kinds of keys enabled.
"""

from __future__ import annotations

import re
import time
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from authmw.dev import Clock
from authmw.keyformat import parse_api_key
from authmw_local.bootstrap import ProjectKeys

from .conftest import Api, assert_known_error

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
KEY_SHAPE = re.compile(r"^sk_[0-9a-hjkmnp-tv-z]{45}[0-9a-f]{32}(user|team)1574ck4u7h[0-9a-f]{8}$")
KEY_FIELDS = {"created_at_millis", "description", "id", "is_public", "type", "value"}


def new_project(api_28: Api, **config: Any) -> Api:
    """A project of its own, made by a user of `internal` (API 2.8), with keys of every tier."""
    service = api_28.running
    assert service is not None
    internal = Api.of(service, service.bootstrap.internal)
    owner = internal.sign_up()
    project = internal.create_owned_project(owner).json()
    headers = {
        "x-stack-project-id": project["id"],
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": owner["access_token"],
    }
    body = {
        "description": "tests",
        "expires_at_millis": int(time.time() * 1000) + 3_600_000,
        "has_publishable_client_key": True,
        "has_secret_server_key": True,
        "has_super_secret_admin_key": True,
    }
    keys = api_28.http.post("/api/v1/internal/api-keys", headers=headers, json=body)
    assert keys.status_code == 200, keys.text
    made = keys.json()
    api = Api(
        service.url,
        ProjectKeys(project["id"], made["publishable_client_key"], made["secret_server_key"], made["super_secret_admin_key"]),
        service.data_dir,
        "2.8",
    )
    api.running = service
    if config:
        api.set_config(**config)
    return api


@pytest.fixture
def keys_api(api_28: Api) -> Api:
    return new_project(api_28, allow_user_api_keys=True, allow_team_api_keys=True)


def create_user_key(api: Api, user: dict[str, str], **body: Any) -> httpx.Response:
    fields = {"user_id": "me", "description": "script", "expires_at_millis": None, **body}
    return api.call("POST", "/user-api-keys", token=user["access_token"], json=fields)


def team_of(api: Api, creator: dict[str, str]) -> str:
    team = api.call("POST", "/teams", "server", json={"display_name": "T", "creator_user_id": creator["user_id"]})
    assert team.status_code == 201, team.text
    return str(team.json()["id"])


def check(api: Api, kind: str, value: str) -> httpx.Response:
    return api.call("POST", f"/{kind}-api-keys/check", "server", json={"api_key": value})


def test_a_user_key_has_the_service_format_and_is_shown_once(keys_api: Api) -> None:
    user = keys_api.sign_up()
    created = create_user_key(keys_api, user)
    assert created.status_code == 200, created.text
    body = created.json()
    assert set(body) == KEY_FIELDS | {"user_id"}  # no expires_at_millis when created with null
    assert body["type"] == "user" and body["user_id"] == user["user_id"] and body["is_public"] is False
    value = body["value"]
    assert len(value) == 102 and KEY_SHAPE.match(value), value
    assert value[-8:] == format(zlib.crc32(value[:-8].encode()), "08x")  # the CRC-32 of the rest
    assert value[48:80] == body["id"].replace("-", "")
    parsed = parse_api_key(value)
    assert parsed is not None and parsed.id == body["id"] and parsed.type == "user"
    # afterwards only the last four characters
    read = keys_api.call("GET", f"/user-api-keys/{body['id']}", token=user["access_token"]).json()
    assert read["value"] == {"last_four": value[-4:]}
    listed = keys_api.call("GET", "/user-api-keys", token=user["access_token"], params={"user_id": "me"}).json()
    assert listed == {"is_paginated": False, "items": [read]}
    assert value not in httpx.Response(200, json=listed).text


def test_a_public_key_and_an_expiring_key(keys_api: Api) -> None:
    user = keys_api.sign_up()
    public = create_user_key(keys_api, user, is_public=True).json()
    assert public["value"].startswith("pk_") and public["value"][84] == "3"  # the flag: self-hosted + public
    assert parse_api_key(public["value"]) is not None and public["is_public"] is True
    later = int(time.time() * 1000) + 3_600_000
    expiring = create_user_key(keys_api, user, expires_at_millis=later).json()
    assert expiring["expires_at_millis"] == later


def test_keys_are_stored_hashed_not_as_their_value(keys_api: Api) -> None:
    """The attack: reading the service's database file must not yield working keys."""
    user = keys_api.sign_up()
    value = create_user_key(keys_api, user).json()["value"]
    assert keys_api.data_dir is not None
    stored = b"".join(path.read_bytes() for path in Path(keys_api.data_dir).glob("authmw.sqlite3*"))
    assert value.encode() not in stored and value[:60].encode() not in stored
    assert check(keys_api, "user", value).status_code == 200  # the control: the key itself works


def test_list_is_newest_first_with_revoked_and_expired_keys(keys_api: Api, clock: Clock) -> None:
    user = keys_api.sign_up()
    soon = int(clock() * 1000) + 60_000
    first = create_user_key(keys_api, user, description="first", expires_at_millis=soon).json()
    clock.advance(1)
    second = create_user_key(keys_api, user, description="second").json()
    revoked = keys_api.call("PATCH", f"/user-api-keys/{second['id']}", token=user["access_token"], json={"revoked": True})
    assert revoked.status_code == 200 and "manually_revoked_at_millis" in revoked.json()
    clock.advance(120)
    items = keys_api.call("GET", "/user-api-keys", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert [item["description"] for item in items] == ["second", "first"]
    assert_known_error(check(keys_api, "user", first["value"]), "API_KEY_EXPIRED", 401)
    assert_known_error(check(keys_api, "user", second["value"]), "API_KEY_REVOKED", 401)


def test_revoking_twice_keeps_the_first_time_and_only_true_is_accepted(keys_api: Api, clock: Clock) -> None:
    user = keys_api.sign_up()
    key = create_user_key(keys_api, user).json()
    path = f"/user-api-keys/{key['id']}"
    first = keys_api.call("PATCH", path, token=user["access_token"], json={"revoked": True}).json()
    clock.advance(5)
    again = keys_api.call("PATCH", path, token=user["access_token"], json={"revoked": True, "description": "d"}).json()
    assert again["manually_revoked_at_millis"] == first["manually_revoked_at_millis"]
    assert again["description"] == "d"
    assert_known_error(keys_api.call("PATCH", path, token=user["access_token"], json={"revoked": False}), "SCHEMA_ERROR", 400)
    for field in ("user_id", "team_id", "expires_at_millis"):
        refused = keys_api.call("PATCH", path, token=user["access_token"], json={field: None})
        assert f"body contains unknown properties: {field}" in assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]
    assert keys_api.http.delete("/api/v1" + path, headers=keys_api.headers("server")).status_code == 405


def test_check_order_and_its_errors(keys_api: Api) -> None:
    user = keys_api.sign_up()
    user_key = create_user_key(keys_api, user).json()
    team_key = keys_api.call(
        "POST", "/team-api-keys", "server", json={"team_id": team_of(keys_api, user), "description": "t", "expires_at_millis": None}
    ).json()
    ok = check(keys_api, "user", user_key["value"])
    assert ok.status_code == 200 and ok.json()["value"] == {"last_four": user_key["value"][-4:]}
    assert ok.json()["user_id"] == user["user_id"]
    assert check(keys_api, "team", team_key["value"]).json()["team_id"] == team_key["team_id"]
    assert_known_error(check(keys_api, "user", "sk_this_is_a_fake_api_key_123456789"), "API_KEY_NOT_FOUND", 404)
    wrong = assert_known_error(check(keys_api, "user", team_key["value"]), "WRONG_API_KEY_TYPE", 400)
    assert wrong["details"] == {"expected_type": "user", "actual_type": "team"}
    assert wrong["error"] == "This endpoint is for user API keys, but a team API key was provided."
    client = keys_api.call("POST", "/user-api-keys/check", token=user["access_token"], json={"api_key": user_key["value"]})
    assert_known_error(client, "INSUFFICIENT_ACCESS_TYPE", 401)


def test_a_key_of_another_project_is_not_found(keys_api: Api, api_28: Api) -> None:
    """The attack: a key made in one project presented to another project's check."""
    user = keys_api.sign_up()
    value = create_user_key(keys_api, user).json()["value"]
    other = new_project(api_28, allow_user_api_keys=True)
    assert_known_error(check(other, "user", value), "API_KEY_NOT_FOUND", 404)
    assert check(keys_api, "user", value).status_code == 200


def test_the_client_manages_only_its_own_user_keys(keys_api: Api) -> None:
    owner, other = keys_api.sign_up(), keys_api.sign_up()
    key = create_user_key(keys_api, owner).json()
    token = other["access_token"]
    for response in (
        create_user_key(keys_api, other, user_id=owner["user_id"]),
        keys_api.call("GET", "/user-api-keys", token=token, params={"user_id": owner["user_id"]}),
        keys_api.call("GET", f"/user-api-keys/{key['id']}", token=token),
        keys_api.call("PATCH", f"/user-api-keys/{key['id']}", token=token, json={"revoked": True}),
    ):
        assert response.status_code == 403 and response.text == "Client can only manage their own api keys"
    assert check(keys_api, "user", key["value"]).status_code == 200  # not revoked by the attempt
    # the server may make and list any user's keys
    made = keys_api.call(
        "POST", "/user-api-keys", "server", json={"user_id": owner["user_id"], "description": "s", "expires_at_millis": None}
    )
    assert made.status_code == 200 and made.json()["user_id"] == owner["user_id"]
    no_user = keys_api.call("POST", "/user-api-keys", json={"user_id": owner["user_id"], "description": "x", "expires_at_millis": None})
    assert_known_error(no_user, "USER_AUTHENTICATION_REQUIRED", 401)
    missing = keys_api.call("GET", "/user-api-keys", "server")
    body = assert_known_error(missing, "SCHEMA_ERROR", 400)
    assert body["error"] == "user_id is required for user API keys"
    assert_known_error(keys_api.call("GET", f"/user-api-keys/{UNKNOWN_ID}", "server"), "API_KEY_NOT_FOUND", 404)


def test_team_keys_need_manage_api_keys_on_the_client(keys_api: Api) -> None:
    creator, member = keys_api.sign_up(), keys_api.sign_up()
    team_id = team_of(keys_api, creator)  # the creator holds team_admin, which contains $manage_api_keys
    added = keys_api.call("POST", f"/team-memberships/{team_id}/{member['user_id']}", "server", json={})
    assert added.status_code == 201  # members hold team_member: no $manage_api_keys
    body = {"team_id": team_id, "description": "ci", "expires_at_millis": None}
    made = keys_api.call("POST", "/team-api-keys", token=creator["access_token"], json=body)
    assert made.status_code == 200, made.text
    assert made.json()["type"] == "team" and made.json()["team_id"] == team_id
    key_id = made.json()["id"]
    refused = [
        keys_api.call("POST", "/team-api-keys", token=member["access_token"], json=body),
        keys_api.call("GET", "/team-api-keys", token=member["access_token"], params={"team_id": team_id}),
        keys_api.call("GET", f"/team-api-keys/{key_id}", token=member["access_token"], params={"team_id": team_id}),
        keys_api.call(
            "PATCH", f"/team-api-keys/{key_id}", token=member["access_token"], params={"team_id": team_id}, json={"revoked": True}
        ),
    ]
    for response in refused:
        assert_known_error(response, "API_KEY_NOT_FOUND", 404)  # the team's existence is not revealed
    granted = keys_api.call("POST", f"/team-permissions/{team_id}/{member['user_id']}/$manage_api_keys", "server", json={})
    assert granted.status_code == 201, granted.text
    listed = keys_api.call("GET", "/team-api-keys", token=member["access_token"], params={"team_id": team_id})
    assert [item["id"] for item in listed.json()["items"]] == [key_id]
    no_team = keys_api.call("GET", f"/team-api-keys/{key_id}", "server")
    assert "query.team_id must be defined" in assert_known_error(no_team, "SCHEMA_ERROR", 400)["error"]


def test_disabled_kinds_answer_a_plain_400(api_28: Api) -> None:
    api = new_project(api_28)  # both off, as for every new project
    user = api.sign_up()
    for kind, label in (("user", "User"), ("team", "Team")):
        created = api.call(
            "POST",
            f"/{kind}-api-keys",
            token=user["access_token"],
            json={f"{kind}_id": "me" if kind == "user" else team_of(api, user), "description": "x", "expires_at_millis": None},
        )
        assert created.status_code == 400 and created.text == f"{label} API keys are not enabled for this project."
        checked = check(api, kind, "sk_anything")
        assert checked.status_code == 400 and checked.text == f"{label} API keys are not enabled for this project."
    api.set_config(allow_team_api_keys=True)
    assert create_user_key(api, user).status_code == 400  # still off for users
    view = api.call("GET", "/projects/current").json()["config"]
    assert view["allow_team_api_keys"] is True and view["allow_user_api_keys"] is False


def test_new_2_8_projects_define_team_admin_with_manage_api_keys(api_28: Api) -> None:
    api = new_project(api_28)
    definitions = {d["id"]: d for d in api.call("GET", "/team-permission-definitions", "admin").json()["items"]}
    assert definitions["$manage_api_keys"] == {
        "id": "$manage_api_keys",
        "description": "Create and manage API keys for the team",
        "contained_permission_ids": [],
    }
    assert len(definitions["team_admin"]["contained_permission_ids"]) == 6
    assert definitions["team_member"]["contained_permission_ids"] == ["$invite_members", "$read_members"]
    config = api.call("GET", "/internal/projects/current", "admin").json()["config"]
    assert config["team_creator_default_permissions"] == [{"id": "team_admin"}]
    assert config["team_member_default_permissions"] == [{"id": "team_member"}]


def test_api_2_7_has_no_api_keys(api_27: Api) -> None:
    ids = [d["id"] for d in api_27.call("GET", "/team-permission-definitions", "admin").json()["items"]]
    assert "$manage_api_keys" not in ids and "$update_team" in ids
    for method, path in (
        ("POST", "/user-api-keys"),
        ("GET", "/user-api-keys"),
        ("POST", "/team-api-keys/check"),
        ("PATCH", f"/user-api-keys/{UNKNOWN_ID}"),
    ):
        response = api_27.call(method, path, "server", json={})
        assert response.status_code == 404 and "this page does not exist" in response.text
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"config": {"allow_user_api_keys": True}})
    assert "unknown properties: allow_user_api_keys" in assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]


def test_an_anonymous_user_makes_keys_as_the_2_8_backend_lets_them(keys_api: Api) -> None:
    """As backend 2.8.86: anonymous sign-up works while sign-up is closed (it is not a sign-up
    of the project's users), and an anonymous user's token is taken for creating its own key
    only with x-stack-allow-anonymous-user: true (without it: ANONYMOUS_AUTHENTICATION_NOT_ALLOWED,
    the rule of every client call). Apps count such a key as the anonymous user it belongs to."""
    closed = keys_api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"sign_up_enabled": False}})
    assert closed.status_code == 200, closed.text
    anonymous = keys_api.call("POST", "/auth/anonymous/sign-up", json={})
    assert anonymous.status_code == 200, anonymous.text
    tokens = anonymous.json()
    fields = {"user_id": "me", "description": "script", "expires_at_millis": None}
    refused = keys_api.call("POST", "/user-api-keys", token=tokens["access_token"], json=fields)
    assert_known_error(refused, "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED", 401)
    allowed = {"x-stack-allow-anonymous-user": "true"}
    made = keys_api.call("POST", "/user-api-keys", token=tokens["access_token"], json=fields, headers=allowed)
    assert made.status_code == 200, made.text
    assert made.json()["user_id"] == tokens["user_id"]
    password = keys_api.call("POST", "/auth/password/sign-up", json={"email": "x@example.com", "password": "long enough pw"})
    assert_known_error(password, "SIGN_UP_NOT_ENABLED", 400)  # control: the project's sign-up is closed
