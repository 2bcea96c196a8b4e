"""``admin.sign_up_rules`` and ``update_config`` / ``get_config`` (API 2.8) over HTTP against a
local service answering as 2.8, sync and async; a 2.7 service has no config and says so."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from authmw import AdminApp, AsyncAdminApp, ClientApp
from authmw.errors import HttpStatusError, NotInServiceVersion, SignUpRejected
from authmw.models import SignUpRule

_numbers = itertools.count()


def email(domain: str = "example.com") -> str:
    return f"rules-{next(_numbers)}@{domain}"


@pytest.fixture
def admin(service_28: Any) -> Iterator[AdminApp]:
    with AdminApp(service_28.config) as app:
        yield app
        # the session's shared project: leave it without rules
        app.update_config({"auth.signUpRules": None, "auth.signUpRulesDefaultAction": None})


def test_a_blocklist_refuses_its_domain_and_lets_others_in(service_28: Any, admin: AdminApp) -> None:
    admin.sign_up_rules.set(
        "no-temp-mail",
        condition='emailDomain in ["tempmail.example", "throwaway.example"]',
        action="reject",
        enabled=True,
        display_name="Throwaway addresses",
        message="seen in the spam wave",
    )
    listed = admin.sign_up_rules.list()
    assert listed.default_action == "allow"
    assert listed.rules["no-temp-mail"] == SignUpRule(
        condition='emailDomain in ["tempmail.example", "throwaway.example"]',
        action="reject",
        enabled=True,
        display_name="Throwaway addresses",
        message="seen in the spam wave",
    )
    with ClientApp(service_28.config) as client:
        with pytest.raises(SignUpRejected) as refused:
            client.sign_up_with_password(email("tempmail.example"), "correct horse")
        assert "spam wave" not in str(refused.value)  # the staff's note is not shown
        assert client.sign_up_with_password(email(), "correct horse").user_id  # control


def test_an_allowlist_with_priorities_and_delete(service_28: Any, admin: AdminApp) -> None:
    admin.sign_up_rules.set_default_action("reject")
    admin.sign_up_rules.set("staff", {"condition": 'email.endsWith("@staff.example")', "action": "allow", "enabled": True})
    admin.sign_up_rules.set(
        "interns", SignUpRule(condition='email.startsWith("intern")', action="reject", enabled=True, priority=5)
    )
    assert list(admin.sign_up_rules.list().rules) == ["interns", "staff"]  # the order they are tried
    with ClientApp(service_28.config) as client:
        assert client.sign_up_with_password(email("staff.example"), "correct horse").user_id
        with pytest.raises(SignUpRejected):
            client.sign_up_with_password("intern-1@staff.example", "correct horse")
        with pytest.raises(SignUpRejected):
            client.sign_up_with_password(email(), "correct horse")
        admin.sign_up_rules.delete("interns")
        assert client.sign_up_with_password("intern-2@staff.example", "correct horse").user_id
    assert list(admin.sign_up_rules.list().rules) == ["staff"]


def test_a_bad_condition_is_refused_naming_it(admin: AdminApp) -> None:
    with pytest.raises(HttpStatusError) as refused:
        admin.sign_up_rules.set("broken", condition="email ==", action="reject", enabled=True)
    assert refused.value.status == 400
    with pytest.raises(ValueError, match="'allow' or 'reject'"):
        admin.sign_up_rules.set_default_action("maybe")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        admin.sign_up_rules.set("r", {"action": "allow"}, enabled=True)


def test_update_config_and_get_config(admin: AdminApp) -> None:
    admin.update_config({"onboarding.requireEmailVerification": True})
    try:
        assert admin.get_config()["onboarding"]["requireEmailVerification"] is True
    finally:
        admin.update_config({"onboarding.requireEmailVerification": None})
    assert admin.get_config()["onboarding"]["requireEmailVerification"] is False


def test_async(service_28: Any) -> None:
    async def run() -> None:
        async with AsyncAdminApp(service_28.config) as admin:
            try:
                await admin.sign_up_rules.set("log-all", condition="true", action="log", enabled=True)
                rules = await admin.sign_up_rules.list()
                assert rules.rules["log-all"].action == "log"
                assert (await admin.get_config())["auth"]["signUpRules"]["log-all"]["enabled"] is True
            finally:
                await admin.update_config({"auth.signUpRules": None})

    asyncio.run(run())


def test_a_27_service_has_no_config(service_27: Any) -> None:
    with AdminApp(service_27.config) as admin:
        with pytest.raises(NotInServiceVersion, match="API 2.8"):
            admin.sign_up_rules.list()
        with pytest.raises(NotInServiceVersion, match="API 2.8"):
            admin.update_config({"auth.allowSignUp": True})
