"""API 2.8: projects owned by a team of `internal` (service-api B14.4), and the 2.8 provider shape."""

from __future__ import annotations

import httpx

from .conftest import Api, assert_known_error

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


def _internal(api: Api) -> Api:
    service = api.running
    return Api.of(service, service.bootstrap.internal)


def _admin_headers(project_id: str, token: str) -> dict[str, str]:
    return {"x-stack-project-id": project_id, "x-stack-access-type": "admin", "x-stack-admin-access-token": token}


def test_a_project_belongs_to_its_owner_team_and_every_member_manages_it(api_28: Api) -> None:
    internal = _internal(api_28)
    owner, teammate, stranger = internal.sign_up(), internal.sign_up(), internal.sign_up()
    created = internal.create_owned_project(owner, {"display_name": "Team project"})
    assert created.status_code == 201, created.text
    project = created.json()
    team_id = project["owner_team_id"]
    assert isinstance(team_id, str) and project["config"]["allow_localhost"] is True
    # a member added later manages it too: listed, and its token is admin of the project
    added = internal.call("POST", f"/team-memberships/{team_id}/{teammate['user_id']}", "server", json={})
    assert added.status_code == 201, added.text
    for member in (owner, teammate):
        listed = internal.call("GET", "/internal/projects", token=member["access_token"]).json()
        assert [p["id"] for p in listed["items"]] == [project["id"]]
        read = api_28.http.get(
            "/api/v1/internal/projects/current", headers=_admin_headers(project["id"], member["access_token"])
        )
        assert read.status_code == 200 and read.json()["owner_team_id"] == team_id
    # a user of `internal` outside the team neither lists nor manages it
    assert internal.call("GET", "/internal/projects", token=stranger["access_token"]).json()["items"] == []
    refused = api_28.http.get(
        "/api/v1/internal/projects/current", headers=_admin_headers(project["id"], stranger["access_token"])
    )
    assert_known_error(refused, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401)
    # leaving the team ends the management
    left = internal.call("DELETE", f"/team-memberships/{team_id}/{teammate['user_id']}", "server")
    assert left.status_code == 200, left.text
    gone = api_28.http.get(
        "/api/v1/internal/projects/current", headers=_admin_headers(project["id"], teammate["access_token"])
    )
    assert_known_error(gone, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401)


def test_a_project_cannot_be_put_in_someone_elses_team(api_28: Api) -> None:
    internal = _internal(api_28)
    victim, attacker = internal.sign_up(), internal.sign_up()
    victims_team = internal.create_owned_project(victim).json()["owner_team_id"]
    # the attack: a project placed in the victim's team (which would hand it to the victim's team
    # and list it on their dashboard)
    planted = internal.create_owned_project(attacker, {"display_name": "Planted", "owner_team_id": victims_team})
    details = assert_known_error(planted, "TEAM_MEMBERSHIP_NOT_FOUND", 404)
    assert details["details"] == {"team_id": victims_team, "user_id": attacker["user_id"]}
    listed = internal.call("GET", "/internal/projects", token=victim["access_token"]).json()["items"]
    assert [p["display_name"] for p in listed] == ["Owned project"]
    # the control: in a team of their own the same request works
    assert internal.create_owned_project(attacker, {"display_name": "Mine"}).status_code == 201


def test_creating_needs_an_owner_team_in_2_8_only(api_28: Api, api_27: Api) -> None:
    internal = _internal(api_28)
    owner = internal.sign_up()
    missing = internal.call("POST", "/internal/projects", token=owner["access_token"], json={"display_name": "P"})
    assert "body.owner_team_id must be defined" in assert_known_error(missing, "SCHEMA_ERROR", 400)["error"]
    bad = internal.call(
        "POST", "/internal/projects", token=owner["access_token"], json={"display_name": "P", "owner_team_id": "x"}
    )
    assert "body.owner_team_id must be a valid UUID" in assert_known_error(bad, "SCHEMA_ERROR", 400)["error"]
    unknown = internal.create_owned_project(owner, {"owner_team_id": UNKNOWN_ID})
    assert_known_error(unknown, "TEAM_MEMBERSHIP_NOT_FOUND", 404)
    internal_27 = _internal(api_27)
    owner_27 = internal_27.sign_up()
    made = internal_27.create_owned_project(owner_27, {"display_name": "P"})
    assert made.status_code == 201 and "owner_team_id" not in made.json()


def test_2_8_providers_have_no_enabled_flag(api_28: Api, api_27: Api) -> None:
    internal = _internal(api_28)
    owner = internal.sign_up()
    providers = [{"id": "github", "type": "shared"}, {"id": "google", "type": "shared"}]
    created = internal.create_owned_project(owner, {"config": {"oauth_providers": providers}})
    assert created.status_code == 201, created.text
    project = created.json()
    assert [p["id"] for p in project["config"]["oauth_providers"]] == ["github", "google"]
    assert all("enabled" not in p for p in project["config"]["oauth_providers"])
    assert project["config"]["enabled_oauth_providers"] == [{"id": "github"}, {"id": "google"}]
    updated = api_28.http.patch(
        "/api/v1/internal/projects/current",
        headers=_admin_headers(project["id"], owner["access_token"]),
        json={"config": {"oauth_providers": [{"id": "github", "type": "standard"}]}},
    )
    error = assert_known_error(updated, "SCHEMA_ERROR", 400)["error"]
    assert "body.config.oauth_providers[0].client_id must be defined" in error
    # 2.7 still requires the flag
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"config": {"oauth_providers": providers}})
    assert (
        "body.config.oauth_providers[0].enabled must be defined"
        in assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]
    )


def _team(internal: Api, creator: dict[str, str]) -> str:
    made = internal.call("POST", "/teams", "server", json={"display_name": "T", "creator_user_id": creator["user_id"]})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def _transfer(internal: Api, user: dict[str, str], project_id: str, team_id: str) -> httpx.Response:
    body = {"project_id": project_id, "new_team_id": team_id}
    return internal.call("POST", "/internal/projects/transfer", "server", token=user["access_token"], json=body)


def _owner_team(internal: Api, user: dict[str, str]) -> str:
    listed = internal.call("GET", "/internal/projects", token=user["access_token"]).json()["items"]
    return str(listed[0]["owner_team_id"])


def test_a_project_moves_to_another_team_only_by_an_admin_of_its_team(api_28: Api, api_27: Api) -> None:
    internal = _internal(api_28)
    owner, member = internal.sign_up(), internal.sign_up()
    project = internal.create_owned_project(owner).json()
    team_a = project["owner_team_id"]
    joined = internal.call("POST", f"/team-memberships/{team_a}/{member['user_id']}", "server", json={})
    assert joined.status_code == 201, joined.text
    # the attack: a plain member of the owner team hands the project to a team of their own
    members_team = _team(internal, member)
    refused = _transfer(internal, member, project["id"], members_team)
    details = assert_known_error(refused, "TEAM_PERMISSION_REQUIRED", 401)["details"]
    assert details == {"team_id": team_a, "user_id": member["user_id"], "permission_id": "team_admin"}
    assert _owner_team(internal, owner) == team_a
    # an admin cannot move it to a team they are not in
    outside = assert_known_error(
        _transfer(internal, owner, project["id"], members_team), "TEAM_MEMBERSHIP_NOT_FOUND", 404
    )
    assert outside["details"] == {"team_id": members_team, "user_id": owner["user_id"]}
    assert _owner_team(internal, owner) == team_a
    # an unknown project
    assert_known_error(_transfer(internal, owner, UNKNOWN_ID, team_a), "PROJECT_NOT_FOUND", 404)
    # the control: the admin moves it to a team they belong to (being a member is enough)
    team_b = _team(internal, member)
    assert internal.call("POST", f"/team-memberships/{team_b}/{owner['user_id']}", "server", json={}).status_code == 201
    moved = _transfer(internal, owner, project["id"], team_b)
    assert moved.status_code == 200, moved.text
    assert moved.json() == {"success": "true"}
    assert _owner_team(internal, owner) == team_b
    # 2.7 has no transfer
    internal_27 = _internal(api_27)
    user_27 = internal_27.sign_up()
    assert _transfer(internal_27, user_27, project["id"], team_b).status_code == 404
