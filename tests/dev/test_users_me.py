"""`/users/me` on each tier: service-api A5.2 (user views) and 5.5."""

from __future__ import annotations

from .conftest import Api, assert_known_error, unique_email

CLIENT_FIELDS = {
    "id", "display_name", "primary_email", "primary_email_verified", "profile_image_url",
    "signed_up_at_millis", "client_metadata", "client_read_only_metadata", "has_password",
    "otp_auth_enabled", "passkey_auth_enabled", "auth_with_email", "requires_totp_mfa",
    "oauth_providers", "selected_team_id", "selected_team",
}  # fmt: skip
SERVER_ONLY_FIELDS = {"primary_email_auth_enabled", "server_metadata", "last_active_at_millis"}
#: Fields API 2.8 adds (service-api B4.1).
CLIENT_FIELDS_28 = {
    "is_anonymous", "is_restricted", "restricted_reason", "restricted_by_admin", "restricted_by_admin_reason",
}  # fmt: skip
SERVER_ONLY_FIELDS_28 = {"country_code", "restricted_by_admin_private_details", "risk_scores"}


def client_fields(api: Api) -> set[str]:
    return CLIENT_FIELDS | (CLIENT_FIELDS_28 if api.version == "2.8" else set())


def server_fields(api: Api) -> set[str]:
    added = SERVER_ONLY_FIELDS_28 if api.version == "2.8" else set()
    return client_fields(api) | SERVER_ONLY_FIELDS | added


PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def test_client_gets_the_client_view(api: Api, user: dict) -> None:
    response = api.call("GET", "/users/me", token=user["access_token"])
    assert response.status_code == 200
    me = response.json()
    assert set(me) == client_fields(api)
    assert me["id"] == user["user_id"] and me["primary_email"] == user["email"]
    assert me["oauth_providers"] == [] and me["selected_team"] is None


def test_server_and_admin_get_the_server_view(api: Api, user: dict) -> None:
    for tier in ("server", "admin"):
        me = api.call("GET", "/users/me", tier, token=user["access_token"]).json()
        assert set(me) == server_fields(api)
        assert me["last_active_at_millis"] >= me["signed_up_at_millis"]


def test_me_without_a_user_cannot_get_own_user(api: Api) -> None:
    for method in ("GET", "PATCH", "DELETE"):
        response = api.call(method, "/users/me", json={} if method == "PATCH" else None)
        body = assert_known_error(response, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
        assert body["error"] == "You have specified 'me' as a userId, but did not provide authentication for a user."


def test_me_needs_an_access_type(api: Api, user: dict) -> None:
    response = api.http.get("/api/v1/users/me", headers={"x-stack-access-token": user["access_token"]})
    assert_known_error(response, "ACCESS_TYPE_REQUIRED", 400)


def test_client_updates_its_own_fields(api: Api, user: dict) -> None:
    response = api.call(
        "PATCH",
        "/users/me",
        token=user["access_token"],
        json={"display_name": "Ada", "client_metadata": {"theme": "dark"}, "profile_image_url": PNG},
    )
    assert response.status_code == 200, response.text
    me = response.json()
    assert (me["display_name"], me["client_metadata"], me["profile_image_url"]) == ("Ada", {"theme": "dark"}, PNG)
    assert "server_metadata" not in me
    cleared = api.call("PATCH", "/users/me", token=user["access_token"], json={"display_name": ""}).json()
    assert cleared["display_name"] is None  # "" is stored as null


def test_client_cannot_update_server_fields(api_27: Api) -> None:
    """2.7: the client may not change its primary e-mail either (2.8 may: test_api_28_users.py)."""
    api = api_27
    user = {"access_token": api.sign_up()["access_token"]}
    response = api.call(
        "PATCH",
        "/users/me",
        token=user["access_token"],
        json={"server_metadata": {"role": "admin"}, "primary_email": "x@example.com", "display_name": "x"},
    )
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert body["error"] == (
        "Request validation failed on PATCH /api/v1/users/me:\n"
        "  - body contains unknown properties: server_metadata, primary_email"
    )


def test_client_profile_image_must_be_a_base64_image(api: Api, user: dict) -> None:
    response = api.call(
        "PATCH", "/users/me", token=user["access_token"], json={"profile_image_url": "https://example.com/a.png"}
    )
    assert response.status_code == 400
    assert response.text == "Invalid profile image URL"
    assert "x-stack-known-error" not in response.headers
    bare = PNG.split(",", 1)[1]
    assert (
        api.call("PATCH", "/users/me", token=user["access_token"], json={"profile_image_url": bare}).status_code == 200
    )


def test_server_updates_every_field_of_me(api: Api, user: dict) -> None:
    response = api.call(
        "PATCH",
        "/users/me",
        "server",
        token=user["access_token"],
        json={
            "server_metadata": {"plan": "pro"},
            "client_read_only_metadata": {"level": 3},
            "primary_email_verified": True,
        },
    )
    assert response.status_code == 200, response.text
    me = response.json()
    assert me["server_metadata"] == {"plan": "pro"}
    assert me["client_read_only_metadata"] == {"level": 3}
    assert me["primary_email_verified"] is True


def test_totp_secret_turns_mfa_on_and_off(api: Api, user: dict) -> None:
    on = api.call(
        "PATCH", "/users/me", token=user["access_token"], json={"totp_secret_base64": "AAECAwQFBgcICQoLDA0ODxAREhM="}
    )
    assert on.json()["requires_totp_mfa"] is True
    off = api.call("PATCH", "/users/me", token=user["access_token"], json={"totp_secret_base64": None})
    assert off.json()["requires_totp_mfa"] is False


def test_client_cannot_enable_passkey_auth_by_hand(api: Api, user: dict) -> None:
    response = api.call("PATCH", "/users/me", token=user["access_token"], json={"passkey_auth_enabled": True})
    assert response.status_code == 400
    assert response.text.startswith("Cannot manually enable passkey auth")


def test_selecting_a_team_the_user_is_not_in(api: Api, user: dict) -> None:
    team_id = "00000000-0000-4000-8000-000000000000"
    response = api.call("PATCH", "/users/me", token=user["access_token"], json={"selected_team_id": team_id})
    body = assert_known_error(response, "TEAM_MEMBERSHIP_NOT_FOUND", 404)
    assert body["details"] == {"team_id": team_id, "user_id": user["user_id"]}


def test_client_delete_needs_client_user_deletion_enabled(api: Api, user: dict, project_config) -> None:
    refused = api.call("DELETE", "/users/me", token=user["access_token"])
    assert refused.status_code == 400
    assert refused.text == "Client user deletion is not enabled for this project"

    project_config(client_user_deletion_enabled=True)
    deleted = api.call("DELETE", "/users/me", token=user["access_token"])
    assert deleted.status_code == 200 and deleted.json() == {"success": True}
    gone = api.call("GET", f"/users/{user['user_id']}", "server")
    assert_known_error(gone, "USER_NOT_FOUND", 404)
    refresh = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    assert_known_error(refresh, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)


def test_server_deletes_me_regardless_of_the_flag(api: Api) -> None:
    tokens = api.sign_up(unique_email())
    response = api.call("DELETE", "/users/me", "server", token=tokens["access_token"])
    assert response.json() == {"success": True}
