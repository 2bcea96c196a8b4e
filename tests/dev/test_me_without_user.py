"""A user id field that says "me" on a request without a signed-in user (service-api A1.4).

2.8.86 puts the user's id in place of "me" while it validates the request, and stops there when
there is no user: CANNOT_GET_OWN_USER_WITHOUT_USER comes before the tier check, before the
request's other schema problems and before the handler's own checks."""

from __future__ import annotations

import pytest

from .conftest import Api, assert_known_error

TEAM = "00000000-0000-4000-8000-000000000000"


@pytest.mark.parametrize(
    ("tier", "method", "path", "body"),
    [
        # a server-only route on the client tier (else INSUFFICIENT_ACCESS_TYPE)
        ("client", "POST", f"/team-memberships/{TEAM}/me", {}),
        # a body with another problem (else SCHEMA_ERROR)
        ("client", "POST", f"/contact-channels/me/{TEAM}/send-verification-code", {}),
        ("server", "PATCH", f"/contact-channels/me/{TEAM}", {"value": 5}),
        # "me" in a body validated by the handler (else USER_AUTHENTICATION_REQUIRED)
        ("client", "POST", "/teams", {"display_name": "x", "creator_user_id": "me"}),
        # before the project's switch (else "User API keys are not enabled ...")
        ("server", "GET", "/user-api-keys?user_id=me", None),
    ],
)
def test_me_without_a_user_is_answered_first(api: Api, tier: str, method: str, path: str, body: object) -> None:
    response = api.call(method, path, tier, json=body)
    assert_known_error(response, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)


def test_the_other_answers_stay_when_there_is_a_user_or_no_me(api: Api) -> None:
    user = api.sign_up()
    token = user["access_token"]
    tier = api.call("POST", f"/team-memberships/{TEAM}/me", token=token, json={})
    assert_known_error(tier, "INSUFFICIENT_ACCESS_TYPE", 401)
    schema = api.call("POST", f"/contact-channels/me/{TEAM}/send-verification-code", token=token, json={})
    assert_known_error(schema, "SCHEMA_ERROR", 400)
    team = api.call("POST", "/teams", json={"display_name": "x"})  # no "me": the handler's check
    assert_known_error(team, "USER_AUTHENTICATION_REQUIRED", 401)
    own = api.call("POST", "/teams", "server", token=token, json={"display_name": "x", "creator_user_id": "me"})
    assert own.status_code == 201, own.text
    members = api.call("GET", "/teams", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert own.json()["id"] in [t["id"] for t in members]
