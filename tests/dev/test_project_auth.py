"""How a request's project authentication is resolved: service-api A1.3."""

from __future__ import annotations

import pytest

from .conftest import Api, assert_known_error

#: API 2.7's order of request authentication (2.8's: test_api_28_tokens.py).
API_VERSION = "2.7"

KEY_HEADERS = {
    "client": "x-stack-publishable-client-key",
    "server": "x-stack-secret-server-key",
    "admin": "x-stack-super-secret-admin-key",
}


def get(api: Api, headers: dict[str, str]):
    return api.http.get("/api/v1/projects/current", headers=headers)


def test_a_key_without_access_type_is_rejected(api: Api) -> None:
    response = get(api, {"x-stack-project-id": api.project_id, "x-stack-secret-server-key": "ssk_x"})
    assert_known_error(response, "PROJECT_KEY_WITHOUT_ACCESS_TYPE", 400)


def test_no_access_type_on_a_project_endpoint_needs_an_access_type(api: Api) -> None:
    assert_known_error(get(api, {}), "ACCESS_TYPE_REQUIRED", 400)


def test_an_invalid_access_type_names_the_value(api: Api) -> None:
    response = get(api, {"x-stack-project-id": api.project_id, "x-stack-access-type": "root"})
    body = assert_known_error(response, "INVALID_ACCESS_TYPE", 400)
    assert body["error"] == "The x-stack-access-type header must be 'client', 'server', or 'admin', but was 'root'."
    assert "details" not in body


def test_an_access_type_without_project_id_is_rejected(api: Api) -> None:
    response = get(api, {"x-stack-access-type": "server"})
    body = assert_known_error(response, "ACCESS_TYPE_WITHOUT_PROJECT_ID", 400)
    assert body["details"] == {"request_type": "server"}
    assert body["error"].startswith("The x-stack-access-type header was 'server', but the x-stack-project-id")


@pytest.mark.parametrize(
    ("tier", "code"),
    [
        ("client", "CLIENT_AUTHENTICATION_REQUIRED"),
        ("server", "SERVER_AUTHENTICATION_REQUIRED"),
        ("admin", "ADMIN_AUTHENTICATION_REQUIRED"),
    ],
)
def test_a_missing_key_for_the_tier_is_required(api: Api, tier: str, code: str) -> None:
    headers = api.headers(tier)
    headers[KEY_HEADERS[tier]] = ""  # empty values count as absent
    assert_known_error(get(api, headers), code, 401)


@pytest.mark.parametrize(
    ("tier", "code"),
    [
        ("client", "INVALID_PUBLISHABLE_CLIENT_KEY"),
        ("server", "INVALID_SECRET_SERVER_KEY"),
        ("admin", "INVALID_SUPER_SECRET_ADMIN_KEY"),
    ],
)
def test_a_wrong_key_for_the_tier_is_invalid(api: Api, tier: str, code: str) -> None:
    headers = api.headers(tier)
    key = headers[KEY_HEADERS[tier]]
    headers[KEY_HEADERS[tier]] = key[:-1] + ("1" if key.endswith("0") else "0")
    body = assert_known_error(get(api, headers), code, 401)
    assert body["details"] == {"project_id": api.project_id}
    assert f'for the project "{api.project_id}"' in body["error"]


def test_the_key_of_another_tier_does_not_count(api: Api) -> None:
    headers = api.headers("server")
    headers["x-stack-secret-server-key"] = api.keys.super_secret_admin_key
    assert_known_error(get(api, headers), "INVALID_SECRET_SERVER_KEY", 401)


def test_an_unknown_project_gives_invalid_key_not_project_not_found(api: Api) -> None:
    headers = api.headers("client")
    headers["x-stack-project-id"] = "00000000-0000-4000-8000-000000000000"
    body = assert_known_error(get(api, headers), "INVALID_PUBLISHABLE_CLIENT_KEY", 401)
    assert body["details"] == {"project_id": "00000000-0000-4000-8000-000000000000"}


def test_keys_of_other_tiers_are_not_checked(api: Api) -> None:
    headers = {**api.headers("client"), "x-stack-secret-server-key": "ssk_wrong"}
    assert get(api, headers).status_code == 200


def test_an_endpoint_outside_the_tier_gives_insufficient_access_type(api: Api) -> None:
    response = api.call("PATCH", "/projects/current", "server", json={})
    body = assert_known_error(response, "INSUFFICIENT_ACCESS_TYPE", 401)
    assert body["details"] == {"actual_access_type": "server", "allowed_access_types": ["admin"]}
    assert body["error"] == "The x-stack-access-type header must be 'admin', but was 'server'."


def test_insufficient_access_type_lists_every_allowed_tier(api: Api, user: dict) -> None:
    response = api.call("POST", "/auth/sessions", "client", json={"user_id": user["user_id"]})
    body = assert_known_error(response, "INSUFFICIENT_ACCESS_TYPE", 401)
    assert body["details"] == {"actual_access_type": "client", "allowed_access_types": ["server", "admin"]}
    assert body["error"] == "The x-stack-access-type header must be 'server' or 'admin', but was 'client'."


def test_the_server_tier_sees_the_client_view_and_admin_the_admin_view(api: Api) -> None:
    client = api.call("GET", "/projects/current", "client").json()
    server = api.call("GET", "/projects/current", "server").json()
    admin = api.call("GET", "/projects/current", "admin").json()
    assert client == server
    assert set(client) == {"id", "display_name", "config"}
    assert "description" in admin and "id" in admin["config"]


def test_an_owner_admin_access_token_replaces_the_keys(api: Api, internal_api: Api) -> None:
    owner = internal_api.sign_up()
    token = owner["access_token"]
    headers = {
        "x-stack-project-id": api.project_id,
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": token,
    }
    assert_known_error(get(api, headers), "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401)

    patch = internal_api.call(
        "PATCH",
        f"/users/{owner['user_id']}",
        "server",
        json={"server_metadata": {"managedProjectIds": [api.project_id]}},
    )
    assert patch.status_code == 200, patch.text
    response = get(api, headers)
    assert response.status_code == 200
    assert response.json()["id"] == api.project_id and "description" in response.json()


def test_an_admin_token_of_a_non_internal_project_is_not_admin(api: Api, user: dict) -> None:
    headers = {
        "x-stack-project-id": api.project_id,
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": user["access_token"],
    }
    assert_known_error(get(api, headers), "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401)


def test_a_garbage_admin_token_is_unparsable(api: Api) -> None:
    headers = {
        "x-stack-project-id": api.project_id,
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": "x.y.z",
    }
    assert_known_error(get(api, headers), "UNPARSABLE_ADMIN_ACCESS_TOKEN", 401)


def test_an_admin_token_without_access_type_is_rejected(api: Api) -> None:
    headers = {"x-stack-project-id": api.project_id, "x-stack-admin-access-token": "x.y.z"}
    assert_known_error(get(api, headers), "PROJECT_KEY_WITHOUT_ACCESS_TYPE", 400)


def test_the_development_override_key_opens_any_project(api: Api, internal_api: Api) -> None:
    override = {"x-stack-development-override-key": internal_api.keys.super_secret_admin_key}
    headers = {"x-stack-project-id": api.project_id, "x-stack-access-type": "admin", **override}
    assert get(api, headers).json()["id"] == api.project_id
    unknown = {**headers, "x-stack-project-id": "00000000-0000-4000-8000-000000000000"}
    body = assert_known_error(get(api, unknown), "PROJECT_NOT_FOUND", 404)
    assert body["details"] == {"project_id": "00000000-0000-4000-8000-000000000000"}
    wrong = {**headers, "x-stack-development-override-key": api.keys.super_secret_admin_key}
    response = get(api, wrong)
    assert (response.status_code, response.text) == (401, "Invalid development override key.")
