"""Magic link / OTP sign-in: service-api A5.4.2 and flow 6.2."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import Api, assert_known_error, unique_email

CALLBACK = "http://localhost:3000/handler/magic-link-callback"


@pytest.fixture
def magic_link(project_config) -> Iterator[None]:
    project_config(magic_link_enabled=True)
    yield


def send_code(api: Api, email: str, callback: str = CALLBACK):
    return api.call("POST", "/auth/otp/send-sign-in-code", json={"email": email, "callback_url": callback})


def last_mail(api: Api, email: str) -> dict:
    return api.http.get("/dev/outbox", params={"to": email}).json()["items"][0]


def test_a_new_email_signs_up_through_the_link(api: Api, magic_link: None) -> None:
    email = unique_email()
    response = send_code(api, email)
    assert response.status_code == 200
    nonce = response.json()["nonce"]
    assert len(nonce) == 39
    mail = last_mail(api, email)
    code = parse_qs(urlsplit(mail["link"]).query)["code"][0]
    assert code.endswith(nonce)
    assert mail["subject"] == f"Sign in to authmw local project: Your code is {code[:6].upper()}"
    signed_in = api.call("POST", "/auth/otp/sign-in", json={"code": code})
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert set(body) == {"access_token", "refresh_token", "is_new_user", "user_id"}
    assert body["is_new_user"] is True
    me = api.call("GET", "/users/me", token=body["access_token"]).json()
    assert (me["primary_email"], me["primary_email_verified"], me["otp_auth_enabled"]) == (email, True, True)
    assert me["has_password"] is False and me["auth_with_email"] is True


def test_an_existing_user_signs_in_with_the_typed_otp(api: Api, magic_link: None) -> None:
    email = unique_email()
    send_code(api, email)
    first = parse_qs(urlsplit(last_mail(api, email)["link"]).query)["code"][0]
    user_id = api.call("POST", "/auth/otp/sign-in", json={"code": first}).json()["user_id"]
    nonce = send_code(api, email).json()["nonce"]
    otp = last_mail(api, email)["subject"].rsplit(" ", 1)[1]
    assert api.call("POST", "/auth/otp/sign-in/check-code", json={"code": otp + nonce}).json() == {
        "is_code_valid": True
    }
    again = api.call("POST", "/auth/otp/sign-in", json={"code": otp + nonce}).json()
    assert (again["user_id"], again["is_new_user"]) == (user_id, False)
    used = api.call("POST", "/auth/otp/sign-in", json={"code": first})
    assert_known_error(used, "VERIFICATION_CODE_ALREADY_USED", 409)


def test_magic_link_disabled_is_a_plain_403_worded_as_2_7_words_it(api_27: Api) -> None:
    api_27.set_config(magic_link_enabled=False)
    try:
        response = send_code(api_27, unique_email())
    finally:
        api_27.set_config(magic_link_enabled=True)  # the local project's start value
    assert (response.status_code, response.text) == (403, "Magic link is not enabled for this project")


def test_otp_disabled_is_worded_as_2_8_words_it(api_28: Api) -> None:
    api_28.set_config(magic_link_enabled=False)
    try:
        response = send_code(api_28, unique_email())
    finally:
        api_28.set_config(magic_link_enabled=True)  # the local project's start value
    assert (response.status_code, response.text) == (403, "OTP sign-in is not enabled for this project")


def test_send_code_errors(api: Api, user: dict, magic_link: None, project_config) -> None:
    assert_known_error(send_code(api, unique_email(), "https://evil.example/cb"), "REDIRECT_URL_NOT_WHITELISTED", 400)
    # a password user whose e-mail is not verified yet
    assert_known_error(send_code(api, user["email"]), "USER_EMAIL_ALREADY_EXISTS", 409)
    project_config(sign_up_enabled=False)
    assert_known_error(send_code(api, unique_email()), "SIGN_UP_NOT_ENABLED", 400)


def test_the_code_stands_alone_on_its_own_line_of_the_mail(api: Api, magic_link: None) -> None:
    email = unique_email()
    send_code(api, email)
    mail = last_mail(api, email)
    otp = mail["subject"].rsplit(" ", 1)[1]
    assert re.findall(r"^[A-Z0-9]{6}$", mail["body"], re.MULTILINE) == [otp]


def test_a_verified_secondary_sign_in_address_receives_codes_for_its_user(
    api: Api, user: dict, magic_link: None
) -> None:
    second = unique_email()
    created = api.call(
        "POST",
        "/contact-channels",
        "server",
        json={"user_id": user["user_id"], "type": "email", "value": second, "used_for_auth": True, "is_verified": True},
    )
    assert created.status_code == 201, created.text
    assert send_code(api, second).status_code == 200
    code = parse_qs(urlsplit(last_mail(api, second)["link"]).query)["code"][0]
    signed_in = api.call("POST", "/auth/otp/sign-in", json={"code": code}).json()
    assert (signed_in["user_id"], signed_in["is_new_user"]) == (user["user_id"], False)


def test_an_unverified_sign_in_address_gets_no_code(api: Api, user: dict, magic_link: None) -> None:
    # The attack: someone else's account signed up with an address its owner never verified;
    # a code mailed there must not open that account.
    second = unique_email()
    api.call(
        "POST",
        "/contact-channels",
        "server",
        json={"user_id": user["user_id"], "type": "email", "value": second, "used_for_auth": True},
    )
    assert_known_error(send_code(api, second), "USER_EMAIL_ALREADY_EXISTS", 409)
    assert_known_error(send_code(api, user["email"]), "USER_EMAIL_ALREADY_EXISTS", 409)  # unverified primary too
    assert api.http.get("/dev/outbox", params={"to": second}).json()["items"] == []


def test_an_unverified_address_is_named_as_2_8_names_it(api_28: Api) -> None:
    email = unique_email()
    api_28.sign_up(email)
    body = assert_known_error(send_code(api_28, email), "USER_EMAIL_ALREADY_EXISTS", 409)
    assert body["details"] == {"email": email, "would_work_if_email_was_verified": True}
    assert body["error"] == (
        f'A user with email "{email}" already exists but the email is not verified. Please login to your existing'
        " account with the method you used to sign up, and then verify your email to sign in with this login method."
    )


def test_the_bot_challenge_fields_are_accepted_from_2_8_clients_only(api_27: Api, api_28: Api) -> None:
    body = {"callback_url": CALLBACK, "bot_challenge_token": "token", "bot_challenge_phase": "invisible"}
    before = {
        api: api.call("GET", api.admin_project_path, "admin").json()["config"]["magic_link_enabled"]
        for api in (api_27, api_28)
    }
    try:
        for api in before:
            api.set_config(magic_link_enabled=True)
        sent = api_28.call("POST", "/auth/otp/send-sign-in-code", json={"email": unique_email(), **body})
        assert sent.status_code == 200, sent.text
        refused = api_27.call("POST", "/auth/otp/send-sign-in-code", json={"email": unique_email(), **body})
        error = assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]
        assert "body contains unknown properties: bot_challenge_token, bot_challenge_phase" in error
        unknown = api_28.call("POST", "/auth/otp/send-sign-in-code", json={"email": unique_email(), **body, "x": 1})
        assert "body contains unknown properties: x" in assert_known_error(unknown, "SCHEMA_ERROR", 400)["error"]
    finally:
        for api, enabled in before.items():
            api.set_config(magic_link_enabled=enabled)


def test_an_e_mail_code_sign_up_selects_its_personal_team_in_2_8_only(api_27: Api, api_28: Api) -> None:
    for api, selected in ((api_28, True), (api_27, False)):
        before = api.call("GET", api.admin_project_path, "admin").json()["config"]
        api.set_config(create_team_on_sign_up=True, magic_link_enabled=True)
        try:
            email = unique_email()
            assert send_code(api, email).status_code == 200
            code = parse_qs(urlsplit(last_mail(api, email)["link"]).query)["code"][0]
            tokens = api.call("POST", "/auth/otp/sign-in", json={"code": code}).json()
            me = api.call("GET", "/users/me", token=tokens["access_token"]).json()
            teams = api.call("GET", "/teams?user_id=me", token=tokens["access_token"]).json()["items"]
            assert [t["display_name"] for t in teams] == [f"{email}'s Team"]
            assert me["selected_team_id"] == (teams[0]["id"] if selected else None)
        finally:
            api.set_config(
                create_team_on_sign_up=before["create_team_on_sign_up"], magic_link_enabled=before["magic_link_enabled"]
            )


def _code_for(api: Api, email: str) -> str:
    assert send_code(api, email).status_code == 200
    return parse_qs(urlsplit(last_mail(api, email)["link"]).query)["code"][0]


def test_an_e_mail_code_sign_up_upgrades_the_anonymous_user_of_the_token(api_28: Api, config_28) -> None:
    """Contract 2.8, 7.3: a new address signs up into the anonymous user (same id); an address
    that has an account signs into that account and leaves the anonymous user alone."""
    config_28(magic_link_enabled=True)
    allow = {"x-stack-allow-anonymous-user": "true"}
    anonymous = api_28.call("POST", "/auth/anonymous/sign-up", json={}).json()
    email = unique_email()
    code = _code_for(api_28, email)
    token = anonymous["access_token"]
    signed = api_28.call("POST", "/auth/otp/sign-in", token=token, headers=allow, json={"code": code})
    assert signed.status_code == 200, signed.text
    assert (signed.json()["user_id"], signed.json()["is_new_user"]) == (anonymous["user_id"], True)
    me = api_28.call("GET", "/users/me", token=signed.json()["access_token"]).json()
    assert (me["id"], me["is_anonymous"], me["primary_email"], me["primary_email_verified"]) == (
        anonymous["user_id"], False, email, True
    )
    # an existing account: signed into, the other anonymous user stays anonymous
    other = api_28.call("POST", "/auth/anonymous/sign-up", json={}).json()
    again = api_28.call(
        "POST", "/auth/otp/sign-in", token=other["access_token"], headers=allow, json={"code": _code_for(api_28, email)}
    )
    assert again.json()["user_id"] == anonymous["user_id"]
    still = api_28.call("GET", f"/users/{other['user_id']}?include_anonymous=true", "server").json()
    assert still["is_anonymous"] is True


def _link_code(api: Api, email: str) -> str:
    return parse_qs(urlsplit(last_mail(api, email)["link"]).query)["code"][0]


def test_a_code_opens_no_account_signed_up_with_its_address_meanwhile_unverified(api: Api, magic_link: None) -> None:
    # The attack: a code goes to an address nobody uses yet; before its owner clicks it, an
    # attacker signs up with that address by password (never verifying it). The link must not
    # sign its owner into the attacker's account (the service checks the address again).
    email = unique_email()
    assert send_code(api, email).status_code == 200
    code = _link_code(api, email)
    attacker = api.sign_up(email, "attacker's password")
    body = assert_known_error(
        api.call("POST", "/auth/otp/sign-in", json={"code": code}), "USER_EMAIL_ALREADY_EXISTS", 409
    )
    assert body["details"]["would_work_if_email_was_verified"] is True
    me = api.call("GET", "/users/me", token=attacker["access_token"]).json()
    assert me["otp_auth_enabled"] is False
    again = api.call("POST", "/auth/otp/sign-in", json={"code": code})
    assert_known_error(again, "VERIFICATION_CODE_ALREADY_USED", 409)


def test_a_code_signs_into_an_account_that_verified_its_address_meanwhile(api: Api, magic_link: None) -> None:
    # The control: the account made meanwhile proved it owns the address; the code signs into it.
    email = unique_email()
    assert send_code(api, email).status_code == 200
    code = _link_code(api, email)
    account = api.sign_up(email)
    verified = api.call("PATCH", f"/users/{account['user_id']}", "server", json={"primary_email_verified": True})
    assert verified.status_code == 200, verified.text
    signed_in = api.call("POST", "/auth/otp/sign-in", json={"code": code})
    assert signed_in.status_code == 200, signed_in.text
    assert (signed_in.json()["user_id"], signed_in.json()["is_new_user"]) == (account["user_id"], False)
