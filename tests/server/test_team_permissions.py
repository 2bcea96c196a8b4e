"""server.team_permissions, default permissions, and definitions with contained ones (5.6, 5.11)."""

from __future__ import annotations

import uuid

import pytest

from authmw.errors import (
    ContainedPermissionNotFound,
    PermissionNotFound,
    TeamMembershipNotFound,
    TeamPermissionNotFound,
    UserNotFound,
)
from authmw.models import PermissionDefinition, TeamPermission

ADMIN_CONTAINS = {"$delete_team", "$invite_members", "$read_members", "$remove_members", "$update_team"}
MEMBER_CONTAINS = {"$invite_members", "$read_members"}


def ids(permissions):
    return {permission.id for permission in permissions}


def test_creator_and_member_default_permissions(flavour, apps):
    teams, permissions = apps.server.teams, apps.server.team_permissions
    creator, member = apps.new_user(), apps.new_user()
    team = flavour(teams.create("Defaults", creator_user_id=creator.id))
    flavour(teams.add_member(team.id, member.id))
    creator_role, member_role = apps.live.team_roles
    assert ids(flavour(permissions.list(team.id, creator.id, recursive=False))) == {creator_role}
    assert ids(flavour(permissions.list(team.id, member.id, recursive=False))) == {member_role}
    # Recursive by default: contained permissions are included (2.8's team_admin: API keys too).
    admin_contains = ADMIN_CONTAINS | ({"$manage_api_keys"} if apps.live.api == "2.8" else set())
    assert ids(flavour(permissions.list(team.id, creator.id))) == {creator_role} | admin_contains
    assert ids(flavour(permissions.list(team.id, member.id))) == {member_role} | MEMBER_CONTAINS
    items = flavour(permissions.list(team.id, member.id))
    assert all(isinstance(p, TeamPermission) and (p.team_id, p.user_id) == (team.id, member.id) for p in items)


def test_grant_revoke_and_has(flavour, apps):
    teams, permissions = apps.server.teams, apps.server.team_permissions
    user = apps.new_user()
    team = flavour(teams.create("Grants"))
    flavour(teams.add_member(team.id, user.id))
    assert not flavour(permissions.has(team.id, user.id, "$update_team"))
    granted = flavour(permissions.grant(team.id, user.id, "$update_team"))
    assert granted == TeamPermission(id="$update_team", team_id=team.id, user_id=user.id)
    assert flavour(permissions.grant(team.id, user.id, "$update_team")) == granted  # idempotent
    assert flavour(permissions.has(team.id, user.id, "$update_team"))
    assert flavour(permissions.has(team.id, user.id, "$read_members"))  # via the member role
    assert flavour(permissions.revoke(team.id, user.id, "$update_team")) is None
    assert not flavour(permissions.has(team.id, user.id, "$update_team"))
    with pytest.raises(TeamPermissionNotFound) as info:
        flavour(permissions.revoke(team.id, user.id, "$update_team"))
    assert info.value.status == 401
    with pytest.raises(TeamPermissionNotFound):  # only directly granted ones can be revoked
        flavour(permissions.revoke(team.id, user.id, "$read_members"))


def test_list_by_team_or_by_user(flavour, apps):
    teams, permissions = apps.server.teams, apps.server.team_permissions
    a, b = apps.new_user(), apps.new_user()
    team = flavour(teams.create("Listing", creator_user_id=a.id))
    flavour(teams.add_member(team.id, b.id))
    creator_role, member_role = apps.live.team_roles
    whole_team = flavour(permissions.list(team.id, recursive=False))
    assert {(p.user_id, p.id) for p in whole_team} == {(a.id, creator_role), (b.id, member_role)}
    other = flavour(teams.create("Other", creator_user_id=b.id))
    by_user = flavour(permissions.list(user_id=b.id, recursive=False))
    assert {(p.team_id, p.id) for p in by_user} == {(team.id, member_role), (other.id, creator_role)}
    only = flavour(permissions.list(team.id, a.id, permission_id="$delete_team"))
    assert ids(only) == {"$delete_team"}


def test_permission_errors(flavour, apps):
    teams, permissions = apps.server.teams, apps.server.team_permissions
    user, outsider = apps.new_user(), apps.new_user()
    team = flavour(teams.create("Errors", creator_user_id=user.id))
    with pytest.raises(PermissionNotFound) as info:
        flavour(permissions.grant(team.id, user.id, "no_such_permission"))
    assert info.value.details["permission_id"] == "no_such_permission" and info.value.status == 404
    member_role = apps.live.team_roles[1]
    with pytest.raises(TeamMembershipNotFound):
        flavour(permissions.grant(team.id, outsider.id, member_role))
    with pytest.raises(UserNotFound):
        flavour(permissions.grant(team.id, str(uuid.uuid4()), member_role))


def test_two_levels_of_contained_permissions(flavour, apps):
    apps.live.require("GET", "/team-permission-definitions", "5.11")
    admin = apps.admin()
    definitions = admin.permission_definitions
    tag = uuid.uuid4().hex[:8]
    leaf, middle, top = f"read_{tag}", f"edit_{tag}", f"own_{tag}"
    created = flavour(definitions.create(leaf, description="Read things"))
    assert created == PermissionDefinition(id=leaf, description="Read things", contained_permission_ids=[])
    flavour(definitions.create(middle, contained_permission_ids=[leaf, "$update_team"]))
    flavour(definitions.create(top, contained_permission_ids=[middle]))
    listed = {d.id: d for d in flavour(definitions.list())}
    assert listed[top].contained_permission_ids == [middle]
    assert "$update_team" in listed and listed["$update_team"].description == "Update the team information"

    teams, permissions = apps.server.teams, apps.server.team_permissions
    user = apps.new_user()
    team = flavour(teams.create("Nested"))
    flavour(teams.add_member(team.id, user.id))
    flavour(permissions.grant(team.id, user.id, top))
    held = ids(flavour(permissions.list(team.id, user.id)))
    assert {top, middle, leaf, "$update_team"} <= held
    assert ids(flavour(permissions.list(team.id, user.id, recursive=False))) == {apps.live.team_roles[1], top}
    assert flavour(permissions.has(team.id, user.id, leaf))

    # Dropping the middle level's leaf takes it away from the holder of the top.
    flavour(definitions.update(middle, contained_permission_ids=["$update_team"]))
    assert not flavour(permissions.has(team.id, user.id, leaf))
    flavour(definitions.delete(top))
    with pytest.raises(PermissionNotFound):
        flavour(definitions.delete(top))
    with pytest.raises(ContainedPermissionNotFound):
        flavour(definitions.create(f"broken_{tag}", contained_permission_ids=[f"missing_{tag}"]))
