"""API 2.8 users, sessions and project routes (service-api B, sections 3.5, 4-7 and 14.4), each
next to what a 2.7 service answers where the two differ."""

from __future__ import annotations

from typing import Any

import jwt

from .conftest import Api, assert_known_error, unique_email

ANON = {"x-stack-allow-anonymous-user": "true"}
BROWSER = {"user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"}


def _session_id(token: str) -> str:
    return str(jwt.decode(token, options={"verify_signature": False})["refresh_token_id"])


def _kind(token: str) -> tuple[str, bool]:
    claims = jwt.decode(token, options={"verify_signature": False})
    return claims["aud"], claims["is_restricted"]


def _anonymous(api: Api) -> dict[str, str]:
    response = api.call("POST", "/auth/anonymous/sign-up", json={})
    assert response.status_code == 200, response.text
    return response.json()


def _listed_ids(api: Api, **params: str) -> set[str]:
    response = api.call("GET", "/users", "server", params=params)
    assert response.status_code == 200, response.text
    return {u["id"] for u in response.json()["items"]}


# Anonymous users and their upgrade (7.1-7.3)


def test_anonymous_sign_up_exists_only_in_28(api_28: Api, api_27: Api) -> None:
    anonymous = _anonymous(api_28)
    assert set(anonymous) == {"access_token", "refresh_token", "user_id"}
    assert api_27.call("POST", "/auth/anonymous/sign-up", json={}).status_code == 404


def test_a_password_sign_up_with_an_anonymous_token_upgrades_the_same_user(api_28: Api) -> None:
    anonymous = _anonymous(api_28)
    api_28.call(
        "PATCH", "/users/me", token=anonymous["access_token"], headers=ANON, json={"client_metadata": {"cart": 3}}
    )
    email = unique_email()
    response = api_28.call(
        "POST",
        "/auth/password/sign-up",
        token=anonymous["access_token"],
        headers=ANON,
        json={"email": email, "password": "correct horse"},
    )
    assert response.status_code == 200, response.text
    upgraded = response.json()
    assert upgraded["user_id"] == anonymous["user_id"]
    assert _kind(upgraded["access_token"]) == (api_28.project_id, False)
    me = api_28.call("GET", "/users/me", token=upgraded["access_token"]).json()
    assert me["is_anonymous"] is False and me["is_restricted"] is False
    assert me["primary_email"] == email and me["client_metadata"] == {"cart": 3}
    signed_in = api_28.call("POST", "/auth/password/sign-in", json={"email": email, "password": "correct horse"})
    assert signed_in.json()["user_id"] == anonymous["user_id"]


def test_a_sign_up_without_the_anonymous_token_makes_a_new_user(api_28: Api) -> None:
    anonymous = _anonymous(api_28)
    fresh = api_28.sign_up()
    assert fresh["user_id"] != anonymous["user_id"]


def test_the_server_upgrades_an_anonymous_user_with_patch(api_28: Api, config_28: Any) -> None:
    config_28(create_team_on_sign_up=True)
    anonymous = _anonymous(api_28)
    user = api_28.call("GET", f"/users/{anonymous['user_id']}", "server").json()
    assert user["selected_team"]["display_name"] == "Personal Team"
    refused = api_28.call("PATCH", f"/users/{anonymous['user_id']}", "server", json={"is_anonymous": True})
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    response = api_28.call(
        "PATCH",
        f"/users/{anonymous['user_id']}",
        "server",
        json={"is_anonymous": False, "display_name": "Ada"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["is_anonymous"] is False and body["restricted_reason"] is None
    assert body["signed_up_at_millis"] >= user["signed_up_at_millis"]
    assert body["selected_team"]["display_name"] == "Ada's Team"


def test_the_server_can_create_an_anonymous_user(api_28: Api) -> None:
    created = api_28.call("POST", "/users", "server", json={"is_anonymous": True})
    assert created.status_code == 201, created.text
    assert created.json()["is_anonymous"] is True
    assert created.json()["restricted_reason"] == {"type": "anonymous"}


# User object and GET /users (4.1, 5.1, 5.2)


def test_the_28_user_views_carry_the_new_fields(api_28: Api, api_27: Api) -> None:
    user = api_28.sign_up()
    client = api_28.call("GET", "/users/me", token=user["access_token"]).json()
    assert {"is_anonymous", "is_restricted", "restricted_reason", "restricted_by_admin"} <= set(client)
    assert "risk_scores" not in client and "country_code" not in client
    server = api_28.call("GET", f"/users/{user['user_id']}", "server").json()
    assert server["risk_scores"] == {"sign_up": {"bot": 0, "free_trial_abuse": 0}}
    assert server["country_code"] is None and server["restricted_by_admin_private_details"] is None
    old = api_27.sign_up()
    old_view = api_27.call("GET", f"/users/{old['user_id']}", "server").json()
    assert "is_anonymous" not in old_view and "risk_scores" not in old_view


def test_country_code_comes_from_geo_headers_at_sign_up(api_28: Api) -> None:
    response = api_28.call(
        "POST",
        "/auth/password/sign-up",
        headers={**BROWSER, "x-forwarded-for": "203.0.113.7", "x-vercel-ip-country": "de"},
        json={"email": unique_email(), "password": "correct horse"},
    )
    assert response.status_code == 200, response.text
    user = api_28.call("GET", f"/users/{response.json()['user_id']}", "server").json()
    assert user["country_code"] == "DE"
    sessions = api_28.call("GET", "/auth/sessions", "server", params={"user_id": user["id"]}).json()["items"]
    assert sessions[0]["last_used_at_end_user_ip_info"]["ip"] == "203.0.113.7"
    assert sessions[0]["last_used_at_end_user_ip_info"]["countryCode"] == "DE"


def test_an_otp_sign_up_is_from_where_the_code_was_asked_for(api_28: Api, config_28: Any) -> None:
    config_28(magic_link_enabled=True)
    email = unique_email()
    sent = api_28.call(
        "POST",
        "/auth/otp/send-sign-in-code",
        headers={**BROWSER, "x-vercel-ip-country": "CA"},
        json={"email": email, "callback_url": "http://localhost:3000/handler/magic-link-callback"},
    )
    assert sent.status_code == 200, sent.text
    link = api_28.http.get("/dev/outbox", params={"to": email}).json()["items"][0]["link"]
    code = link.split("code=")[1]
    signed_in = api_28.call(
        "POST", "/auth/otp/sign-in", headers={**BROWSER, "x-vercel-ip-country": "US"}, json={"code": code}
    )
    assert signed_in.status_code == 200, signed_in.text
    assert api_28.call("GET", f"/users/{signed_in.json()['user_id']}", "server").json()["country_code"] == "CA"


def test_get_users_hides_anonymous_and_restricted_users_by_default(api_28: Api) -> None:
    normal = api_28.sign_up()["user_id"]
    anonymous = _anonymous(api_28)["user_id"]
    restricted = api_28.call(
        "POST", "/users", "server", json={"restricted_by_admin": True, "restricted_by_admin_reason": "spam"}
    ).json()["id"]
    default = _listed_ids(api_28)
    assert normal in default and anonymous not in default and restricted not in default
    with_restricted = _listed_ids(api_28, include_restricted="true")
    assert restricted in with_restricted and anonymous not in with_restricted
    everyone = _listed_ids(api_28, include_anonymous="true")
    assert {normal, anonymous, restricted} <= everyone
    only = _listed_ids(api_28, include_anonymous="true", only_anonymous="true")
    assert anonymous in only and normal not in only
    refused = api_28.call("GET", "/users", "server", params={"only_anonymous": "true"})
    assert refused.status_code == 400 and refused.text == "only_anonymous=true requires include_anonymous=true"


def test_get_users_in_27_has_no_filters(api_27: Api) -> None:
    response = api_27.call("GET", "/users", "server", params={"include_anonymous": "true"})
    assert_known_error(response, "SCHEMA_ERROR", 400)


def test_admin_restriction_rules(api_28: Api) -> None:
    refused = api_28.call("POST", "/users", "server", json={"restricted_by_admin_reason": "spam"})
    assert refused.status_code == 400
    assert refused.text == "restricted_by_admin_reason requires restricted_by_admin=true"
    user = api_28.call(
        "POST",
        "/users",
        "server",
        json={
            "restricted_by_admin": True,
            "restricted_by_admin_reason": "",
            "restricted_by_admin_private_details": "looked at it",
            "country_code": " ch ",
            "risk_scores": {"sign_up": {"bot": 40, "free_trial_abuse": 7}},
        },
    ).json()
    assert user["restricted_reason"] == {"type": "restricted_by_administrator"}
    assert user["restricted_by_admin_reason"] is None  # empty strings are stored as null
    assert user["country_code"] == "CH"
    assert user["risk_scores"] == {"sign_up": {"bot": 40, "free_trial_abuse": 7}}
    cleared = api_28.call("PATCH", f"/users/{user['id']}", "server", json={"restricted_by_admin": False}).json()
    assert cleared["restricted_by_admin_private_details"] is None and cleared["is_restricted"] is False
    bad = api_28.call("POST", "/users", "server", json={"country_code": "Germany"})
    assert_known_error(bad, "SCHEMA_ERROR", 400)


def test_a_reason_alone_is_refused_even_for_a_restricted_user(api_28: Api) -> None:
    """2.8.86's update schema wants `restricted_by_admin: true` beside a reason in the same body,
    whatever the user's state, and words the problem as its schema test does."""
    body = {"restricted_by_admin": True, "restricted_by_admin_reason": "spam"}
    user = api_28.call("POST", "/users", "server", json=body).json()
    alone = api_28.call("PATCH", f"/users/{user['id']}", "server", json={"restricted_by_admin_reason": "new"})
    message = assert_known_error(alone, "SCHEMA_ERROR", 400)["error"]
    assert message.endswith(":\n  - restricted_by_admin_reason must be null when restricted_by_admin is not true")
    assert api_28.call("GET", f"/users/{user['id']}", "server").json()["restricted_by_admin_reason"] == "spam"
    # control: with the flag in the body, the reason changes
    both = api_28.call("PATCH", f"/users/{user['id']}", "server", json={**body, "restricted_by_admin_reason": "new"})
    assert both.json()["restricted_by_admin_reason"] == "new"


def test_a_project_requiring_verified_emails_restricts_unverified_users(api_28: Api, config_28: Any) -> None:
    config_28(require_email_verification=True)
    user = api_28.sign_up()
    assert _kind(user["access_token"]) == (f"{api_28.project_id}:restricted", True)
    # The attack: a restricted session used as a full one.
    refused = api_28.call("GET", "/users/me", token=user["access_token"])
    body = assert_known_error(refused, "RESTRICTED_USER_NOT_ALLOWED", 403)
    assert body["details"] == {"restricted_reason": {"type": "email_not_verified"}}
    # The controls: either allow header lets it through.
    for header in ({"x-stack-allow-restricted-user": "true"}, ANON):
        me = api_28.call("GET", "/users/me", token=user["access_token"], headers=header)
        assert me.status_code == 200, me.text
        assert me.json()["restricted_reason"] == {"type": "email_not_verified"}
    assert user["user_id"] not in _listed_ids(api_28)
    # Verified: the next token is a normal one.
    api_28.call("PATCH", f"/users/{user['user_id']}", "server", json={"primary_email_verified": True})
    refreshed = api_28.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    ).json()
    assert _kind(refreshed["access_token"]) == (api_28.project_id, False)
    assert user["user_id"] in _listed_ids(api_28)


# E-mail (5.3, 5.4) and the personal team (5.2)


def test_emails_are_normalised_and_found_either_way(api_28: Api, api_27: Api) -> None:
    local = unique_email().split("@")[0]
    user = api_28.sign_up(f"{local.upper()}@Example.COM")
    me = api_28.call("GET", "/users/me", token=user["access_token"]).json()
    assert me["primary_email"] == f"{local}@example.com"
    other_case = f"{local.capitalize()}@EXAMPLE.com"
    signed_in = api_28.call("POST", "/auth/password/sign-in", json={"email": other_case, "password": "correct horse"})
    assert signed_in.status_code == 200, signed_in.text
    duplicate = api_28.call(
        "POST", "/auth/password/sign-up", json={"email": f"{local}@example.com", "password": "correct horse"}
    )
    body = assert_known_error(duplicate, "USER_EMAIL_ALREADY_EXISTS", 409)
    assert body["details"] == {"email": f"{local}@example.com", "would_work_if_email_was_verified": False}
    # 2.7 stores and matches exactly.
    old_local = unique_email().split("@")[0]
    old = api_27.sign_up(f"{old_local.upper()}@Example.com")
    old_me = api_27.call("GET", "/users/me", token=old["access_token"]).json()
    assert old_me["primary_email"] == f"{old_local.upper()}@Example.com"


def test_a_new_primary_email_keeps_the_old_one_as_a_channel(api_28: Api) -> None:
    user = api_28.sign_up()
    new_email = unique_email()
    updated = api_28.call("PATCH", f"/users/{user['user_id']}", "server", json={"primary_email": new_email}).json()
    assert updated["primary_email"] == new_email and updated["primary_email_verified"] is False
    assert updated["primary_email_auth_enabled"] is True  # taken from the previous primary
    channels = api_28.call("GET", "/contact-channels", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert len(channels) == 2
    demoted = api_28.call("PATCH", f"/users/{user['user_id']}", "server", json={"primary_email": None}).json()
    assert demoted["primary_email"] is None and demoted["primary_email_auth_enabled"] is False
    kept = api_28.call("GET", "/contact-channels", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert len(kept) == 2 and not any(c["is_primary"] for c in kept)


def test_the_client_may_change_its_own_primary_email_in_28(api_28: Api, api_27: Api) -> None:
    user = api_28.sign_up()
    email = unique_email()
    response = api_28.call("PATCH", "/users/me", token=user["access_token"], json={"primary_email": email})
    assert response.status_code == 200 and response.json()["primary_email"] == email
    old = api_27.sign_up()
    refused = api_27.call("PATCH", "/users/me", token=old["access_token"], json={"primary_email": unique_email()})
    assert_known_error(refused, "SCHEMA_ERROR", 400)


def test_the_personal_team_is_selected_in_28_only(api_28: Api, config_28: Any, api_27: Api) -> None:
    config_28(create_team_on_sign_up=True)
    user = api_28.sign_up()
    me = api_28.call("GET", "/users/me", token=user["access_token"]).json()
    assert me["selected_team"] is not None and me["selected_team"]["display_name"].endswith("'s Team")
    api_27.set_config(create_team_on_sign_up=True)
    try:
        old = api_27.sign_up()
        assert api_27.call("GET", "/users/me", token=old["access_token"]).json()["selected_team"] is None
    finally:
        api_27.set_config(create_team_on_sign_up=False)


def test_post_users_answers_before_the_personal_team_is_made_in_28(api_28: Api, config_28: Any) -> None:
    """2.8 builds the POST /users answer before it makes and selects the personal team."""
    config_28(create_team_on_sign_up=True)
    created = api_28.call("POST", "/users", "server", json={"primary_email": unique_email()})
    assert created.status_code == 201, created.text
    answer = created.json()
    assert answer["selected_team_id"] is None and answer["selected_team"] is None
    read = api_28.call("GET", f"/users/{answer['id']}", "server").json()
    assert read["selected_team"]["display_name"].endswith("'s Team") and read["selected_team_id"] is not None
    no_team = {"selected_team_id": None, "selected_team": None}
    assert {k: v for k, v in read.items() if k not in no_team} == {k: v for k, v in answer.items() if k not in no_team}


# Sign-out and sessions (3.5, 6)


def _refresh(api: Api, refresh_token: str) -> int:
    response = api.call("POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": refresh_token})
    return response.status_code


def test_sign_out_ends_the_access_tokens_session_not_the_refresh_headers(api_28: Api) -> None:
    first = api_28.sign_up()
    second = api_28.call(
        "POST", "/auth/password/sign-in", json={"email": _email_of(api_28, first), "password": "correct horse"}
    ).json()
    # The refresh header names the second session; 2.8 does not read it.
    response = api_28.call(
        "DELETE",
        "/auth/sessions/current",
        token=first["access_token"],
        headers={"x-stack-refresh-token": second["refresh_token"]},
        json={},
    )
    assert response.status_code == 200 and response.json() == {"success": True}
    assert _refresh(api_28, first["refresh_token"]) == 401
    assert _refresh(api_28, second["refresh_token"]) == 200
    again = api_28.call("DELETE", "/auth/sessions/current", token=first["access_token"], json={})
    assert_known_error(again, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    no_token = api_28.call(
        "DELETE", "/auth/sessions/current", headers={"x-stack-refresh-token": second["refresh_token"]}, json={}
    )
    assert_known_error(no_token, "ACCESS_TOKEN_EXPIRED", 401)
    assert _refresh(api_28, second["refresh_token"]) == 200


def test_sign_out_in_27_ends_the_refresh_headers_session(api_27: Api) -> None:
    user = api_27.sign_up()
    response = api_27.call(
        "DELETE", "/auth/sessions/current", headers={"x-stack-refresh-token": user["refresh_token"]}, json={}
    )
    assert response.status_code == 200
    assert _refresh(api_27, user["refresh_token"]) == 401


def _email_of(api: Api, session: dict[str, str]) -> str:
    return str(api.call("GET", "/users/me", token=session["access_token"]).json()["primary_email"])


def test_sessions_are_listed_newest_first_and_revoked_by_id(api_28: Api) -> None:
    first = api_28.sign_up()
    email = _email_of(api_28, first)
    second = api_28.call("POST", "/auth/password/sign-in", json={"email": email, "password": "correct horse"}).json()
    listed = api_28.call("GET", "/auth/sessions", token=second["access_token"], params={"user_id": "me"}).json()
    assert listed["is_paginated"] is False
    items = listed["items"]
    assert [s["id"] for s in items] == [_session_id(second["access_token"]), _session_id(first["access_token"])]
    assert [s["is_current_session"] for s in items] == [True, False]
    assert all(s["user_id"] == first["user_id"] and s["is_impersonation"] is False for s in items)
    current = api_28.call(
        "DELETE", f"/auth/sessions/{items[0]['id']}", token=second["access_token"], params={"user_id": "me"}
    )
    assert_known_error(current, "CANNOT_DELETE_CURRENT_SESSION", 400)
    other = api_28.call(
        "DELETE", f"/auth/sessions/{items[1]['id']}", token=second["access_token"], params={"user_id": "me"}
    )
    assert other.status_code == 200 and other.json() == {"success": True}
    assert _refresh(api_28, first["refresh_token"]) == 401
    assert_known_error(api_28.call("GET", "/auth/sessions", "server"), "SCHEMA_ERROR", 400)


def test_a_client_cannot_see_or_end_another_users_sessions(api_28: Api) -> None:
    me = api_28.sign_up()
    victim = api_28.sign_up()
    victim_session = _session_id(victim["access_token"])
    listed = api_28.call("GET", "/auth/sessions", token=me["access_token"], params={"user_id": victim["user_id"]})
    assert listed.status_code == 403 and listed.text == "Client can only list sessions for their own user."
    deleted = api_28.call(
        "DELETE", f"/auth/sessions/{victim_session}", token=me["access_token"], params={"user_id": "me"}
    )
    assert deleted.status_code == 404 and deleted.text == "Session not found."
    assert _refresh(api_28, victim["refresh_token"]) == 200
    no_user = api_28.call("GET", "/auth/sessions", params={"user_id": "me"})
    assert_known_error(no_user, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)


def test_impersonation_sessions_are_listed_for_the_admin_only(api_28: Api, api_27: Api) -> None:
    user = api_28.sign_up()
    made = api_28.call("POST", "/auth/sessions", "server", json={"user_id": user["user_id"], "is_impersonation": True})
    assert made.status_code == 200, made.text
    server = api_28.call("GET", "/auth/sessions", "server", params={"user_id": user["user_id"]}).json()["items"]
    admin = api_28.call("GET", "/auth/sessions", "admin", params={"user_id": user["user_id"]}).json()["items"]
    assert len(server) == 1 and len(admin) == 2
    assert admin[0]["is_impersonation"] is True
    old = api_27.sign_up()
    body = {"user_id": old["user_id"], "is_impersonation": True}
    refused = api_27.call("POST", "/auth/sessions", "server", json=body)
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    assert api_27.call("GET", "/auth/sessions", "server", params={"user_id": old["user_id"]}).status_code == 405


# Project routes (14.4)


def test_projects_current_is_the_client_view_on_every_tier_in_28(api_28: Api) -> None:
    for tier in ("client", "server", "admin"):
        view = api_28.call("GET", "/projects/current", tier).json()
        assert set(view) == {"id", "display_name", "config"}
        assert {"allow_user_api_keys", "allow_team_api_keys", "domains"} <= set(view["config"])
    admin = api_28.call("GET", "/internal/projects/current", "admin").json()
    assert "user_count" not in admin and "id" not in admin["config"]
    # written through the update body only; 2.8.86's admin view has neither setting
    assert not {"require_email_verification", "require_publishable_client_key"} & set(admin["config"])
    assert admin["config"]["email_theme"] == "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"  # the default theme
    assert {"logo_url", "owner_team_id", "onboarding_status"} <= set(admin)
    assert api_28.call("GET", "/internal/projects/current", "server").status_code == 401


def test_the_28_admin_view_and_update(api_28: Api) -> None:
    service = api_28.running
    assert service is not None
    internal = Api.of(service, service.bootstrap.internal)
    project = internal.call("GET", "/internal/projects/current", "admin").json()
    config = project["config"]
    assert config["oauth_providers"] == [] and config["domains"] == []
    assert config["allow_user_api_keys"] is False and config["allow_team_api_keys"] is False
    assert "legacy_global_jwt_signing" not in config
    providers = [{"id": "github", "type": "shared", "enabled": True}]
    updated = internal.call(
        "PATCH", "/internal/projects/current", "admin", json={"config": {"oauth_providers": providers}}
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["config"]["oauth_providers"] == [
        {"id": "github", "type": "shared", "provider_config_id": "github"}
    ]
    bad = internal.call("PATCH", "/internal/projects/current", "admin", json={"config": {"colour": 1}})
    assert "body.config contains unknown properties: colour" in assert_known_error(bad, "SCHEMA_ERROR", 400)["error"]
    for tier in ("client", "server"):
        refused = internal.call("PATCH", "/internal/projects/current", tier, json={"display_name": "x"})
        assert_known_error(refused, "INSUFFICIENT_ACCESS_TYPE", 401)
    off = [{**providers[0], "enabled": False}]
    internal.call("PATCH", "/internal/projects/current", "admin", json={"config": {"oauth_providers": off}})


def test_the_28_update_takes_providers_without_enabled_and_27_still_requires_it(api_28: Api, api_27: Api) -> None:
    service = api_28.running
    assert service is not None
    internal = Api.of(service, service.bootstrap.internal)
    current = internal.call("GET", "/internal/projects/current", "admin").json()["config"]["oauth_providers"]
    before = [{"id": p["id"], "type": p["type"]} for p in current]
    listed = [{"id": "github", "type": "shared"}]  # as the admin tiers send it to 2.8: listed means enabled
    try:
        body = {"config": {"oauth_providers": listed}}
        updated = internal.call("PATCH", "/internal/projects/current", "admin", json=body)
        assert updated.status_code == 200, updated.text
        assert [p["id"] for p in updated.json()["config"]["oauth_providers"]] == ["github"]
        client_view = internal.call("GET", "/projects/current", "client").json()["config"]
        assert client_view["enabled_oauth_providers"] == [{"id": "github"}]
    finally:
        internal.call("PATCH", "/internal/projects/current", "admin", json={"config": {"oauth_providers": before}})
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"config": {"oauth_providers": listed}})
    assert "enabled must be defined" in assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]


def test_the_moved_admin_routes_answer_405_and_404_in_28(api_28: Api) -> None:
    patched = api_28.call("PATCH", "/projects/current", "admin", json={"display_name": "x"})
    assert patched.status_code == 405
    assert api_28.call("DELETE", "/projects/current", "admin").status_code == 405
    assert api_28.call("GET", "/email-templates", "admin").status_code == 404
    assert api_28.call("GET", "/email-templates/email_verification", "admin").status_code == 404


def test_27_keeps_its_admin_routes(api_27: Api) -> None:
    assert "user_count" in api_27.call("GET", "/projects/current", "admin").json()
    assert api_27.call("GET", "/email-templates", "admin").status_code == 200
    assert api_27.call("GET", "/internal/projects/current", "admin").status_code == 404
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"config": {"require_email_verification": True}})
    assert_known_error(refused, "SCHEMA_ERROR", 400)


PNG_1X1 = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAD0lEQVR4AQEEAPv/ALHBwQRaAjRgT7lCAAAAAElFTkSuQmCC"
)


def test_project_logos_are_kept_as_given(api_28: Api) -> None:
    """2.8's four logo fields: an http(s) URL or a base64 image is kept (the local service stores
    no images: the backend would answer a base64 one with its storage URL), null clears one, and
    anything else is the service's 400. One project's logos are not another's."""
    internal = Api.of(api_28.running, api_28.running.bootstrap.internal)
    logos = {"logo_url": PNG_1X1, "logo_dark_mode_url": "https://cdn.example.com/dark.svg"}
    try:
        updated = api_28.call("PATCH", "/internal/projects/current", "admin", json=logos)
        assert updated.status_code == 200, updated.text
        read = api_28.call("GET", "/internal/projects/current", "admin").json()
        assert {name: read[name] for name in ("logo_url", "logo_full_url", "logo_dark_mode_url", "logo_full_dark_mode_url")} == {
            **logos, "logo_full_url": None, "logo_full_dark_mode_url": None,
        }  # fmt: skip
        assert internal.call("GET", "/internal/projects/current", "admin").json()["logo_url"] is None
        for bad in ("ftp://example.com/logo.png", "data:text/plain;base64,aGk="):
            refused = api_28.call("PATCH", "/internal/projects/current", "admin", json={"logo_url": bad})
            assert (refused.status_code, refused.text) == (400, "Invalid profile image URL")
        not_a_url = api_28.call("PATCH", "/internal/projects/current", "admin", json={"logo_url": "logo.png"})
        assert_known_error(not_a_url, "SCHEMA_ERROR", 400)
        assert api_28.call("GET", "/internal/projects/current", "admin").json()["logo_url"] == PNG_1X1
    finally:
        cleared = api_28.call("PATCH", "/internal/projects/current", "admin", json=dict.fromkeys(logos))
        assert cleared.status_code == 200 and cleared.json()["logo_url"] is None


def test_the_27_project_has_no_logos(api_27: Api) -> None:
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"logo_url": "https://cdn.example.com/a.png"})
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    assert "logo_url" not in api_27.call("GET", "/projects/current", "admin").json()
