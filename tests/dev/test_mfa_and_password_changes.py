"""TOTP second factor (5.4.3, 6.8), verification-code rules (5.3), password update and set."""

from __future__ import annotations

import base64
import os

import pyotp
import pytest

from authmw.dev import Clock

from .conftest import Api, assert_known_error, unique_email


def totp(secret: bytes, at: float) -> str:
    return pyotp.TOTP(base64.b32encode(secret).decode()).at(int(at))


@pytest.fixture
def mfa_user(api: Api, user: dict, clock: Clock) -> dict:
    """A user with TOTP on; the service clock stands still, so `user["code"]()` stays valid."""
    secret = os.urandom(20)
    response = api.call(
        "PATCH", "/users/me", token=user["access_token"], json={"totp_secret_base64": base64.b64encode(secret).decode()}
    )
    assert response.json()["requires_totp_mfa"] is True
    return {**user, "secret": secret, "code": lambda: totp(secret, clock())}


def password_sign_in(api: Api, user: dict):
    return api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]})


def mfa_sign_in(api: Api, code: str, one_time: str):
    return api.call("POST", "/auth/mfa/sign-in", json={"code": code, "type": "totp", "totp": one_time})


def test_sign_in_of_a_totp_user_asks_for_the_second_factor(api: Api, mfa_user: dict) -> None:
    body = assert_known_error(password_sign_in(api, mfa_user), "MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400)
    attempt_code = body["details"]["attempt_code"]
    assert len(attempt_code) == 45
    response = mfa_sign_in(api, attempt_code, mfa_user["code"]())
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert set(tokens) == {"access_token", "refresh_token", "is_new_user", "user_id"}
    assert tokens["is_new_user"] is False and tokens["user_id"] == mfa_user["user_id"]
    again = mfa_sign_in(api, attempt_code, mfa_user["code"]())
    assert_known_error(again, "VERIFICATION_CODE_ALREADY_USED", 409)


def test_a_wrong_totp_keeps_the_attempt_code_usable(api: Api, mfa_user: dict) -> None:
    attempt_code = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    wrong = "000000" if mfa_user["code"]() != "000000" else "111111"
    body = assert_known_error(mfa_sign_in(api, attempt_code, wrong), "INVALID_TOTP_CODE", 400)
    assert body["error"] == "The TOTP code is invalid. Please try again."
    assert mfa_sign_in(api, attempt_code.upper(), mfa_user["code"]()).status_code == 200


def test_only_the_current_step_counts_on_the_service_clock(api: Api, mfa_user: dict, clock: Clock) -> None:
    attempt_code = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    earlier = mfa_user["code"]()
    clock.advance(30)
    if earlier != mfa_user["code"]():  # 1 in 10^6 that two steps share a code
        assert_known_error(mfa_sign_in(api, attempt_code, earlier), "INVALID_TOTP_CODE", 400)
    assert mfa_sign_in(api, attempt_code, mfa_user["code"]()).status_code == 200


def test_a_totp_code_finishes_one_sign_in_only(api: Api, mfa_user: dict, clock: Clock) -> None:
    """RFC 6238 section 5.2: someone who saw the code (and knows the password) cannot reuse it
    within the same 30-second step; the next step's code still signs the user in."""
    code = mfa_user["code"]()
    first = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    assert mfa_sign_in(api, first, code).status_code == 200
    replay = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    body = assert_known_error(mfa_sign_in(api, replay, code), "INVALID_TOTP_CODE", 400)
    assert body["error"] == "The TOTP code is invalid. Please try again."
    clock.advance(30)
    response = mfa_sign_in(api, replay, mfa_user["code"]())
    assert response.status_code == 200, response.text
    assert response.json()["user_id"] == mfa_user["user_id"]


def test_a_used_step_is_the_users_own(api: Api, clock: Clock) -> None:
    """Two users with codes of the same step both sign in: the used step is remembered per user."""
    users = []
    for _ in range(2):
        email = unique_email()
        tokens = api.sign_up(email, "correct horse")
        secret = os.urandom(20)
        api.call(
            "PATCH",
            "/users/me",
            token=tokens["access_token"],
            json={"totp_secret_base64": base64.b64encode(secret).decode()},
        )
        users.append({"email": email, "password": "correct horse", "secret": secret})
    for each in users:
        attempt_code = password_sign_in(api, each).json()["details"]["attempt_code"]
        assert mfa_sign_in(api, attempt_code, totp(each["secret"], clock())).status_code == 200


def test_the_rfc_6238_test_vector_signs_in(api: Api, user: dict, clock: Clock) -> None:
    secret = base64.b64encode(b"12345678901234567890").decode()
    api.call("PATCH", "/users/me", token=user["access_token"], json={"totp_secret_base64": secret})
    clock.freeze(1111111109)
    attempt_code = password_sign_in(api, user).json()["details"]["attempt_code"]
    assert mfa_sign_in(api, attempt_code, "081804").status_code == 200


def test_an_attempt_code_expires_after_five_minutes(api: Api, mfa_user: dict, clock: Clock) -> None:
    attempt_code = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    clock.advance(5 * 60 - 1)
    assert_known_error(
        mfa_sign_in(api, attempt_code, "000000" if mfa_user["code"]() != "000000" else "111111"),
        "INVALID_TOTP_CODE",
        400,
    )
    clock.advance(1)
    assert_known_error(mfa_sign_in(api, attempt_code, mfa_user["code"]()), "VERIFICATION_CODE_EXPIRED", 400)


def test_unknown_attempt_codes_are_not_found_and_length_is_checked(api: Api) -> None:
    assert_known_error(mfa_sign_in(api, "0" * 45, "123456"), "VERIFICATION_CODE_NOT_FOUND", 404)
    body = assert_known_error(mfa_sign_in(api, "0" * 44, "123456"), "SCHEMA_ERROR", 400)
    assert "body.code must be at least 45 characters" in body["error"]


def test_a_code_stops_working_after_twenty_attempts(api: Api, mfa_user: dict) -> None:
    attempt_code = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    wrong = "000000" if mfa_user["code"]() != "000000" else "111111"
    for _ in range(19):
        assert_known_error(mfa_sign_in(api, attempt_code, wrong), "INVALID_TOTP_CODE", 400)
    # a submission with the same nonce but a different prefix counts too
    assert_known_error(mfa_sign_in(api, "zzzzzz" + attempt_code[6:], wrong), "VERIFICATION_CODE_NOT_FOUND", 404)
    response = mfa_sign_in(api, attempt_code, mfa_user["code"]())
    assert_known_error(response, "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED", 400)


def test_update_password_keeps_only_the_current_session(api: Api, user: dict) -> None:
    other = password_sign_in(api, user).json()
    response = api.call(
        "POST",
        "/auth/password/update",
        token=user["access_token"],
        headers={"x-stack-refresh-token": user["refresh_token"]},
        json={"old_password": user["password"], "new_password": "a new password"},
    )
    assert response.status_code == 200 and response.json() == {"success": True}

    def refresh(token: str):
        return api.call("POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": token})

    assert refresh(user["refresh_token"]).status_code == 200
    assert_known_error(refresh(other["refresh_token"]), "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
    signed_in = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": "a new password"})
    assert signed_in.status_code == 200


def test_update_password_errors(api: Api, user: dict) -> None:
    def update(old: str, new: str, token: str | None = user["access_token"]):
        return api.call("POST", "/auth/password/update", token=token, json={"old_password": old, "new_password": new})

    assert_known_error(update("not the password", "long enough"), "PASSWORD_CONFIRMATION_MISMATCH", 400)
    assert_known_error(update(user["password"], "short"), "PASSWORD_TOO_SHORT", 400)
    body = assert_known_error(update(user["password"], "long enough", token=None), "SCHEMA_ERROR", 400)
    assert body["error"].endswith(":\n  - auth.user must be defined")
    no_password = api.call("POST", "/users", "server", json={"primary_email": unique_email()}).json()
    session = api.call("POST", "/auth/sessions", "server", json={"user_id": no_password["id"]}).json()
    assert_known_error(update("x", "long enough", token=session["access_token"]), "USER_DOES_NOT_HAVE_PASSWORD", 400)


def test_set_password_only_when_there_is_none(api: Api, user: dict) -> None:
    created = api.call(
        "POST", "/users", "server", json={"primary_email": unique_email(), "primary_email_auth_enabled": True}
    )
    token = api.call("POST", "/auth/sessions", "server", json={"user_id": created.json()["id"]}).json()["access_token"]
    assert_known_error(
        api.call("POST", "/auth/password/set", token=token, json={"password": "short"}), "PASSWORD_TOO_SHORT", 400
    )
    ok = api.call("POST", "/auth/password/set", token=token, json={"password": "long enough"})
    assert ok.json() == {"success": True}
    twice = api.call("POST", "/auth/password/set", token=token, json={"password": "long enough"})
    assert (twice.status_code, twice.text) == (400, "User already has a password set.")


def test_a_new_secret_starts_afresh(api: Api, mfa_user: dict, clock: Clock) -> None:
    """The step spent with the old secret does not refuse the first code of a new one in the
    same 30 s (the clock stands still); the old secret's code, used, stays refused."""
    old_code = mfa_user["code"]()
    attempt = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    assert mfa_sign_in(api, attempt, old_code).status_code == 200
    new_secret = os.urandom(20)
    changed = api.call(
        "PATCH",
        f"/users/{mfa_user['user_id']}",
        "server",
        json={"totp_secret_base64": base64.b64encode(new_secret).decode()},
    )
    assert changed.status_code == 200, changed.text
    attempt = password_sign_in(api, mfa_user).json()["details"]["attempt_code"]
    assert_known_error(mfa_sign_in(api, attempt, old_code), "INVALID_TOTP_CODE", 400)  # the old secret is gone
    response = mfa_sign_in(api, attempt, totp(new_secret, clock()))
    assert response.status_code == 200, response.text
