"""Sign-up rules (API 2.8): allow, reject, restrict by e-mail, domain, method and country,
set with config overrides (`auth.signUpRules.<id>`, `auth.signUpRulesDefaultAction`).

A fresh service per module: the rules change the project's settings. The expression language's
own corner cases are unit tests at the end (pure code).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from authmw.dev import LocalService
from authmw_local.sign_up_rules import CelError, evaluate_condition, parse_condition

from .conftest import Api, assert_known_error, unique_email

REJECTED = "Your sign up was rejected by an administrator's sign-up rule."
BROWSER = {"user-agent": "Mozilla/5.0"}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    with LocalService(tmp_path_factory.mktemp("sign-up-rules"), quiet=True, api="2.8") as service:
        yield service


@pytest.fixture
def api(running: LocalService) -> Iterator[Api]:
    api = Api.of(running)
    yield api
    # every test starts from no rules and the default "allow" (taken out of both levels: a null
    # kept by the environment would hide the branch's rules, as on 2.8.86)
    for level in ("environment", "branch"):
        keys = {"keys": ["auth.signUpRules", "auth.signUpRulesDefaultAction"]}
        reset = api.call("POST", f"/internal/config/override/{level}/reset-keys", "admin", json=keys)
        assert reset.status_code == 200, reset.text


def override(api: Api, config: Any, level: str = "environment") -> httpx.Response:
    return api.call(
        "PATCH",
        f"/internal/config/override/{level}",
        "admin",
        json={"config_override_string": json.dumps(config)},
    )


def rule(condition: str, action: str, priority: int = 0, message: str | None = None, **more: Any) -> dict[str, Any]:
    kind = {"type": action} if message is None else {"type": action, "message": message}
    return {"enabled": True, "priority": priority, "condition": condition, "action": kind, **more}


def set_rules(api: Api, config: dict[str, Any]) -> None:
    response = override(api, config)
    assert response.status_code == 200, response.text


def password_sign_up(api: Api, email: str, **headers: str) -> httpx.Response:
    return api.call(
        "POST", "/auth/password/sign-up", headers=headers, json={"email": email, "password": "correct horse"}
    )


def server_user(api: Api, user_id: str) -> dict[str, Any]:
    response = api.call("GET", f"/users/{user_id}", "server")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_a_reject_rule_refuses_the_sign_up_without_telling_why(api: Api) -> None:
    set_rules(
        api,
        {"auth.signUpRules.no-spam": rule('email.contains("spam")', "reject", message="internal: spam wave of May")},
    )
    refused = password_sign_up(api, f"spam-{unique_email()}")
    body = assert_known_error(refused, "SIGN_UP_REJECTED", 403)
    assert body["error"] == REJECTED and "spam wave" not in refused.text
    # control: another address signs up
    assert password_sign_up(api, unique_email()).status_code == 200


def test_an_allowlist_is_a_default_reject_with_allow_rules(api: Api) -> None:
    set_rules(
        api,
        {
            "auth.signUpRulesDefaultAction": "reject",
            "auth.signUpRules.staff": rule('emailDomain == "staff.example"', "allow"),
            "auth.signUpRules.partners": rule('emailDomain in ["partner.example", "ally.example"]', "allow"),
        },
    )
    assert password_sign_up(api, "Ann@Staff.Example").status_code == 200  # domains compare lower-cased
    assert password_sign_up(api, "bob@ally.example").status_code == 200
    assert_known_error(password_sign_up(api, "eve@elsewhere.example"), "SIGN_UP_REJECTED", 403)


def test_a_blocklist_of_addresses_and_domains(api: Api) -> None:
    set_rules(
        api,
        {
            "auth.signUpRules.blocked-address": rule('email == "mallory@example.com"', "reject"),
            "auth.signUpRules.blocked-domain": rule('emailDomain.endsWith("tempmail.example")', "reject"),
        },
    )
    assert_known_error(password_sign_up(api, "Mallory@example.com"), "SIGN_UP_REJECTED", 403)
    assert_known_error(password_sign_up(api, "x@eu.tempmail.example"), "SIGN_UP_REJECTED", 403)
    assert password_sign_up(api, unique_email()).status_code == 200


def test_priority_decides_and_ties_go_by_id(api: Api) -> None:
    set_rules(
        api,
        {
            "auth.signUpRules.b-reject": rule("true", "reject", priority=1),
            "auth.signUpRules.a-allow": rule("true", "allow", priority=1),  # same priority, first by id
            "auth.signUpRules.z-reject-low": rule("true", "reject", priority=0),
        },
    )
    assert password_sign_up(api, unique_email()).status_code == 200
    set_rules(api, {"auth.signUpRules.b-reject.priority": 2})  # one field of a rule
    assert_known_error(password_sign_up(api, unique_email()), "SIGN_UP_REJECTED", 403)
    set_rules(api, {"auth.signUpRules.b-reject.enabled": False})  # a disabled rule is skipped
    assert password_sign_up(api, unique_email()).status_code == 200


def test_a_restrict_rule_makes_a_restricted_user_and_evaluation_goes_on(api: Api) -> None:
    set_rules(
        api,
        {
            "auth.signUpRules.review": rule('emailDomain == "review.example"', "restrict", 5, displayName="Review"),
            "auth.signUpRules.later": rule("true", "restrict", 1),
            "auth.signUpRules.closed": rule('email.startsWith("closed")', "reject", 0),
        },
    )
    created = password_sign_up(api, "someone@review.example")
    assert created.status_code == 200, created.text
    user = server_user(api, created.json()["user_id"])
    assert user["restricted_by_admin"] is True
    assert user["restricted_by_admin_private_details"] == "Restricted by sign-up rule review (Review)"
    assert user["is_restricted"] is True and user["restricted_reason"] == {"type": "restricted_by_administrator"}
    # the restriction does not stop a later reject rule
    assert_known_error(password_sign_up(api, "closed@review.example"), "SIGN_UP_REJECTED", 403)
    # control: a user no restrict rule matched first gets the first matching one's id only
    other = server_user(api, password_sign_up(api, unique_email()).json()["user_id"])
    assert other["restricted_by_admin_private_details"] == "Restricted by sign-up rule later"


def test_rules_see_the_method_and_cover_otp_sign_ups_only_for_new_users(api: Api) -> None:
    existing = unique_email()
    assert password_sign_up(api, existing).status_code == 200
    api.set_config(magic_link_enabled=True)
    set_rules(api, {"auth.signUpRules.no-otp": rule('authMethod == "otp"', "reject")})

    def otp_sign_in(email: str) -> httpx.Response:
        sent = api.call(
            "POST",
            "/auth/otp/send-sign-in-code",
            json={"email": email, "callback_url": "http://localhost:3000/handler/magic-link-callback"},
        )
        assert sent.status_code == 200, sent.text
        mail = api.http.get("/dev/outbox", params={"to": email}).json()["items"][0]
        code = parse_qs(urlsplit(mail["link"]).query)["code"][0]
        return api.call("POST", "/auth/otp/sign-in", json={"code": code})

    assert_known_error(otp_sign_in(unique_email()), "SIGN_UP_REJECTED", 403)
    # a sign-in is no sign-up: the existing user's code still works (their e-mail is unverified,
    # so verify it first, as OTP asks)
    user_id = api.call("POST", "/auth/password/sign-in", json={"email": existing, "password": "correct horse"})
    assert user_id.status_code == 200
    api.call("PATCH", f"/users/{user_id.json()['user_id']}", "server", json={"primary_email_verified": True})
    assert otp_sign_in(existing).status_code == 200
    # and password sign-ups are not "otp"
    assert password_sign_up(api, unique_email()).status_code == 200


def test_anonymous_users_are_not_checked_until_they_sign_up(api: Api) -> None:
    set_rules(
        api,
        {"auth.signUpRulesDefaultAction": "reject", "auth.signUpRules.ok": rule('email.endsWith("@ok.example")', "allow")},
    )
    allow = {"x-stack-allow-anonymous-user": "true"}
    anonymous = api.call("POST", "/auth/anonymous/sign-up", json={})
    assert anonymous.status_code == 200, anonymous.text
    token = anonymous.json()["access_token"]
    upgrade = api.call(
        "POST",
        "/auth/password/sign-up",
        token=token,
        headers=allow,
        json={"email": "anon@elsewhere.example", "password": "correct horse"},
    )
    assert_known_error(upgrade, "SIGN_UP_REJECTED", 403)
    upgraded = api.call(
        "POST",
        "/auth/password/sign-up",
        token=token,
        headers=allow,
        json={"email": "anon@ok.example", "password": "correct horse"},
    )
    assert upgraded.status_code == 200, upgraded.text
    assert upgraded.json()["user_id"] == anonymous.json()["user_id"]


def test_country_comes_from_the_request_or_a_tag_of_an_example_address(api: Api) -> None:
    set_rules(api, {"auth.signUpRules.no-fr": rule('countryCode == "FR"', "reject")})
    from_france = password_sign_up(api, unique_email(), **BROWSER, **{"x-vercel-ip-country": "fr"})
    assert_known_error(from_france, "SIGN_UP_REJECTED", 403)
    assert_known_error(password_sign_up(api, "someone+FR@example.com"), "SIGN_UP_REJECTED", 403)
    assert password_sign_up(api, unique_email(), **BROWSER, **{"x-vercel-ip-country": "de"}).status_code == 200
    # the tag only counts on example.com, the addresses the backend reserves for it
    assert password_sign_up(api, "someone+FR@elsewhere.example").status_code == 200


def test_a_failing_condition_does_not_match(api: Api) -> None:
    set_rules(api, {"auth.signUpRules.bad-regex": rule('email.matches("a(b")', "reject")})
    assert password_sign_up(api, unique_email()).status_code == 200


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"auth.signUpRules.r": rule('email ==', "reject")}, "auth.signUpRules.r.condition does not parse"),
        ({"auth.signUpRules.r": rule('email.lower() == "x"', "reject")}, "unknown method lower()"),
        ({"auth.signUpRules.r": rule("true", "ban")}, "auth.signUpRules.r.action must be"),
        ({"auth.signUpRules.r": {**rule("true", "allow"), "priority": -1}}, "priority must be a whole number"),
        ({"auth.signUpRules.r": {**rule("true", "allow"), "colour": "red"}}, "unknown field 'colour'"),
        ({"auth.signUpRulesDefaultAction": "maybe"}, "must be one of allow, reject"),
    ],
)
def test_bad_rules_are_refused_naming_the_problem(api: Api, config: dict[str, Any], message: str) -> None:
    response = override(api, config)
    assert response.status_code == 400
    assert message in response.text
    assert password_sign_up(api, unique_email()).status_code == 200  # nothing was saved


def test_rules_are_branch_settings(api: Api) -> None:
    refused = override(api, {"auth.signUpRules.r": rule("true", "reject")}, level="project")
    assert refused.status_code == 400 and "branch or environment level" in refused.text
    assert override(api, {"auth.signUpRules.r": rule("true", "reject")}, level="branch").status_code == 200
    assert_known_error(password_sign_up(api, unique_email()), "SIGN_UP_REJECTED", 403)


def test_the_rendered_config_lists_the_rules_in_order_and_keys_reset(api: Api) -> None:
    set_rules(
        api,
        {
            "auth.signUpRules": {"low": rule("true", "log", 0), "high": rule("false", "reject", 9)},
            "auth.signUpRulesDefaultAction": "reject",
        },
    )
    got = api.call("GET", "/internal/config", "admin")
    assert got.status_code == 200, got.text
    auth = json.loads(got.json()["config_string"])["auth"]
    assert list(auth["signUpRules"]) == ["high", "low"]
    assert auth["signUpRules"]["low"] == {
        "enabled": True,
        "displayName": None,
        "priority": 0,
        "condition": "true",
        "action": {"type": "log"},
    }
    assert auth["signUpRulesDefaultAction"] == "reject"
    reset = api.call(
        "POST", "/internal/config/override/environment/reset-keys", "admin", json={"keys": ["auth.signUpRules"]}
    )
    assert reset.status_code == 200, reset.text
    auth = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])["auth"]
    assert auth["signUpRules"] == {} and auth["signUpRulesDefaultAction"] == "reject"
    # the server tier may not read the config
    assert api.call("GET", "/internal/config", "server").status_code == 401


def test_an_admin_restriction_needs_restricted_by_admin_in_the_same_update(api: Api) -> None:
    user_id = password_sign_up(api, unique_email()).json()["user_id"]
    refused = api.call(
        "PATCH", f"/users/{user_id}", "server", json={"restricted_by_admin": False, "restricted_by_admin_reason": "x"}
    )
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    assert "restricted_by_admin_reason must be null when restricted_by_admin is not true" in refused.text
    ok = api.call(
        "PATCH", f"/users/{user_id}", "server", json={"restricted_by_admin": True, "restricted_by_admin_reason": "x"}
    )
    assert ok.status_code == 200 and ok.json()["restricted_by_admin_reason"] == "x"


# -- the expression language (pure code) ------------------------------------------------------

FACTS = {
    "email": "aa+tag@example.com",
    "emailDomain": "example.com",
    "authMethod": "password",
    "oauthProvider": "",
    "countryCode": "",
    "riskScores": {"bot": 10, "free_trial_abuse": 0},
}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ('email.matches("^(a)\\\\1")', True),  # a backreference, as the backend's regular expressions have
        ('email.contains("+tag") && !email.contains("-tag")', True),
        ('!(authMethod in ["password", "otp"])', False),
        ('(email.contains("x") || email.contains("aa")) && emailDomain == "example.com"', True),
        ('email.contains("test\\"value")', False),
        ("riskScores.bot >= 10 && riskScores.bot < 11", True),
        ('oauthProvider == ""', True),
        ("'single' == \"single\"", True),
    ],
)
def test_conditions(condition: str, expected: bool) -> None:
    assert evaluate_condition(condition, FACTS) is expected


@pytest.mark.parametrize(
    "condition",
    ["", "email ==", "email == 'x' &&", "(true", "email.size()", 'email @ "x"', '"x" + "y"', 'email == "\\q"'],
)
def test_conditions_that_do_not_parse(condition: str) -> None:
    with pytest.raises(CelError):
        parse_condition(condition)


@pytest.mark.parametrize("condition", ['email.matches("a(b")', "nothing == 1", '"x" < 1', "email", "[1] in 1"])
def test_conditions_that_fail_while_evaluated(condition: str) -> None:
    with pytest.raises(CelError):
        evaluate_condition(condition, FACTS)


def rules_test(api: Api, tier: str = "admin", **body: Any) -> httpx.Response:
    full = {"email": "user@example.com", "auth_method": "password", "oauth_provider": None, "country_code": None, **body}
    return api.call("POST", "/internal/sign-up-rules-test", tier, json=full)


def test_the_rule_tester_shows_each_rule_tried_and_the_decision(api: Api) -> None:
    nothing = rules_test(api)
    assert nothing.status_code == 200, nothing.text
    assert nothing.json()["evaluations"] == []
    assert nothing.json()["outcome"] == {
        "should_allow": True,
        "decision": "default-allow",
        "decision_rule_id": None,
        "restricted_because_of_rule_id": None,
    }
    set_rules(
        api,
        {
            "auth.signUpRules.log": rule('emailDomain == "example.com"', "log", priority=4, displayName="Log"),
            "auth.signUpRules.off": {**rule("true", "reject", priority=3), "enabled": False},
            "auth.signUpRules.limit": rule('countryCode == "DE"', "restrict", priority=2),
            "auth.signUpRules.oauth": rule('authMethod == "oauth"', "reject", priority=1, message="No OAuth"),
            "auth.signUpRules.late": rule("riskScores.bot >= 50", "reject"),
            "auth.signUpRulesDefaultAction": "reject",
        },
    )
    r = rules_test(api, email="Ann@Example.com", auth_method="oauth", oauth_provider="google", country_code="de")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["context"] == {
        "email": "ann@example.com",
        "email_domain": "example.com",
        "country_code": "DE",
        "auth_method": "oauth",
        "oauth_provider": "google",
        "turnstile_result": "invalid",
        "risk_scores": {"bot": 0, "free_trial_abuse": 0},
    }
    assert [(e["rule_id"], e["status"]) for e in body["evaluations"]] == [
        ("log", "matched"),
        ("off", "disabled"),
        ("limit", "matched"),
        ("oauth", "matched"),
    ]  # the rules after the deciding one are not tried
    assert body["evaluations"][0] == {
        "rule_id": "log",
        "display_name": "Log",
        "enabled": True,
        "condition": 'emailDomain == "example.com"',
        "status": "matched",
        "action": {"type": "log"},
    }
    assert body["evaluations"][3]["action"] == {"type": "reject", "message": "No OAuth"}
    assert body["outcome"] == {
        "should_allow": False,
        "decision": "reject",
        "decision_rule_id": "oauth",
        "restricted_because_of_rule_id": "limit",
    }
    # risk scores given in the body are used; none decides, so the default (reject) does
    scored = rules_test(api, risk_scores={"bot": 40, "free_trial_abuse": 0}, turnstile_result="ok").json()
    assert scored["context"]["risk_scores"] == {"bot": 40, "free_trial_abuse": 0}
    assert scored["context"]["turnstile_result"] == "ok"
    assert scored["outcome"]["decision"] == "default-reject" and scored["outcome"]["should_allow"] is False
    high = rules_test(api, risk_scores={"bot": 50, "free_trial_abuse": 0}).json()
    assert high["outcome"]["decision_rule_id"] == "late"


def test_the_rule_tester_is_for_the_admin_tier_and_checks_its_body(api: Api) -> None:
    for tier in ("client", "server"):
        assert_known_error(rules_test(api, tier), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert_known_error(rules_test(api, auth_method="magic"), "SCHEMA_ERROR", 400)
    assert_known_error(rules_test(api, risk_scores={"bot": 101, "free_trial_abuse": 0}), "SCHEMA_ERROR", 400)
    missing = api.call("POST", "/internal/sign-up-rules-test", "admin", json={"email": None})
    assert_known_error(missing, "SCHEMA_ERROR", 400)
