"""CLI sign-in endpoints (API 2.8): /auth/cli, /auth/cli/poll, /auth/cli/complete.

The tool starts an attempt, the signed-in browser completes it with its refresh token, the tool
polls the token once. Expiry uses the service's clock (moved, never waited for)."""

from __future__ import annotations

from typing import Any

import httpx

from authmw_local.clock import Clock

from .conftest import Api, assert_known_error

ALLOW_ANONYMOUS = {"x-stack-allow-anonymous-user": "true"}


def start(api: Api, **body: Any) -> dict[str, Any]:
    response = api.call("POST", "/auth/cli", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def poll(api: Api, attempt: dict[str, Any]) -> httpx.Response:
    return api.call("POST", "/auth/cli/poll", json={"polling_code": attempt["polling_code"]})


def complete(api: Api, attempt: dict[str, Any], **body: Any) -> httpx.Response:
    return api.call("POST", "/auth/cli/complete", json={"login_code": attempt["login_code"], **body})


def test_waiting_success_once_then_used(api: Api, user: dict[str, str]) -> None:
    attempt = start(api)
    assert set(attempt) == {"polling_code", "login_code", "expires_at"}
    assert poll(api, attempt).json() == {"status": "waiting"}
    assert complete(api, attempt, mode="check").json() == {"cli_session_state": "none"}
    done = complete(api, attempt, refresh_token=user["refresh_token"])
    assert done.status_code == 200 and done.json() == {"success": True}
    taken = poll(api, attempt)
    assert taken.status_code == 201
    assert taken.json() == {"status": "success", "refresh_token": user["refresh_token"]}
    assert poll(api, attempt).json() == {"status": "used"}
    # a completed attempt cannot be completed again (by someone else either)
    again = complete(api, attempt, refresh_token=user["refresh_token"])
    assert again.status_code == 400 and again.text == "Invalid login code or the code has expired"


def test_an_attempt_expires(api: Api, user: dict[str, str], clock: Clock) -> None:
    attempt = start(api, expires_in_millis=60_000)
    clock.advance(61)
    assert poll(api, attempt).json() == {"status": "expired"}
    late = complete(api, attempt, refresh_token=user["refresh_token"])
    assert late.status_code == 400 and late.text == "Invalid login code or the code has expired"
    too_long = api.call("POST", "/auth/cli", json={"expires_in_millis": 25 * 3600 * 1000})
    assert_known_error(too_long, "SCHEMA_ERROR", 400)


def test_codes_are_checked(api: Api, user: dict[str, str]) -> None:
    assert_known_error(api.call("POST", "/auth/cli/poll", json={"polling_code": "nope"}), "INVALID_POLLING_CODE", 400)
    attempt = start(api)
    # the login code is not a polling code, nor the other way round
    assert_known_error(
        api.call("POST", "/auth/cli/poll", json={"polling_code": attempt["login_code"]}), "INVALID_POLLING_CODE", 400
    )
    wrong = api.call(
        "POST", "/auth/cli/complete", json={"login_code": attempt["polling_code"], "refresh_token": user["refresh_token"]}
    )
    assert wrong.status_code == 400
    missing = complete(api, attempt)
    assert missing.status_code == 400 and missing.text == "refresh_token is required when mode is 'complete'"
    bad = complete(api, attempt, refresh_token="not-a-token")
    assert bad.status_code == 400 and bad.text == "Invalid refresh token"
    assert poll(api, attempt).json() == {"status": "waiting"}  # nothing was handed over


def test_another_projects_session_cannot_complete_an_attempt(
    api: Api, internal_api: Api, user: dict[str, str]
) -> None:
    """The attack: a refresh token of another project (here `internal`) offered to this
    project's attempt is refused; the control: this project's own user completes it."""
    attempt = start(api)
    stranger = internal_api.sign_up()
    refused = complete(api, attempt, refresh_token=stranger["refresh_token"])
    assert refused.status_code == 400 and refused.text == "Refresh token does not belong to this project"
    assert poll(api, attempt).json() == {"status": "waiting"}
    assert complete(api, attempt, refresh_token=user["refresh_token"]).json() == {"success": True}


def test_an_anonymous_cli_session_is_offered_once_and_never_merged(api: Api, user: dict[str, str]) -> None:
    anonymous = api.call("POST", "/auth/anonymous/sign-up", json={}).json()
    refused = api.call("POST", "/auth/cli", json={"anon_refresh_token": user["refresh_token"]})
    assert refused.status_code == 400 and "does not belong to an anonymous user" in refused.text
    attempt = start(api, anon_refresh_token=anonymous["refresh_token"])
    assert complete(api, attempt, mode="check").json() == {"cli_session_state": "anonymous"}
    claimed = complete(api, attempt, mode="claim-anon-session")
    assert claimed.status_code == 200 and claimed.json()["refresh_token"] == anonymous["refresh_token"]
    me = api.call("GET", "/users/me", token=claimed.json()["access_token"], headers=ALLOW_ANONYMOUS).json()
    assert me["id"] == anonymous["user_id"] and me["is_anonymous"] is True
    again = complete(api, attempt, mode="claim-anon-session")
    assert again.status_code == 400 and again.text == "No anonymous session associated with this code"
    # completing with another user hands that user's session over; the anonymous user stays as it was
    assert complete(api, attempt, refresh_token=user["refresh_token"]).json() == {"success": True}
    assert poll(api, attempt).json()["refresh_token"] == user["refresh_token"]
    still = api.call("GET", f"/users/{anonymous['user_id']}", "server", params={"include_anonymous": "true"})
    assert still.status_code == 200 and still.json()["is_anonymous"] is True


def test_answering_as_27_there_is_no_cli_sign_in(api_27: Api) -> None:
    assert api_27.call("POST", "/auth/cli", json={}).status_code == 404
