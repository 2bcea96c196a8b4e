"""The wire shapes of service-api A5.2 added for the server tier, teams and contact channels."""

from __future__ import annotations

import datetime as dt

import pytest

from authmw._apps._base import parse, parse_items
from authmw.errors import InvalidServerResponse
from authmw.models import (
    ContactChannel,
    Page,
    PermissionDefinition,
    ServerTeamMemberProfile,
    ServerUser,
    TeamInvitation,
    TeamInvitationDetails,
    TeamMemberProfile,
    TeamPermission,
)


def test_a_user_list_page_takes_its_cursor_from_pagination():
    page = Page[ServerUser].model_validate(
        {"items": [{"id": "u1"}], "is_paginated": True, "pagination": {"next_cursor": "u2"}}
    )
    assert [user.id for user in page.items] == ["u1"] and page.next_cursor == "u2"
    last = Page[ServerUser].model_validate({"items": [], "is_paginated": True, "pagination": {"next_cursor": None}})
    assert last.next_cursor is None
    unpaginated = Page[TeamPermission].model_validate({"items": [], "is_paginated": False})
    assert unpaginated.next_cursor is None


def test_list_items_that_do_not_fit_are_an_invalid_answer():
    with pytest.raises(InvalidServerResponse, match="items"):
        parse_items(TeamPermission, {"items": [{"id": "x"}], "is_paginated": False})
    with pytest.raises(InvalidServerResponse):
        parse(ContactChannel, {"access_token": "secret-token-value"})


def test_contact_channel():
    channel = ContactChannel.model_validate(
        {
            "user_id": "u",
            "id": "c",
            "value": "a@b.example.com",
            "type": "email",
            "used_for_auth": True,
            "is_verified": False,
            "is_primary": True,
        }
    )
    assert (channel.value, channel.used_for_auth, channel.is_verified, channel.is_primary) == (
        "a@b.example.com",
        True,
        False,
        True,
    )


def test_invitation_and_its_details():
    invitation = TeamInvitation.model_validate(
        {"id": "i", "team_id": "t", "expires_at_millis": 1738000000000, "recipient_email": "x@y.example.com"}
    )
    assert invitation.expires_at == dt.datetime(2025, 1, 27, 17, 46, 40, tzinfo=dt.timezone.utc)
    details = TeamInvitationDetails.model_validate({"team_id": "t", "team_display_name": "Team"})
    assert details.team_display_name == "Team"


def test_member_profiles_of_both_tiers():
    client = TeamMemberProfile.model_validate(
        {"team_id": "t", "user_id": "u", "display_name": None, "profile_image_url": None}
    )
    assert client.display_name is None
    server = ServerTeamMemberProfile.model_validate(
        {"team_id": "t", "user_id": "u", "display_name": "Ada", "profile_image_url": None, "user": {"id": "u"}}
    )
    assert isinstance(server.user, ServerUser) and server.user.id == "u"


def test_permission_definition_without_a_description():
    definition = PermissionDefinition.model_validate({"id": "member", "contained_permission_ids": ["$read_members"]})
    assert (definition.description, definition.contained_permission_ids) == ("", ["$read_members"])
