"""The claims of API 2.8's access tokens (service-api B3.1): what the official 2.8 SDK
requires, the session id, and values that follow the user at the next refresh. (2.7's
tokens carry none of these: test_access_tokens.py.)"""

from __future__ import annotations

from .conftest import Api
from .test_access_tokens import _segment

API_VERSION = "2.8"


#: Claims the official SDK 2.8 refuses a token without (docs/service-api.md B3.1).
SDK_28_CLAIMS = {
    "sub": str,
    "iss": str,
    "aud": str,
    "iat": int,
    "exp": int,
    "project_id": str,
    "branch_id": str,
    "refresh_token_id": str,
    "role": str,
    "name": (str, type(None)),
    "email": (str, type(None)),
    "email_verified": bool,
    "selected_team_id": (str, type(None)),
    "signed_up_at": int,
    "is_anonymous": bool,
    "is_restricted": bool,
    "restricted_reason": type(None),
    "requires_totp_mfa": bool,
}


def test_access_tokens_carry_every_claim_the_2_8_sdk_requires(api: Api, user: dict) -> None:
    claims = _segment(user["access_token"], 1)
    for name, kind in SDK_28_CLAIMS.items():
        assert isinstance(claims[name], kind), name
    me = api.call("GET", "/users/me", token=user["access_token"]).json()
    assert claims["project_id"] == api.project_id
    assert claims["branch_id"] == "main"
    assert claims["role"] == "authenticated"
    assert claims["email"] == user["email"] == me["primary_email"]
    assert claims["email_verified"] is False
    assert claims["name"] is None
    assert claims["signed_up_at"] == me["signed_up_at_millis"] // 1000  # seconds in 2.8
    assert claims["selected_team_id"] is None
    assert (claims["is_anonymous"], claims["is_restricted"], claims["requires_totp_mfa"]) == (False, False, False)


def test_refresh_token_id_names_the_session_and_stays_across_refreshes(api: Api, user: dict) -> None:
    first = _segment(user["access_token"], 1)["refresh_token_id"]
    refreshed = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    assert refreshed.status_code == 200
    assert _segment(refreshed.json()["access_token"], 1)["refresh_token_id"] == first
    other = api.call("POST", "/auth/password/sign-in", json={"email": user["email"], "password": user["password"]})
    assert _segment(other.json()["access_token"], 1)["refresh_token_id"] != first


def test_claims_follow_the_user_at_the_next_refresh(api: Api, user: dict) -> None:
    updated = api.call(
        "PATCH",
        f"/users/{user['user_id']}",
        "server",
        json={"display_name": "Ada", "primary_email_verified": True, "totp_secret_base64": "AAAAAAAAAAAAAAAAAAAA"},
    )
    assert updated.status_code == 200, updated.text
    refreshed = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": user["refresh_token"]}
    )
    claims = _segment(refreshed.json()["access_token"], 1)
    assert (claims["name"], claims["email_verified"], claims["requires_totp_mfa"]) == ("Ada", True, True)
