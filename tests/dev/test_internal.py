"""Owner endpoints: projects managed through `internal` (5.8) and API key sets (5.9)."""

from __future__ import annotations

import re
import time

from authmw_local.bootstrap import ProjectKeys

from .conftest import Api, assert_known_error

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def create_key_set(api: Api, **overrides) -> dict:
    body = {
        "description": "ci",
        "expires_at_millis": int(time.time() * 1000) + 3_600_000,
        "has_publishable_client_key": True,
        "has_secret_server_key": True,
        "has_super_secret_admin_key": False,
        **overrides,
    }
    response = api.call("POST", "/internal/api-keys", "admin", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_created_key_sets_show_full_keys_once_and_work(api: Api) -> None:
    created = create_key_set(api)
    assert re.fullmatch(r"pck_[0-9a-hjkmnp-tv-z]{45}", created["publishable_client_key"])
    assert re.fullmatch(r"ssk_[0-9a-hjkmnp-tv-z]{45}", created["secret_server_key"])
    assert "super_secret_admin_key" not in created and "manually_revoked_at_millis" not in created
    listed = api.call("GET", "/internal/api-keys", "admin").json()
    assert listed["is_paginated"] is False
    assert listed["items"][0]["id"] == created["id"]  # newest first
    read = api.call("GET", f"/internal/api-keys/{created['id']}", "admin").json()
    assert read["secret_server_key"] == {"last_four": created["secret_server_key"][-4:]}
    keys = ProjectKeys(api.project_id, created["publishable_client_key"], created["secret_server_key"], "")
    other = Api(api.url, keys)
    assert other.call("GET", "/projects/current", "server").status_code == 200


def test_revoked_and_expired_key_sets_stop_working(api: Api) -> None:
    created = create_key_set(api)
    keys = ProjectKeys(api.project_id, created["publishable_client_key"], created["secret_server_key"], "")
    other = Api(api.url, keys)
    revoked = api.call("PATCH", f"/internal/api-keys/{created['id']}", "admin", json={"revoked": True}).json()
    assert isinstance(revoked["manually_revoked_at_millis"], int)
    assert_known_error(other.call("GET", "/projects/current", "server"), "INVALID_SECRET_SERVER_KEY", 401)
    expired = create_key_set(api, expires_at_millis=int(time.time() * 1000) - 1)
    keys = ProjectKeys(api.project_id, expired["publishable_client_key"], "", "")
    assert_known_error(Api(api.url, keys).call("GET", "/projects/current"), "INVALID_PUBLISHABLE_CLIENT_KEY", 401)


def test_key_set_errors(api: Api) -> None:
    assert_known_error(api.call("GET", f"/internal/api-keys/{UNKNOWN_ID}", "admin"), "API_KEY_NOT_FOUND", 404)
    created = create_key_set(api)
    body = assert_known_error(
        api.call("PATCH", f"/internal/api-keys/{created['id']}", "admin", json={"revoked": False}), "SCHEMA_ERROR", 400
    )
    assert "body.revoked must be one of the following values: true" in body["error"]
    assert_known_error(api.call("GET", "/internal/api-keys", "server"), "INSUFFICIENT_ACCESS_TYPE", 401)


def test_owners_create_and_list_projects_on_internal(api: Api, internal_api: Api) -> None:
    owner = internal_api.sign_up()
    created = internal_api.create_owned_project(
        owner, {"display_name": "Side project", "config": {"magic_link_enabled": True}}
    )
    assert created.status_code == 201, created.text
    project = created.json()
    assert project["display_name"] == "Side project"
    assert project.get("user_count", 0) == 0 and ("user_count" in project) == (api.version == "2.7")
    assert project["config"]["magic_link_enabled"] is True
    listed = internal_api.call("GET", "/internal/projects", token=owner["access_token"]).json()
    assert [p["id"] for p in listed["items"]] == [project["id"]]
    # the owner's admin access token now manages the new project
    headers = {
        "x-stack-project-id": project["id"],
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": owner["access_token"],
    }
    current = api.http.get(f"/api/v1{api.admin_project_path}", headers=headers)
    assert current.status_code == 200 and current.json()["id"] == project["id"]
    jwks = api.http.get(f"/api/v1/projects/{project['id']}/.well-known/jwks.json")
    assert len(jwks.json()["keys"]) == (2 if api.version == "2.8" else 1)


def test_owned_projects_need_a_user_of_internal(api: Api, internal_api: Api, user: dict) -> None:
    assert_known_error(internal_api.call("GET", "/internal/projects"), "USER_AUTHENTICATION_REQUIRED", 401)
    response = api.call("GET", "/internal/projects", token=user["access_token"])
    assert_known_error(response, "EXPECTED_INTERNAL_PROJECT", 401)
    owner = internal_api.sign_up()
    no_name = internal_api.call(
        "POST", "/internal/projects", token=owner["access_token"], json={"owner_team_id": UNKNOWN_ID}
    )
    assert "body.display_name must be defined" in assert_known_error(no_name, "SCHEMA_ERROR", 400)["error"]
