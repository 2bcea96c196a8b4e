"""Server-tier user management: service-api A5.5."""

from __future__ import annotations

import bcrypt
import pytest

from .conftest import Api, assert_known_error, unique_email

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def create(api: Api, **fields) -> dict:
    response = api.call("POST", "/users", "server", json=fields)
    assert response.status_code == 201, response.text
    return response.json()


def test_create_user_answers_201_with_the_server_view(api: Api) -> None:
    email = unique_email()
    user = create(api, display_name="Grace", primary_email=email, server_metadata={"a": 1})
    assert user["display_name"] == "Grace" and user["primary_email"] == email
    assert user["primary_email_auth_enabled"] is False  # not requested
    assert user["has_password"] is False and user["server_metadata"] == {"a": 1}


def test_create_user_with_a_taken_auth_email_conflicts(api: Api, user: dict) -> None:
    response = api.call(
        "POST", "/users", "server", json={"primary_email": user["email"], "primary_email_auth_enabled": True}
    )
    assert_known_error(response, "USER_EMAIL_ALREADY_EXISTS", 409)


def test_create_user_with_an_oauth_account_linked_elsewhere_conflicts_without_creating_a_user(api: Api) -> None:
    account = {"id": "github", "account_id": f"gh-{unique_email()}", "email": None}
    create(api, display_name="First", oauth_providers=[account])
    before = api.call("GET", "/users", "server").json()["items"]
    response = api.call("POST", "/users", "server", json={"display_name": "Second", "oauth_providers": [account]})
    assert_known_error(response, "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER", 409)
    twice = api.call("POST", "/users", "server", json={"oauth_providers": [{**account, "account_id": "x"}] * 2})
    assert_known_error(twice, "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER", 409)
    assert len(api.call("GET", "/users", "server").json()["items"]) == len(before)


def test_create_user_with_a_password_can_sign_in_without_minimum_length(api: Api) -> None:
    email = unique_email()
    create(api, primary_email=email, primary_email_auth_enabled=True, password="short")
    response = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": "short"})
    assert response.status_code == 200


def test_imported_bcrypt_hashes_sign_in(api: Api) -> None:
    email = unique_email()
    hashed = bcrypt.hashpw(b"imported pw", bcrypt.gensalt(rounds=4)).decode()
    create(api, primary_email=email, primary_email_auth_enabled=True, password_hash=hashed)
    ok = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": "imported pw"})
    assert ok.status_code == 200
    bad = api.call("POST", "/users", "server", json={"password_hash": "$1$nope"})
    assert (bad.status_code, bad.text) == (
        400,
        "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.",
    )
    both = api.call("POST", "/users", "server", json={"password_hash": hashed, "password": "x"})
    assert both.text == "Cannot set both password and password_hash at the same time."


def test_get_update_delete_by_id(api: Api) -> None:
    user = create(api, display_name="Linus")
    path = f"/users/{user['id']}"
    assert api.call("GET", path, "server").json() == user
    updated = api.call("PATCH", path, "admin", json={"display_name": "Linus T"}).json()
    assert updated["display_name"] == "Linus T"
    assert api.call("DELETE", path, "server").json() == {"success": True}
    assert_known_error(api.call("GET", path, "server"), "USER_NOT_FOUND", 404)
    assert_known_error(api.call("PATCH", path, "server", json={}), "USER_NOT_FOUND", 404)
    assert_known_error(api.call("DELETE", path, "server"), "USER_NOT_FOUND", 404)


def test_user_id_must_be_a_uuid(api: Api) -> None:
    body = assert_known_error(api.call("GET", "/users/bob", "server"), "SCHEMA_ERROR", 400)
    assert (
        body["error"] == "Request validation failed on GET /api/v1/users/bob:\n  - params.user_id must be a valid UUID"
    )


def test_client_cannot_use_server_user_routes(api: Api, user: dict) -> None:
    assert_known_error(api.call("GET", "/users"), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert_known_error(api.call("GET", f"/users/{user['user_id']}"), "INSUFFICIENT_ACCESS_TYPE", 401)


def test_setting_a_password_revokes_every_refresh_token(api: Api, user: dict) -> None:
    response = api.call("PATCH", f"/users/{user['user_id']}", "server", json={"password": "brand new pw"})
    assert response.status_code == 200
    refresh = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    assert_known_error(refresh, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    sign_in = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": "brand new pw"})
    assert sign_in.status_code == 200


def test_changing_the_primary_email_keeps_its_verified_flag_in_27(api_27: Api) -> None:
    """2.7 overwrites the primary channel (2.8 adds a new one: test_api_28_users.py)."""
    api = api_27
    user = create(api, primary_email=unique_email(), primary_email_verified=True)
    new_email = unique_email()
    updated = api.call("PATCH", f"/users/{user['id']}", "server", json={"primary_email": new_email}).json()
    assert (updated["primary_email"], updated["primary_email_verified"]) == (new_email, True)
    removed = api.call("PATCH", f"/users/{user['id']}", "server", json={"primary_email": None}).json()
    assert removed["primary_email"] is None


def test_list_users_pages_with_a_cursor(api: Api) -> None:
    marker = f"pager{unique_email().split('@')[0]}"
    ids = [create(api, display_name=f"{marker} {i}")["id"] for i in range(5)]
    first = api.call("GET", "/users", "server", params={"query": marker, "limit": 2}).json()
    assert first["is_paginated"] is True
    assert [u["id"] for u in first["items"]] == ids[:2]
    assert first["pagination"]["next_cursor"] == ids[2]
    second = api.call("GET", "/users", "server", params={"query": marker, "limit": "2", "cursor": ids[2]}).json()
    assert [u["id"] for u in second["items"]] == ids[2:4]
    last = api.call("GET", "/users", "server", params={"query": marker, "limit": 2, "cursor": ids[4]}).json()
    assert [u["id"] for u in last["items"]] == ids[4:] and last["pagination"]["next_cursor"] is None
    everything = api.call("GET", "/users", "server", params={"query": marker}).json()
    assert [u["id"] for u in everything["items"]] == ids and everything["pagination"] == {"next_cursor": None}
    newest_first = api.call("GET", "/users", "server", params={"query": marker, "desc": "true"}).json()
    assert [u["id"] for u in newest_first["items"]] == ids[::-1]


def test_list_users_query_matches_ids_names_and_emails(api: Api) -> None:
    email = unique_email()
    user = create(api, display_name="Findable Person", primary_email=email)
    for text in (user["id"], "FINDABLE", email.upper()[:6]):
        found = api.call("GET", "/users", "server", params={"query": text}).json()["items"]
        assert user["id"] in [u["id"] for u in found]


def test_list_users_rejects_unknown_and_invalid_query_parameters(api: Api) -> None:
    body = assert_known_error(api.call("GET", "/users", "server", params={"page": "2"}), "SCHEMA_ERROR", 400)
    assert "query contains unknown properties: page" in body["error"]
    body = assert_known_error(api.call("GET", "/users", "server", params={"limit": "0"}), "SCHEMA_ERROR", 400)
    assert "query.limit must be greater than or equal to 1" in body["error"]
    body = assert_known_error(api.call("GET", "/users", "server", params={"order_by": "name"}), "SCHEMA_ERROR", 400)
    assert "query.order_by must be one of the following values: signed_up_at" in body["error"]


def test_e_mail_flags_without_an_address_are_refused_only_when_true_as_the_service_words_it(api: Api) -> None:
    for flag in ("primary_email_auth_enabled", "primary_email_verified"):
        refused = api.call("POST", "/users", "server", json={flag: True})
        assert (refused.status_code, refused.text) == (400, f"{flag} cannot be true without primary_email")
    both = api.call(
        "POST", "/users", "server", json={"primary_email_verified": True, "primary_email_auth_enabled": True}
    )
    assert both.text == "primary_email_auth_enabled cannot be true without primary_email"  # checked first
    created = api.call(
        "POST", "/users", "server", json={"primary_email_verified": False, "primary_email_auth_enabled": False}
    )
    assert created.status_code == 201, created.text
    user_id = created.json()["id"]
    unverify = api.call("PATCH", f"/users/{user_id}", "server", json={"primary_email_verified": False})
    assert unverify.status_code == 200, unverify.text
    verify = api.call("PATCH", f"/users/{user_id}", "server", json={"primary_email_verified": True})
    assert (verify.status_code, verify.text) == (400, "primary_email_verified cannot be true without primary_email")


@pytest.mark.parametrize("version", ["2.7", "2.8"])
def test_an_e_mail_flag_set_true_on_a_user_without_an_address_is_refused(
    request: pytest.FixtureRequest, version: str
) -> None:
    """Both versions check the flags against the address the user has after the update, the
    sign-in flag first; false, or true together with a new address, is a change like any other."""
    api: Api = request.getfixturevalue("api_" + version.replace(".", ""))
    user_id = create(api, display_name="No address")["id"]
    for flag in ("primary_email_auth_enabled", "primary_email_verified"):
        refused = api.call("PATCH", f"/users/{user_id}", "server", json={flag: True})
        assert (refused.status_code, refused.text) == (400, f"{flag} cannot be true without primary_email")
        unchanged = api.call("GET", f"/users/{user_id}", "server").json()
        assert unchanged["primary_email"] is None and unchanged[flag] is False
        assert api.call("PATCH", f"/users/{user_id}", "server", json={flag: False}).status_code == 200
    # the control: with an address in the same update, the flag is taken
    email = unique_email()
    given = api.call(
        "PATCH", f"/users/{user_id}", "server", json={"primary_email": email, "primary_email_auth_enabled": True}
    )
    assert given.status_code == 200, given.text
    assert (given.json()["primary_email"], given.json()["primary_email_auth_enabled"]) == (email, True)
