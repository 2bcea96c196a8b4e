"""Team permission definitions (service-api A5.11)."""

from __future__ import annotations

from .conftest import Api, assert_known_error, team_roles


def test_list_has_system_and_default_permissions_sorted(api: Api) -> None:
    items = api.call("GET", "/team-permission-definitions", "admin").json()["items"]
    ids = [item["id"] for item in items]
    assert ids == sorted(ids)
    by_id = {item["id"]: item for item in items}
    assert by_id["$read_members"] == {
        "id": "$read_members",
        "description": "Read and list the other members of the team",
        "contained_permission_ids": [],
    }
    creator, member = team_roles(api)
    assert by_id[member]["contained_permission_ids"] == ["$invite_members", "$read_members"]
    # every system permission of the version (2.8 adds $manage_api_keys)
    system = sorted(i for i in ids if i.startswith("$"))
    assert by_id[creator]["contained_permission_ids"] == system
    assert len(system) == (6 if api.version == "2.8" else 5)


def test_create_rename_and_delete_a_definition(api: Api, user: dict) -> None:
    created = api.call(
        "POST",
        "/team-permission-definitions",
        "admin",
        json={"id": "billing:read", "contained_permission_ids": ["$read_members"]},
    )
    assert created.status_code == 201
    assert created.json() == {"id": "billing:read", "contained_permission_ids": ["$read_members"]}  # no description
    team = api.call("POST", "/teams", "server", json={"display_name": "T", "creator_user_id": user["user_id"]}).json()
    api.call("POST", f"/team-permissions/{team['id']}/{user['user_id']}/billing:read", "server", json={})
    renamed = api.call(
        "PATCH", "/team-permission-definitions/billing:read", "admin", json={"id": "billing:view", "description": "d"}
    )
    assert renamed.json() == {"id": "billing:view", "description": "d", "contained_permission_ids": ["$read_members"]}
    held = api.call("GET", "/team-permissions", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert {p["id"] for p in held} == {team_roles(api)[0], "billing:view"}
    assert api.call("DELETE", "/team-permission-definitions/billing:view", "admin").json() == {"success": True}
    held = api.call("GET", "/team-permissions", "server", params={"user_id": user["user_id"]}).json()["items"]
    assert {p["id"] for p in held} == {team_roles(api)[0]}


def test_definition_errors(api: Api) -> None:
    unknown = api.call("DELETE", "/team-permission-definitions/nope", "admin")
    assert_known_error(unknown, "PERMISSION_NOT_FOUND", 404)
    contained = api.call(
        "POST", "/team-permission-definitions", "admin", json={"id": "x", "contained_permission_ids": ["nope"]}
    )
    assert assert_known_error(contained, "CONTAINED_PERMISSION_NOT_FOUND", 400)["details"] == {"permission_id": "nope"}
    bad_id = api.call("POST", "/team-permission-definitions", "admin", json={"id": "Bad Id"})
    assert_known_error(bad_id, "SCHEMA_ERROR", 400)
    system = api.call("DELETE", "/team-permission-definitions/$made_up", "admin")
    assert "Invalid system permission" in assert_known_error(system, "SCHEMA_ERROR", 400)["error"]
    assert_known_error(api.call("GET", "/team-permission-definitions", "server"), "INSUFFICIENT_ACCESS_TYPE", 401)
