"""Team invitations as 2.8.86 has them (service-api B4.2, B7.4, B14.5): a user's pending
invitations, accepting by invitation id, `team_display_name`, and restricted users refused.
2.7.16 has none of it; its checks sit beside each 2.8 one."""

from __future__ import annotations

from typing import Any

from .conftest import Api, assert_known_error, unique_email
from .test_teams import invitation_code, invite, server_team

ALLOW_RESTRICTED = {"x-stack-allow-restricted-user": "true"}


def verified_user(api: Api, email: str | None = None) -> dict[str, str]:
    """A signed-up user whose primary e-mail the server marked verified."""
    email = email or unique_email()
    tokens = api.sign_up(email)
    verified = api.call("PATCH", f"/users/{tokens['user_id']}", "server", json={"primary_email_verified": True})
    assert verified.status_code == 200, verified.text
    return {**tokens, "email": email}


def mine(api: Api, token: str, **params: str) -> Any:
    return api.call("GET", "/team-invitations", token=token, params={"user_id": "me", **params})


def test_a_user_lists_the_invitations_to_its_verified_emails(api_28: Api) -> None:
    team = server_team(api_28, display_name="Lab")
    other_team = server_team(api_28, display_name="Den")
    invitee = verified_user(api_28)
    first = invite(api_28, team["id"], invitee["email"]).json()["id"]
    second = invite(api_28, other_team["id"], invitee["email"]).json()["id"]
    invite(api_28, team["id"], unique_email())  # someone else's

    listed = mine(api_28, invitee["access_token"])
    assert listed.status_code == 200, listed.text
    assert listed.json()["is_paginated"] is False
    items = listed.json()["items"]
    assert {(i["id"], i["team_id"], i["team_display_name"], i["recipient_email"]) for i in items} == {
        (first, team["id"], "Lab", invitee["email"]),
        (second, other_team["id"], "Den", invitee["email"]),
    }
    on_server = api_28.call("GET", "/team-invitations", "server", params={"user_id": invitee["user_id"]}).json()
    assert {i["id"] for i in on_server["items"]} == {first, second}
    # An invitation to a team deleted since is left out.
    assert api_28.call("DELETE", f"/teams/{other_team['id']}", "server").status_code == 200
    assert [i["id"] for i in mine(api_28, invitee["access_token"]).json()["items"]] == [first]


def test_invitations_to_an_unverified_email_are_not_listed(api_28: Api) -> None:
    team = server_team(api_28)
    unverified = api_28.sign_up()
    email = api_28.call("GET", "/users/me", token=unverified["access_token"]).json()["primary_email"]
    invite(api_28, team["id"], email)
    assert mine(api_28, unverified["access_token"]).json()["items"] == []
    # Control: verified, the same invitation shows.
    api_28.call("PATCH", f"/users/{unverified['user_id']}", "server", json={"primary_email_verified": True})
    assert [i["recipient_email"] for i in mine(api_28, unverified["access_token"]).json()["items"]] == [email]


def test_team_or_user_but_exactly_one_and_a_client_names_only_itself(api_28: Api) -> None:
    team = server_team(api_28)
    user = verified_user(api_28)
    both = api_28.call("GET", "/team-invitations", "server", params={"team_id": team["id"], "user_id": user["user_id"]})
    assert (both.status_code, both.text) == (400, "Cannot specify both team_id and user_id")
    # "me" without a user stops the request first (test_me_without_user.py)
    me = api_28.call("GET", "/team-invitations", "server", params={"team_id": team["id"], "user_id": "me"})
    assert_known_error(me, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    neither = api_28.call("GET", "/team-invitations", "server")
    assert (neither.status_code, neither.text) == (400, "Must specify either team_id or user_id")
    other = verified_user(api_28)
    foreign = api_28.call("GET", "/team-invitations", token=user["access_token"], params={"user_id": other["user_id"]})
    assert_known_error(foreign, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    own_id = api_28.call("GET", "/team-invitations", token=user["access_token"], params={"user_id": user["user_id"]})
    assert own_id.status_code == 200, own_id.text


def test_team_listing_carries_the_team_name_on_2_8_only(api_27: Api, api_28: Api) -> None:
    for api in (api_27, api_28):
        team = server_team(api, display_name="Named")
        invite(api, team["id"], unique_email())
        [item] = api.call("GET", "/team-invitations", "server", params={"team_id": team["id"]}).json()["items"]
        assert item.get("team_display_name") == ("Named" if api.version == "2.8" else None)
    missing = api_27.call("GET", "/team-invitations", "server")
    assert "query.team_id must be defined" in assert_known_error(missing, "SCHEMA_ERROR", 400)["error"]


def test_accepting_by_id_needs_a_verified_recipient_email(api_28: Api) -> None:
    team = server_team(api_28)
    invitee = verified_user(api_28)
    invitation = invite(api_28, team["id"], invitee["email"]).json()["id"]
    stranger = verified_user(api_28)
    path = f"/team-invitations/{invitation}/accept"

    not_theirs = api_28.call("POST", path, token=stranger["access_token"], params={"user_id": "me"})
    assert_known_error(not_theirs, "VERIFICATION_CODE_NOT_FOUND", 404)
    for_someone_else = api_28.call("POST", path, token=stranger["access_token"], params={"user_id": invitee["user_id"]})
    assert_known_error(for_someone_else, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)

    accepted = api_28.call("POST", path, token=invitee["access_token"], params={"user_id": "me"})
    assert (accepted.status_code, accepted.json()) == (200, {})
    teams = api_28.call("GET", "/teams", token=invitee["access_token"], params={"user_id": "me"}).json()["items"]
    assert [t["id"] for t in teams] == [team["id"]]
    assert mine(api_28, invitee["access_token"]).json()["items"] == []
    again = api_28.call("POST", path, token=invitee["access_token"], params={"user_id": "me"})
    assert_known_error(again, "VERIFICATION_CODE_NOT_FOUND", 404)


def test_the_server_accepts_by_id_for_a_user_and_2_7_has_no_such_route(api_27: Api, api_28: Api) -> None:
    team = server_team(api_28)
    invitee = verified_user(api_28)
    unverified = api_28.sign_up()
    email = api_28.call("GET", "/users/me", token=unverified["access_token"]).json()["primary_email"]
    for_unverified = invite(api_28, team["id"], email).json()["id"]
    refused = api_28.call(
        "POST", f"/team-invitations/{for_unverified}/accept", "server", params={"user_id": unverified["user_id"]}
    )
    assert_known_error(refused, "VERIFICATION_CODE_NOT_FOUND", 404)

    invitation = invite(api_28, team["id"], invitee["email"]).json()["id"]
    accepted = api_28.call(
        "POST", f"/team-invitations/{invitation}/accept", "server", params={"user_id": invitee["user_id"]}
    )
    assert (accepted.status_code, accepted.json()) == (200, {})
    members = api_28.call("GET", "/users", "server", params={"team_id": team["id"]}).json()["items"]
    assert [m["id"] for m in members] == [invitee["user_id"]]

    old_team = server_team(api_27)
    old_invitation = invite(api_27, old_team["id"], unique_email()).json()["id"]
    absent = api_27.call("POST", f"/team-invitations/{old_invitation}/accept", "server", params={"user_id": "me"})
    assert absent.status_code == 404


def test_restricted_users_cannot_take_invitations(api_28: Api, config_28: Any) -> None:
    config_28(require_email_verification=True)
    team = server_team(api_28, display_name="Guarded")
    email = unique_email()
    restricted = api_28.sign_up(email)
    invitation = invite(api_28, team["id"], email).json()["id"]
    code = invitation_code(api_28, email)
    token = restricted["access_token"]
    expected = {"restricted_reason": {"type": "email_not_verified"}}

    for path in ("/team-invitations/accept", "/team-invitations/accept/details"):
        refused = api_28.call("POST", path, token=token, headers=ALLOW_RESTRICTED, json={"code": code})
        body = assert_known_error(refused, "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", 403)
        assert body["details"] == expected
        assert "Reason: email_not_verified." in body["error"]
    by_id = api_28.call(
        "POST",
        f"/team-invitations/{invitation}/accept",
        token=token,
        headers=ALLOW_RESTRICTED,
        params={"user_id": "me"},
    )
    assert assert_known_error(by_id, "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", 403)["details"] == expected
    assert api_28.call("GET", "/users", "server", params={"team_id": team["id"]}).json()["items"] == []

    # Control: once the e-mail is verified, the same invitation is still there to take.
    api_28.call("PATCH", f"/users/{restricted['user_id']}", "server", json={"primary_email_verified": True})
    fresh = api_28.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": restricted["refresh_token"]}
    )
    assert fresh.status_code == 200, fresh.text
    joined = api_28.call("POST", "/team-invitations/accept", token=fresh.json()["access_token"], json={"code": code})
    assert joined.status_code == 200, joined.text
    members = api_28.call("GET", "/users", "server", params={"team_id": team["id"]}).json()["items"]
    assert [m["id"] for m in members] == [restricted["user_id"]]


def test_anonymous_users_cannot_take_invitations(api_28: Api) -> None:
    team = server_team(api_28)
    email = unique_email()
    invite(api_28, team["id"], email)
    code = invitation_code(api_28, email)
    anonymous = api_28.call("POST", "/auth/anonymous/sign-up", json={}).json()["access_token"]
    headers = {"x-stack-allow-anonymous-user": "true"}
    refused = api_28.call("POST", "/team-invitations/accept", token=anonymous, headers=headers, json={"code": code})
    body = assert_known_error(refused, "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", 403)
    assert body["details"] == {"restricted_reason": {"type": "anonymous"}}


def test_2_7_lets_any_signed_in_user_take_an_invitation_by_code(api_27: Api) -> None:
    """2.7.16 has no restricted users: the code alone decides."""
    team = server_team(api_27)
    email = unique_email()
    invite(api_27, team["id"], email)
    user = api_27.sign_up()  # another address: 2.7 does not compare the recipient
    accepted = api_27.call(
        "POST", "/team-invitations/accept", token=user["access_token"], json={"code": invitation_code(api_27, email)}
    )
    assert accepted.status_code == 200, accepted.text
