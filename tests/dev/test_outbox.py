"""E-mails stay on the machine: the outbox at GET /dev/outbox, and URL trust (7.3)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from authmw_local.projects import Project, default_config
from authmw_local.urls import is_trusted_url

from .conftest import Api, assert_known_error, unique_email


def sign_up(api: Api, email: str, callback: str) -> None:
    response = api.call(
        "POST",
        "/auth/password/sign-up",
        json={"email": email, "password": "long enough", "verification_callback_url": callback},
    )
    assert response.status_code == 200, response.text


def outbox(api: Api, email: str) -> list[dict]:
    response = api.http.get("/dev/outbox", params={"to": email})
    assert response.status_code == 200
    return response.json()["items"]


def test_sign_up_sends_a_verification_link_to_a_trusted_callback(api: Api) -> None:
    email = unique_email()
    sign_up(api, email, "http://localhost:5173/handler/email-verification?after_auth_return_to=%2F")
    [mail] = outbox(api, email)
    assert mail["kind"] == "email_verification" and mail["to"] == email
    assert mail["subject"] == "Verify your email at authmw local project"
    link = urlsplit(mail["link"])
    assert (link.hostname, link.port, link.path) == ("localhost", 5173, "/handler/email-verification")
    query = parse_qs(link.query)
    assert query["after_auth_return_to"] == ["/"]
    assert len(query["code"][0]) == 45
    assert mail["link"] in mail["body"]


def test_an_untrusted_callback_sends_nothing_but_sign_up_succeeds_in_27(api_27: Api) -> None:
    email = unique_email()
    sign_up(api_27, email, "https://attacker.example.net/verify")
    assert outbox(api_27, email) == []


def test_an_untrusted_callback_refuses_the_sign_up_in_28(api_28: Api) -> None:
    """2.8 checks the URL first (service-api B14.1): no user, no mail."""
    email = unique_email()
    body = {"email": email, "password": "long enough", "verification_callback_url": "https://attacker.example.net/v"}
    response = api_28.call("POST", "/auth/password/sign-up", json=body)
    assert_known_error(response, "REDIRECT_URL_NOT_WHITELISTED", 400)
    assert outbox(api_28, email) == []
    signed_in = api_28.call("POST", "/auth/password/sign-in", json={"email": email, "password": "long enough"})
    assert_known_error(signed_in, "EMAIL_PASSWORD_MISMATCH", 400)
    # Without a callback URL the sign-up succeeds and sends no mail.
    plain = api_28.call("POST", "/auth/password/sign-up", json={"email": email, "password": "long enough"})
    assert plain.status_code == 200, plain.text
    assert outbox(api_28, email) == []


def project_with(domains: list[str], allow_localhost: bool = True) -> Project:
    config = {
        **default_config(),
        "allow_localhost": allow_localhost,
        "domains": [{"domain": d, "handler_path": "/handler"} for d in domains],
    }
    return Project("p", "p", "", 0, False, "c", config)


@pytest.mark.parametrize(
    ("url", "trusted_27", "trusted_28"),
    [
        ("http://localhost:3000/anything", True, True),
        ("http://app.localhost/x", True, True),
        ("http://127.0.0.1:8000/x", True, True),
        # another port of a trusted domain: 2.7 did not compare ports; 2.8 does (the attack)
        ("https://app.example.com:8443/auth/cb", True, False),
        ("https://app.example.com:443/auth/cb", True, True),  # the default port, written out
        ("https://app.example.com/other", False, True),  # 2.7 compares the domain's path, 2.8 not
        ("http://app.example.com/auth/cb", False, False),  # another protocol
        ("https://evil.example.com/auth/cb", False, False),
        ("not a url", False, False),
    ],
)
def test_url_trust_rules(url: str, trusted_27: bool, trusted_28: bool) -> None:
    project = project_with(["https://app.example.com/auth"])
    assert is_trusted_url(project, url, rule_2_8=False) is trusted_27
    assert is_trusted_url(project, url, rule_2_8=True) is trusted_28


def test_localhost_needs_allow_localhost() -> None:
    assert is_trusted_url(project_with([], allow_localhost=False), "http://localhost:3000/") is False


def test_the_verification_link_code_verifies_the_primary_email(api: Api) -> None:
    email = unique_email()
    sign_up(api, email, "http://localhost:3000/handler/email-verification")
    code = parse_qs(urlsplit(outbox(api, email)[0]["link"]).query)["code"][0]
    check = api.call("POST", "/contact-channels/verify/check-code", json={"code": code})
    assert check.json() == {"is_code_valid": True}
    verified = api.call("POST", "/contact-channels/verify", json={"code": code.upper()})
    assert verified.status_code == 200 and verified.json() == {"success": True}
    signed_in = api.call("POST", "/auth/password/sign-in", json={"email": email, "password": "long enough"}).json()
    me = api.call("GET", "/users/me", token=signed_in["access_token"]).json()
    assert me["primary_email_verified"] is True
    again = api.call("POST", "/contact-channels/verify", json={"code": code})
    assert again.status_code == 409 and again.headers["x-stack-known-error"] == "VERIFICATION_CODE_ALREADY_USED"


def reset_code_for(api: Api, email: str) -> str:
    response = api.call(
        "POST", "/auth/password/send-reset-code", json={"email": email, "callback_url": "http://localhost:3000/reset"}
    )
    assert response.json() == {"success": "maybe, only if user with e-mail exists"}
    [mail] = [m for m in outbox(api, email) if m["kind"] == "password_reset"][:1]
    return parse_qs(urlsplit(mail["link"]).query)["code"][0]


def test_password_reset_by_e_mailed_code(api: Api, user: dict) -> None:
    code = reset_code_for(api, user["email"])
    assert api.call("POST", "/auth/password/reset/check-code", json={"code": code}).json() == {"is_code_valid": True}
    reset = api.call("POST", "/auth/password/reset", json={"code": code, "password": "after the reset"})
    assert reset.json() == {"success": True}
    refresh = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    assert refresh.headers["x-stack-known-error"] == "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED"  # every session ended
    sign_in = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": "after the reset"})
    assert sign_in.status_code == 200


def test_a_failed_reset_still_uses_up_the_code(api: Api, user: dict) -> None:
    code = reset_code_for(api, user["email"])
    short = api.call("POST", "/auth/password/reset", json={"code": code, "password": "short"})
    assert short.headers["x-stack-known-error"] == "PASSWORD_TOO_SHORT"
    again = api.call("POST", "/auth/password/reset", json={"code": code, "password": "long enough"})
    assert again.headers["x-stack-known-error"] == "VERIFICATION_CODE_ALREADY_USED"


def test_reset_code_for_an_untrusted_callback_is_refused(api: Api, user: dict) -> None:
    response = api.call(
        "POST",
        "/auth/password/send-reset-code",
        json={"email": user["email"], "callback_url": "https://evil.example/r"},
    )
    assert response.headers["x-stack-known-error"] == "REDIRECT_URL_NOT_WHITELISTED"


def test_reset_for_an_unknown_email_answers_the_same_after_a_delay(api: Api) -> None:
    import threading
    import time

    email = unique_email()
    result: dict = {}

    def send() -> None:
        started = time.monotonic()
        result["response"] = api.call(
            "POST", "/auth/password/send-reset-code", json={"email": email, "callback_url": "http://localhost:3000/r"}
        )
        result["seconds"] = time.monotonic() - started

    slow = threading.Thread(target=send)
    slow.start()
    time.sleep(0.2)  # lets the slow request begin; it then waits at least 2 s
    assert api.call("GET", "/projects/current").status_code == 200
    # The delay holds no lock: this call was answered while the slow one still waits (no
    # stopwatch, which a loaded machine would fail).
    assert slow.is_alive()
    slow.join()
    assert result["response"].json() == {"success": "maybe, only if user with e-mail exists"}
    assert result["seconds"] >= 2.0
    assert outbox(api, email) == []
