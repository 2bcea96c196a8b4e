"""server.teams and server.team_member_profiles (service-api A5.6)."""

from __future__ import annotations

import uuid

import pytest

from authmw.errors import (
    TeamMembershipAlreadyExists,
    TeamMembershipNotFound,
    TeamNotFound,
    UserNotFound,
)
from authmw.models import ServerTeam, ServerTeamMemberProfile, TeamMembership


def test_create_read_update_delete(flavour, apps):
    teams = apps.server.teams
    team = flavour(
        teams.create(
            "Engineering",
            profile_image_url="https://example.com/eng.png",
            client_metadata={"c": 1},
            client_read_only_metadata={"r": 1},
            server_metadata={"s": 1},
        )
    )
    assert isinstance(team, ServerTeam) and team.created_at is not None
    assert (team.display_name, team.profile_image_url) == ("Engineering", "https://example.com/eng.png")
    assert (team.client_metadata, team.client_read_only_metadata, team.server_metadata) == (
        {"c": 1},
        {"r": 1},
        {"s": 1},
    )
    assert flavour(teams.get(team.id)) == team
    updated = flavour(teams.update(team.id, display_name="Eng", server_metadata={"s": 2}, profile_image_url=None))
    assert (updated.display_name, updated.server_metadata, updated.client_metadata) == ("Eng", {"s": 2}, {"c": 1})
    assert updated.profile_image_url is None
    assert flavour(teams.delete(team.id)) is None
    assert flavour(teams.get(team.id)) is None


def test_list_all_or_a_users_teams(flavour, apps):
    teams = apps.server.teams
    user = apps.new_user()
    first = flavour(teams.create("First", creator_user_id=user.id))
    flavour(teams.create("Someone else's"))
    second = flavour(teams.create("Second"))
    flavour(teams.add_member(second.id, user.id))
    assert [team.id for team in flavour(teams.list(user_id=user.id))] == [first.id, second.id]
    everything = [team.id for team in flavour(teams.list())]
    assert {first.id, second.id} <= set(everything)


def test_creating_does_not_select_the_team(flavour, apps):
    user = apps.new_user()
    flavour(apps.server.teams.create("Created", creator_user_id=user.id))
    assert flavour(apps.server.users.get(user.id)).selected_team_id is None


def test_add_and_remove_members(flavour, apps):
    teams = apps.server.teams
    user = apps.new_user()
    team = flavour(teams.create("Members"))
    membership = flavour(teams.add_member(team.id, user.id))
    assert membership == TeamMembership(team_id=team.id, user_id=user.id)
    with pytest.raises(TeamMembershipAlreadyExists) as info:
        flavour(teams.add_member(team.id, user.id))
    assert info.value.status == 409
    assert flavour(teams.remove_member(team.id, user.id)) is None
    with pytest.raises(TeamMembershipNotFound) as missing:
        flavour(teams.remove_member(team.id, user.id))
    assert (missing.value.details["team_id"], missing.value.details["user_id"]) == (team.id, user.id)
    assert flavour(teams.list(user_id=user.id)) == []


def test_team_errors(flavour, apps):
    teams = apps.server.teams
    missing = str(uuid.uuid4())
    assert flavour(teams.get(missing)) is None
    with pytest.raises(TeamNotFound) as info:
        flavour(teams.update(missing, display_name="x"))
    assert info.value.details["team_id"] == missing and info.value.status == 404
    with pytest.raises(TeamNotFound):
        flavour(teams.delete(missing))
    user = apps.new_user()
    with pytest.raises(TeamNotFound):
        flavour(teams.add_member(missing, user.id))
    team = flavour(teams.create("Real"))
    with pytest.raises(UserNotFound):
        flavour(teams.add_member(team.id, str(uuid.uuid4())))
    with pytest.raises(UserNotFound):
        flavour(teams.create("Nobody's", creator_user_id=str(uuid.uuid4())))


def test_member_profiles_list_get_update(flavour, apps):
    teams, profiles = apps.server.teams, apps.server.team_member_profiles
    a = apps.new_user(display_name="Ada")
    b = apps.new_user(display_name="Bob", profile_image_url="https://example.com/bob.png")
    team = flavour(teams.create("Profiles", creator_user_id=a.id))
    flavour(teams.add_member(team.id, b.id))
    listed = flavour(profiles.list(team.id))
    assert [(p.user_id, p.display_name) for p in listed] == [(a.id, "Ada"), (b.id, "Bob")]
    assert all(isinstance(p, ServerTeamMemberProfile) and p.user is not None for p in listed)
    assert listed[1].profile_image_url == "https://example.com/bob.png"  # falls back to the user's own
    assert [p.team_id for p in flavour(profiles.list(user_id=b.id))] == [team.id]
    edited = flavour(profiles.update(team.id, b.id, display_name="Robert (Profiles)"))
    assert edited.display_name == "Robert (Profiles)"
    assert flavour(profiles.get(team.id, b.id)).display_name == "Robert (Profiles)"
    assert flavour(apps.server.users.get(b.id)).display_name == "Bob"  # the user's own name stays
    outsider = apps.new_user()
    assert flavour(profiles.get(team.id, outsider.id)) is None
    with pytest.raises(TeamMembershipNotFound):
        flavour(profiles.update(team.id, outsider.id, display_name="x"))


def test_member_profile_filters_of_unknown_things(flavour, apps):
    profiles = apps.server.team_member_profiles
    with pytest.raises(TeamNotFound):
        flavour(profiles.list(str(uuid.uuid4())))
    with pytest.raises(UserNotFound):
        flavour(profiles.list(user_id=str(uuid.uuid4())))


def test_create_team_on_sign_up_gives_new_users_a_personal_team(flavour, apps):
    live = apps.live
    live.set_project_config(create_team_on_sign_up=True)
    try:
        named = apps.new_user(display_name="Ada")
        by_email = apps.new_user(primary_email="grace@example.com")
        nameless = apps.new_user()
    finally:
        live.set_project_config(create_team_on_sign_up=False)
    for user, name in ((named, "Ada's Team"), (by_email, "grace@example.com's Team"), (nameless, "Personal Team")):
        [team] = flavour(apps.server.teams.list(user_id=user.id))
        assert team.display_name == name
        held = flavour(apps.server.team_permissions.list(team.id, user.id, recursive=False))
        assert {p.id for p in held} == {live.team_roles[0]}
        # 2.8 selects the personal team; 2.7 did not (service-api B5.2).
        selected = team.id if live.api == "2.8" else None
        assert flavour(apps.server.users.get(user.id)).selected_team_id == selected
    assert flavour(apps.server.teams.list(user_id=apps.new_user().id)) == []  # off again
