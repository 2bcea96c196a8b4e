"""The one access decision (authmw.middleware._access), pure: who the caller is against what the
route takes, before any membership or permission is asked. The same decision over HTTP on
every framework: tests/django/test_access_matrix.py."""

from __future__ import annotations

import pytest

from authmw._tokens import Claims
from authmw.errors import AnonymousAuthenticationNotAllowed, RestrictedUserNotAllowed
from authmw.middleware import AuthUser
from authmw.middleware._access import Rule, TeamRequirement, admit, handler_page_url
from authmw.middleware._user import ANONYMOUS, UnadmittedUser


def user(kind: str = "user", reason: str | None = None) -> AuthUser:
    raw = {"restricted_reason": {"type": reason}} if reason else {}
    return AuthUser(Claims("u1", "p", "iss", None, 2e9, raw, kind), "token", None)


def code(denial: object) -> tuple[int, str, str | None] | None:
    if denial is None:
        return None
    return denial.status, denial.error.code, denial.to  # type: ignore[attr-defined]


RESTRICTED = RestrictedUserNotAllowed("restricted", {"restricted_reason": {"type": "email_not_verified"}})


@pytest.mark.parametrize(
    ("caller", "rule", "expected"),
    [
        (ANONYMOUS, Rule(), (401, "USER_AUTHENTICATION_REQUIRED", "sign-in")),
        (user(), Rule(), None),
        # users the app does not sign in, by session or by key: anonymous as nobody, restricted to onboarding
        (UnadmittedUser(AnonymousAuthenticationNotAllowed()), Rule(), (401, "USER_AUTHENTICATION_REQUIRED", "sign-in")),
        (UnadmittedUser(RESTRICTED), Rule(), (401, "RESTRICTED_USER_NOT_ALLOWED", "onboarding")),
        (UnadmittedUser(RESTRICTED, "user_api_key"), Rule(api_keys=True), (401, "RESTRICTED_USER_NOT_ALLOWED", "onboarding")),
        (UnadmittedUser(RESTRICTED, "user_api_key"), Rule(), (401, "API_KEY_NOT_ACCEPTED", None)),
        # signed in by an app that takes them; a route may still refuse them
        (user("anonymous"), Rule(), None),
        (user("anonymous"), Rule(anonymous=False), (401, "USER_AUTHENTICATION_REQUIRED", "sign-in")),
        (user("restricted", "email_not_verified"), Rule(), None),
        (user("restricted", "email_not_verified"), Rule(restricted=False), (401, "RESTRICTED_USER_NOT_ALLOWED", "onboarding")),
        (user("anonymous"), Rule(restricted=False), (401, "RESTRICTED_USER_NOT_ALLOWED", "onboarding")),
        (user(), Rule((TeamRequirement("team_id"),), anonymous=False, restricted=False), None),  # control
    ],
)
def test_admit(caller: object, rule: Rule, expected: tuple[int, str, str | None] | None) -> None:
    assert code(admit(caller, rule)) == expected


def test_a_refusal_is_a_page_redirect_or_the_envelope() -> None:
    denial = admit(UnadmittedUser(RESTRICTED), Rule())
    assert denial is not None
    page = denial.refusal(page=True, handler_path="/handler", return_to="/reports?tab=2")
    assert (page.status, page.location) == (303, "/handler/onboarding?after_auth_return_to=%2Freports%3Ftab%3D2")
    api = denial.refusal(page=False, handler_path="/handler", return_to="/reports")
    assert api.status == 401 and api.code == "RESTRICTED_USER_NOT_ALLOWED"
    assert api.details == {"restricted_reason": {"type": "email_not_verified"}}
    # no open redirect: a return path of another site is dropped
    assert handler_page_url("/handler", "onboarding", "//evil.example/x") == "/handler/onboarding"
