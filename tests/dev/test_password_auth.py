"""Password sign-up and sign-in: service-api A5.4.1 and A7.2."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from typing import Any

import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, team_roles, unique_email
from .test_outbox import reset_code_for

CALLBACK = "http://localhost:3000/handler/email-verification"


def sign_up(api: Api, email: str, password: str, **extra):
    return api.call(
        "POST",
        "/auth/password/sign-up",
        json={"email": email, "password": password, "verification_callback_url": CALLBACK, **extra},
    )


def test_sign_up_returns_tokens_and_user_id_only(api: Api) -> None:
    response = sign_up(api, unique_email(), "long enough")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "refresh_token", "user_id"}
    assert len(body["refresh_token"]) == 45
    assert set(body["refresh_token"]) <= set("0123456789abcdefghjkmnpqrstvwxyz")


def test_sign_up_creates_an_unverified_primary_email_used_for_auth(api: Api) -> None:
    email = unique_email()
    tokens = sign_up(api, email, "long enough").json()
    me = api.call("GET", "/users/me", "server", token=tokens["access_token"]).json()
    assert me["primary_email"] == email
    assert me["primary_email_verified"] is False
    assert me["primary_email_auth_enabled"] is True
    assert me["has_password"] is True and me["auth_with_email"] is True


def test_sign_in_with_the_right_password_returns_new_tokens(api: Api, user: dict) -> None:
    response = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "refresh_token", "user_id"}
    assert body["user_id"] == user["user_id"]
    assert body["refresh_token"] != user["refresh_token"]


@pytest.mark.parametrize("case", ["wrong password", "unknown e-mail"])
def test_sign_in_failures_are_email_password_mismatch(api: Api, user: dict, case: str) -> None:
    email = user["email"] if case == "wrong password" else unique_email()
    response = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": "wrong password"})
    body = assert_known_error(response, "EMAIL_PASSWORD_MISMATCH", 400)
    assert body == {"code": "EMAIL_PASSWORD_MISMATCH", "error": "Wrong e-mail or password."}


def test_sign_in_of_a_user_without_password_is_a_mismatch(api: Api) -> None:
    email = unique_email()
    created = api.call("POST", "/users", "server", json={"primary_email": email, "primary_email_auth_enabled": True})
    assert created.status_code == 201
    response = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": "anything1"})
    assert_known_error(response, "EMAIL_PASSWORD_MISMATCH", 400)


def test_duplicate_email_is_user_email_already_exists(api: Api, user: dict, api_27: Api) -> None:
    response = sign_up(api, user["email"], "another password")
    body = assert_known_error(response, "USER_EMAIL_ALREADY_EXISTS", 409)
    # 2.8 names the address (service-api B2.2); 2.7 did not.
    assert body["error"] == f'A user with email "{user["email"]}" already exists.'
    assert body["details"] == {"email": user["email"], "would_work_if_email_was_verified": False}
    email = unique_email()
    api_27.sign_up(email)
    old = assert_known_error(sign_up(api_27, email, "another password"), "USER_EMAIL_ALREADY_EXISTS", 409)
    assert old["error"] == "User email already exists." and "details" not in old


def test_short_password_is_password_too_short_with_min_length(api: Api) -> None:
    response = sign_up(api, unique_email(), "1234567")
    body = assert_known_error(response, "PASSWORD_TOO_SHORT", 400)
    assert body["details"] == {"min_length": 8}
    assert body["error"] == "Password too short. Minimum length is 8."


def test_password_of_71_characters_is_a_schema_error(api: Api) -> None:
    response = sign_up(api, unique_email(), "x" * 71)
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert body["error"] == (
        "Request validation failed on POST /api/v1/auth/password/sign-up:\n"
        "  - body.password must be at most 70 characters"
    )
    assert body["details"] == {"message": body["error"]}
    assert sign_up(api, unique_email(), "x" * 70).status_code == 200


@pytest.mark.parametrize("email", ["no-at-sign", "a@b", "a@b.c", "a b@example.com"])
def test_sign_up_needs_a_strict_email(api: Api, email: str) -> None:
    response = sign_up(api, email, "long enough")
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert "body.email must be a valid email" in body["error"]


def test_missing_and_unknown_fields_are_listed_one_per_line(api: Api, api_27: Api) -> None:
    response = api.call("POST", "/auth/password/sign-up", json={"password": "long enough", "a": 1, "b": 2})
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert body["error"] == (
        "Request validation failed on POST /api/v1/auth/password/sign-up:\n"
        "  - body contains unknown properties: a, b\n"
        "  - body.email must be defined"
    )
    # 2.7 also requires the verification callback URL (2.8 made it optional: service-api B14.1).
    old = api_27.call("POST", "/auth/password/sign-up", json={"password": "long enough", "a": 1, "b": 2})
    assert assert_known_error(old, "SCHEMA_ERROR", 400)["error"] == (
        "Request validation failed on POST /api/v1/auth/password/sign-up:\n"
        "  - body contains unknown properties: a, b\n"
        "  - body.email must be defined\n"
        "  - body.verification_callback_url must be defined"
    )


def test_missing_body_is_a_schema_error(api: Api) -> None:
    body = assert_known_error(api.call("POST", "/auth/password/sign-in"), "SCHEMA_ERROR", 400)
    assert body["error"].endswith("\n  - body must be defined")


def test_sign_up_disabled_is_refused(api: Api, project_config) -> None:
    project_config(sign_up_enabled=False)
    assert_known_error(sign_up(api, unique_email(), "long enough"), "SIGN_UP_NOT_ENABLED", 400)


def test_password_auth_disabled_is_refused_before_length_checks(api: Api, user: dict, project_config) -> None:
    project_config(credential_enabled=False)
    assert_known_error(sign_up(api, unique_email(), "short"), "PASSWORD_AUTHENTICATION_NOT_ENABLED", 400)
    sign_in = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]})
    assert_known_error(sign_in, "PASSWORD_AUTHENTICATION_NOT_ENABLED", 400)


def test_sign_up_enabled_is_checked_before_the_password_in_28(api: Api, project_config) -> None:
    """2.8's order (service-api B14.1); 2.7 checked the password first (next test)."""
    project_config(sign_up_enabled=False)
    assert_known_error(sign_up(api, unique_email(), "short"), "SIGN_UP_NOT_ENABLED", 400)


def test_short_password_is_checked_before_sign_up_enabled_in_27(api_27: Api) -> None:
    api_27.set_config(sign_up_enabled=False)
    try:
        assert_known_error(sign_up(api_27, unique_email(), "short"), "PASSWORD_TOO_SHORT", 400)
    finally:
        api_27.set_config(sign_up_enabled=True)


def test_create_team_on_sign_up_makes_and_joins_a_team(api: Api, project_config) -> None:
    project_config(create_team_on_sign_up=True)
    email = unique_email()
    tokens = sign_up(api, email, "long enough").json()
    with closing(sqlite3.connect(api.data_dir / "authmw.sqlite3")) as db:
        rows = db.execute(
            "SELECT t.id, p.permission_id FROM teams t JOIN team_members m ON m.team_id = t.id"
            " JOIN team_member_permissions p ON p.team_id = t.id AND p.user_id = m.user_id"
            " WHERE t.display_name = ? AND m.user_id = ?",
            (f"{email}'s Team", tokens["user_id"]),
        ).fetchall()
    assert [permission for _, permission in rows] == [team_roles(api)[0]]  # the creator's default permission
    members = api.call("GET", "/users", "server", params={"team_id": rows[0][0]}).json()["items"]
    assert [m["id"] for m in members] == [tokens["user_id"]]
    me = api.call("GET", "/users/me", token=tokens["access_token"]).json()
    assert me["selected_team_id"] == rows[0][0]  # 2.8 selects the new team (service-api B5.2)


def test_sign_up_works_on_every_tier(api: Api) -> None:
    for tier in ("server", "admin"):
        assert api.sign_up(tier=tier)["user_id"]


def _lock_is_free(service: LocalService) -> bool:
    """Whether another thread could take the service's database lock right now."""
    db = service.app.state.service.db
    result: list[bool] = []

    def probe() -> None:
        taken = db.lock.acquire(blocking=False)
        if taken:
            db.lock.release()
        result.append(taken)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return result[0]


@pytest.mark.parametrize("endpoint", ["sign-up", "sign-in", "update", "reset", "server create", "server update"])
def test_password_hashing_runs_outside_the_database_transaction(
    service: LocalService, api: Api, user: dict, monkeypatch: pytest.MonkeyPatch, endpoint: str
) -> None:
    """scrypt (about 40 ms of CPU) runs while no request holds the database: meanwhile another
    request is answered, and the request then finishes with the hash it made."""
    from authmw_local import password_work

    code = reset_code_for(api, user["email"]) if endpoint == "reset" else ""
    seen: list[str] = []

    def observed(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def work(*args: Any) -> Any:
            assert _lock_is_free(service), f"{name}: the database lock is held"
            # Another request, answered while this one waits for its hash: it needs the database.
            assert api.call("GET", "/users/me", token=user["access_token"]).status_code == 200
            seen.append(name)
            return real(*args)

        return work

    monkeypatch.setattr(password_work, "hash_password", observed("hash", password_work.hash_password))
    monkeypatch.setattr(password_work, "verify_password", observed("verify", password_work.verify_password))
    new_password = "another long password"
    email = user["email"]
    if endpoint == "sign-up":
        email = unique_email()
        response = sign_up(api, email, new_password)
    elif endpoint == "sign-in":
        new_password = user["password"]
        response = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": new_password})
    elif endpoint == "update":
        response = api.call(
            "POST",
            "/auth/password/update",
            token=user["access_token"],
            json={"old_password": user["password"], "new_password": new_password},
        )
    elif endpoint == "reset":
        response = api.call("POST", "/auth/password/reset", json={"code": code, "password": new_password})
    elif endpoint == "server create":
        email = unique_email()
        body = {"primary_email": email, "primary_email_auth_enabled": True, "password": new_password}
        response = api.call("POST", "/users", "server", json=body)
    else:
        response = api.call("PATCH", f"/users/{user['user_id']}", "server", json={"password": new_password})
    assert response.status_code in (200, 201), response.text
    assert seen == (["verify", "hash"] if endpoint == "update" else ["verify"] if endpoint == "sign-in" else ["hash"])
    monkeypatch.undo()
    # The hash made outside is the one stored: the (new) password signs in.
    signed_in = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": new_password})
    assert signed_in.status_code == 200, signed_in.text


def test_a_hash_that_changes_between_passes_is_checked_again(
    service: LocalService, api: Api, user: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check made outside the transaction is keyed by the stored hash: when the password
    changes while a sign-in checks the old one, the sign-in checks again against the new hash
    (here: the old password no longer matches)."""
    from authmw_local import password_work

    real = password_work.verify_password
    checked: list[str] = []

    def verify(password: str, stored: str | None) -> bool:
        checked.append(stored or "")
        if len(checked) == 1:  # the first check, outside: another request changes the password
            changed = api.call(
                "POST",
                "/auth/password/update",
                token=user["access_token"],
                json={"old_password": user["password"], "new_password": "changed meanwhile"},
            )
            assert changed.status_code == 200, changed.text
        return real(password, stored)

    monkeypatch.setattr(password_work, "verify_password", verify)
    response = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]})
    assert_known_error(response, "EMAIL_PASSWORD_MISMATCH", 400)
    # update's own check, then the sign-in's second check against the new hash
    assert len(checked) == 3 and checked[0] != checked[2]


def test_an_empty_email_at_2_8_sign_in_must_not_be_empty(api_28: Api, api_27: Api) -> None:
    body = {"email": "", "password": "correct horse"}
    error = assert_known_error(api_28.call("POST", "/auth/password/sign-in", json=body), "SCHEMA_ERROR", 400)
    assert error["error"].splitlines()[1:] == ["  - body.email must not be empty"]
    # a non-empty malformed address is still refused as one, and 2.7 answers as before
    bad = api_28.call("POST", "/auth/password/sign-in", json={**body, "email": "nope"})
    assert "body.email must be a valid email" in assert_known_error(bad, "SCHEMA_ERROR", 400)["error"]
    old = api_27.call("POST", "/auth/password/sign-in", json=body)
    assert "must not be empty" not in old.text
