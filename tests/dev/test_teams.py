"""Teams, memberships and team permissions: service-api A5.6."""

from __future__ import annotations

import pytest

from .conftest import Api, assert_known_error, team_roles

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def server_team(api: Api, **fields) -> dict:
    response = api.call("POST", "/teams", "server", json={"display_name": "Team", **fields})
    assert response.status_code == 201, response.text
    return response.json()


def join(api: Api, team_id: str, user_id: str) -> None:
    assert api.call("POST", f"/team-memberships/{team_id}/{user_id}", "server", json={}).status_code == 201


def test_server_creates_teams_with_the_server_view(api: Api) -> None:
    team = server_team(api, server_metadata={"plan": "pro"})
    assert set(team) == {
        "id", "display_name", "profile_image_url", "client_metadata", "client_read_only_metadata",
        "created_at_millis", "server_metadata",
    }  # fmt: skip
    assert team["server_metadata"] == {"plan": "pro"}
    assert api.call("GET", f"/teams/{team['id']}", "admin").json() == team


def test_a_creator_gets_the_creator_permissions_and_members_the_member_ones(api: Api, user: dict) -> None:
    team = server_team(api, creator_user_id=user["user_id"])
    other = api.sign_up()
    join(api, team["id"], other["user_id"])
    creator, member = team_roles(api)
    listed = api.call("GET", "/team-permissions", "server", params={"team_id": team["id"]}).json()["items"]
    assert listed == sorted(
        [
            {"id": creator, "team_id": team["id"], "user_id": user["user_id"]},
            {"id": member, "team_id": team["id"], "user_id": other["user_id"]},
        ],
        key=lambda p: p["user_id"],
    )
    recursive = api.call(
        "GET",
        "/team-permissions",
        "server",
        params={"team_id": team["id"], "user_id": other["user_id"], "recursive": "true"},
    ).json()["items"]
    assert [p["id"] for p in recursive] == ["$invite_members", "$read_members", member]


def test_client_lists_only_its_own_teams(api: Api, user: dict) -> None:
    mine = server_team(api, creator_user_id=user["user_id"])
    server_team(api)  # someone else's
    listed = api.call("GET", "/teams", token=user["access_token"], params={"user_id": "me"}).json()
    assert listed["is_paginated"] is False
    assert [t["id"] for t in listed["items"]] == [mine["id"]]
    assert "server_metadata" not in listed["items"][0]
    for params in ({}, {"user_id": UNKNOWN_ID}):
        refused = api.call("GET", "/teams", token=user["access_token"], params=params)
        assert refused.status_code == 403
        assert refused.text.startswith("Client can only list teams for their own user.")


def test_client_reads_a_team_only_as_a_member(api: Api, user: dict) -> None:
    team = server_team(api)
    response = api.call("GET", f"/teams/{team['id']}", token=user["access_token"])
    body = assert_known_error(response, "TEAM_MEMBERSHIP_NOT_FOUND", 404)
    assert body["details"] == {"team_id": team["id"], "user_id": user["user_id"]}
    join(api, team["id"], user["user_id"])
    assert api.call("GET", f"/teams/{team['id']}", token=user["access_token"]).status_code == 200
    assert_known_error(api.call("GET", f"/teams/{UNKNOWN_ID}", "server"), "TEAM_NOT_FOUND", 404)


def test_client_updates_and_deletes_with_team_permissions(api: Api, user: dict) -> None:
    team = server_team(api)
    join(api, team["id"], user["user_id"])  # member: no $update_team
    patch = api.call("PATCH", f"/teams/{team['id']}", token=user["access_token"], json={"display_name": "X"})
    body = assert_known_error(patch, "TEAM_PERMISSION_REQUIRED", 401)
    assert body["details"] == {"team_id": team["id"], "user_id": user["user_id"], "permission_id": "$update_team"}
    grant = api.call("POST", f"/team-permissions/{team['id']}/{user['user_id']}/$update_team", "server", json={})
    assert grant.status_code == 201
    patched = api.call("PATCH", f"/teams/{team['id']}", token=user["access_token"], json={"display_name": "X"})
    assert patched.json()["display_name"] == "X"
    server_only = api.call("PATCH", f"/teams/{team['id']}", token=user["access_token"], json={"server_metadata": {}})
    assert_known_error(server_only, "SCHEMA_ERROR", 400)
    delete = api.call("DELETE", f"/teams/{team['id']}", token=user["access_token"])
    assert_known_error(delete, "TEAM_PERMISSION_REQUIRED", 401)


def test_client_team_creation_needs_the_project_flag(api: Api, user: dict, project_config) -> None:
    refused = api.call("POST", "/teams", token=user["access_token"], json={"display_name": "Mine"})
    assert (refused.status_code, refused.text) == (403, "Client team creation is disabled for this project")
    project_config(client_team_creation_enabled=True)
    created = api.call("POST", "/teams", token=user["access_token"], json={"display_name": "Mine"})
    assert created.status_code == 201
    team_id = created.json()["id"]
    # the creator holds "admin", which contains $delete_team
    assert api.call("DELETE", f"/teams/{team_id}", token=user["access_token"]).json() == {"success": True}
    other = api.call(
        "POST", "/teams", token=user["access_token"], json={"display_name": "x", "creator_user_id": UNKNOWN_ID}
    )
    assert other.status_code == 403 and other.text.startswith("You cannot create a team as a user")
    anonymous = api.call("POST", "/teams", json={"display_name": "x"})
    assert_known_error(anonymous, "USER_AUTHENTICATION_REQUIRED", 401)


def test_membership_rules(api: Api, user: dict) -> None:
    team = server_team(api)
    join(api, team["id"], user["user_id"])
    again = api.call("POST", f"/team-memberships/{team['id']}/{user['user_id']}", "server", json={})
    assert_known_error(again, "TEAM_MEMBERSHIP_ALREADY_EXISTS", 409)
    unknown_user = api.call("POST", f"/team-memberships/{team['id']}/{UNKNOWN_ID}", "server", json={})
    assert_known_error(unknown_user, "USER_NOT_FOUND", 404)
    unknown_team = api.call("POST", f"/team-memberships/{UNKNOWN_ID}/{user['user_id']}", "server", json={})
    assert_known_error(unknown_team, "TEAM_NOT_FOUND", 404)
    client_add = api.call("POST", f"/team-memberships/{team['id']}/{user['user_id']}", token=user["access_token"])
    assert_known_error(client_add, "INSUFFICIENT_ACCESS_TYPE", 401)
    other = api.sign_up()
    join(api, team["id"], other["user_id"])
    kick = api.call("DELETE", f"/team-memberships/{team['id']}/{other['user_id']}", token=user["access_token"])
    assert_known_error(kick, "TEAM_PERMISSION_REQUIRED", 401)
    leave = api.call("DELETE", f"/team-memberships/{team['id']}/me", token=user["access_token"])
    assert leave.json() == {"success": True}
    gone = api.call("DELETE", f"/team-memberships/{team['id']}/me", token=user["access_token"])
    assert_known_error(gone, "TEAM_MEMBERSHIP_NOT_FOUND", 404)


def test_selected_team_appears_on_the_user(api: Api, user: dict) -> None:
    team = server_team(api, creator_user_id=user["user_id"])
    me = api.call("PATCH", "/users/me", token=user["access_token"], json={"selected_team_id": team["id"]}).json()
    assert me["selected_team_id"] == team["id"]
    assert me["selected_team"] == {
        "id": team["id"],
        "display_name": "Team",
        "profile_image_url": None,
        "client_metadata": None,
        "client_read_only_metadata": None,
    }
    api.call("DELETE", f"/teams/{team['id']}", "server")
    assert api.call("GET", "/users/me", token=user["access_token"]).json()["selected_team"] is None


def test_permission_grants(api: Api, user: dict) -> None:
    team = server_team(api, creator_user_id=user["user_id"])
    path = f"/team-permissions/{team['id']}/{user['user_id']}"
    first = api.call("POST", f"{path}/$read_members", "server", json={})
    assert first.status_code == 201 and first.json() == {
        "id": "$read_members",
        "team_id": team["id"],
        "user_id": user["user_id"],
    }
    assert api.call("POST", f"{path}/$read_members", "server", json={}).status_code == 201  # idempotent
    unknown = api.call("POST", f"{path}/nope", "server", json={})
    assert assert_known_error(unknown, "PERMISSION_NOT_FOUND", 404)["details"] == {"permission_id": "nope"}
    assert api.call("DELETE", f"{path}/$read_members", "server").json() == {"success": True}
    not_held = api.call("DELETE", f"{path}/$read_members", "server")
    assert_known_error(not_held, "TEAM_PERMISSION_NOT_FOUND", 401)
    own = api.call("GET", "/team-permissions", token=user["access_token"], params={"user_id": "me"}).json()["items"]
    assert {p["id"] for p in own} == {team_roles(api)[0]}
    refused = api.call("GET", "/team-permissions", token=user["access_token"])
    assert refused.status_code == 403


def invite(api: Api, team_id: str, email: str, token: str | None = None, tier: str = "server"):
    return api.call(
        "POST",
        "/team-invitations/send-code",
        tier,
        token=token,
        json={"team_id": team_id, "email": email, "callback_url": "http://localhost:3000/handler/team-invitation"},
    )


def invitation_code(api: Api, email: str) -> str:
    from urllib.parse import parse_qs, urlsplit

    mail = api.http.get("/dev/outbox", params={"to": email}).json()["items"][0]
    assert mail["kind"] == "team_invitation"
    return parse_qs(urlsplit(mail["link"]).query)["code"][0]


def test_invitations_are_sent_listed_and_accepted(api: Api, user: dict) -> None:
    team = server_team(api, creator_user_id=user["user_id"])
    invitee = api.sign_up()
    email = api.call("GET", "/users/me", token=invitee["access_token"]).json()["primary_email"]
    sent = invite(api, team["id"], email, token=user["access_token"], tier="client")  # creator holds $invite_members
    assert sent.status_code == 200 and sent.json()["success"] is True
    listed = api.call("GET", "/team-invitations", token=user["access_token"], params={"team_id": team["id"]}).json()
    [pending] = listed["items"]
    assert (pending["id"], pending["team_id"], pending["recipient_email"]) == (sent.json()["id"], team["id"], email)

    code = invitation_code(api, email)
    assert api.call("POST", "/team-invitations/accept/check-code", json={"code": code}).json() == {
        "is_code_valid": True
    }
    details = api.call("POST", "/team-invitations/accept/details", token=invitee["access_token"], json={"code": code})
    assert details.json() == {"team_id": team["id"], "team_display_name": "Team"}
    no_user = api.call("POST", "/team-invitations/accept", json={"code": code})
    assert_known_error(no_user, "USER_AUTHENTICATION_REQUIRED", 401)  # and the code stays unused
    no_user = api.call("POST", "/team-invitations/accept/details", json={"code": code})
    assert_known_error(no_user, "USER_AUTHENTICATION_REQUIRED", 401)
    accepted = api.call("POST", "/team-invitations/accept", token=invitee["access_token"], json={"code": code})
    assert accepted.status_code == 200 and accepted.json() == {}
    mine = api.call("GET", "/teams", token=invitee["access_token"], params={"user_id": "me"}).json()["items"]
    assert [t["id"] for t in mine] == [team["id"]]
    assert api.call("GET", "/team-invitations", "server", params={"team_id": team["id"]}).json()["items"] == []


@pytest.mark.parametrize("path", ["/team-invitations/accept/details", "/team-invitations/accept"])
def test_an_unknown_invitation_code_is_not_found_before_any_user_is_asked_for(api: Api, path: str) -> None:
    """The real service checks the code first: 404, not 401, for an unknown code without a user."""
    unknown = "a" * 45
    assert_known_error(api.call("POST", path, json={"code": unknown}), "VERIFICATION_CODE_NOT_FOUND", 404)


def test_invitation_rules(api: Api, user: dict) -> None:
    team = server_team(api)
    join(api, team["id"], user["user_id"])  # a member has $invite_members but not $remove_members
    sent = invite(api, team["id"], "someone@example.com", token=user["access_token"], tier="client").json()
    revoke = api.call(
        "DELETE", f"/team-invitations/{sent['id']}", token=user["access_token"], params={"team_id": team["id"]}
    )
    assert_known_error(revoke, "TEAM_PERMISSION_REQUIRED", 401)
    revoked = api.call("DELETE", f"/team-invitations/{sent['id']}", "server", params={"team_id": team["id"]})
    assert revoked.json() == {"success": True}
    outsider = api.sign_up()
    refused = invite(api, team["id"], "x@example.com", token=outsider["access_token"], tier="client")
    assert_known_error(refused, "TEAM_MEMBERSHIP_NOT_FOUND", 404)
    untrusted = api.call(
        "POST",
        "/team-invitations/send-code",
        "server",
        json={"team_id": team["id"], "email": "x@example.com", "callback_url": "https://evil.example/join"},
    )
    assert_known_error(untrusted, "REDIRECT_URL_NOT_WHITELISTED", 400)
    missing_team = api.call("GET", "/team-invitations", "server")  # 2.8: a team or a user (test_team_invitations_28)
    assert (missing_team.status_code, missing_team.text) == (400, "Must specify either team_id or user_id")


def test_member_profiles_fall_back_to_the_user_and_can_be_edited(api: Api, user: dict) -> None:
    api.call("PATCH", "/users/me", token=user["access_token"], json={"display_name": "Ada"})
    team = server_team(api, creator_user_id=user["user_id"])
    other = api.sign_up()
    join(api, team["id"], other["user_id"])
    profiles = api.call(
        "GET", "/team-member-profiles", token=user["access_token"], params={"team_id": team["id"]}
    ).json()["items"]
    assert [(p["user_id"], p["display_name"]) for p in profiles] == [(user["user_id"], "Ada"), (other["user_id"], None)]
    assert "user" not in profiles[0]
    server_view = api.call("GET", f"/team-member-profiles/{team['id']}/{user['user_id']}", "server").json()
    assert server_view["user"]["id"] == user["user_id"]
    edited = api.call(
        "PATCH", f"/team-member-profiles/{team['id']}/me", token=user["access_token"], json={"display_name": "Ada L."}
    )
    assert edited.json()["display_name"] == "Ada L."
    others = api.call(
        "PATCH", f"/team-member-profiles/{team['id']}/{other['user_id']}", token=user["access_token"], json={}
    )
    assert (others.status_code, others.text) == (403, "Cannot update another user's profile")
    no_team = api.call("GET", "/team-member-profiles", token=user["access_token"])
    assert (no_team.status_code, no_team.text) == (400, "team_id is required for access type client")
