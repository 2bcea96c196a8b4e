"""Wire shapes of the service (contract 5.2) as pydantic models with Pythonic names.

Parse with ``User.model_validate(wire_json)``. Unknown wire fields are ignored (a newer
service may add some), missing optional ones get defaults, ``*_millis`` times become aware
``datetime`` objects, and a few fields take their SDK names (``auth_with_email`` ->
``email_auth_enabled``, ``requires_totp_mfa`` -> ``is_multi_factor_required``).
"""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

__all__ = [
    "ContactChannel",
    "OAuthProvider",
    "Page",
    "PermissionDefinition",
    "Project",
    "ProjectConfig",
    "ProjectOAuthProvider",
    "ServerTeam",
    "ServerTeamMemberProfile",
    "ServerUser",
    "SignInResult",
    "Team",
    "TeamInvitation",
    "TeamInvitationDetails",
    "TeamMemberProfile",
    "TeamMembership",
    "TeamPermission",
    "TokenPair",
    "User",
]


def _from_millis(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return _dt.datetime.fromtimestamp(value / 1000, tz=_dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"{value} is not a time in milliseconds") from None
    return value


#: A time sent as milliseconds since the epoch.
Millis = Annotated[_dt.datetime, BeforeValidator(_from_millis)]
#: Any JSON value (metadata fields).
Json = Any


def _wire(name: str, python_name: str | None = None) -> Any:
    """Accept the wire name and, when constructing by hand, the Python name."""
    return AliasChoices(name, python_name) if python_name else name


class WireModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class OAuthProvider(WireModel):
    """A provider account linked to a user."""

    id: str
    account_id: str | None = None
    email: str | None = None


class Team(WireModel):
    id: str
    display_name: str = ""
    profile_image_url: str | None = None
    client_metadata: Json = None
    client_read_only_metadata: Json = None


class ServerTeam(Team):
    created_at: Millis | None = Field(None, validation_alias=_wire("created_at_millis", "created_at"))
    server_metadata: Json = None


class User(WireModel):
    """A user as the client tier sees it (``GET /users/me``)."""

    id: str
    display_name: str | None = None
    primary_email: str | None = None
    primary_email_verified: bool = False
    profile_image_url: str | None = None
    signed_up_at: Millis | None = Field(None, validation_alias=_wire("signed_up_at_millis", "signed_up_at"))
    client_metadata: Json = None
    client_read_only_metadata: Json = None
    has_password: bool = False
    email_auth_enabled: bool = Field(False, validation_alias=_wire("auth_with_email", "email_auth_enabled"))
    otp_auth_enabled: bool = False
    passkey_auth_enabled: bool = False
    is_multi_factor_required: bool = Field(
        False, validation_alias=_wire("requires_totp_mfa", "is_multi_factor_required")
    )
    oauth_providers: list[OAuthProvider] = Field(default_factory=list)
    selected_team_id: str | None = None
    selected_team: Team | None = None


class ServerUser(User):
    """A user as the server and admin tiers see it."""

    server_metadata: Json = None
    last_active_at: Millis | None = Field(None, validation_alias=_wire("last_active_at_millis", "last_active_at"))
    primary_email_auth_enabled: bool = False
    selected_team: ServerTeam | None = None


class TokenPair(WireModel):
    """A session's tokens (``POST /auth/sessions``)."""

    # Tokens are secrets: kept out of repr and str.
    access_token: str = Field(repr=False)
    refresh_token: str = Field(repr=False)


class SignInResult(TokenPair):
    """Answer of the sign-in style endpoints (contract 5.2)."""

    user_id: str | None = None
    is_new_user: bool | None = None


class ProjectOAuthProvider(WireModel):
    id: str


class ProjectConfig(WireModel):
    sign_up_enabled: bool = True
    credential_enabled: bool = True
    magic_link_enabled: bool = False
    passkey_enabled: bool = False
    client_team_creation_enabled: bool = False
    client_user_deletion_enabled: bool = False
    oauth_providers: list[ProjectOAuthProvider] = Field(
        default_factory=list, validation_alias=AliasChoices("enabled_oauth_providers", "oauth_providers")
    )


class Project(WireModel):
    """The project as the client and server tiers see it (``GET /projects/current``)."""

    id: str
    display_name: str = ""
    config: ProjectConfig = Field(default_factory=ProjectConfig)


ItemT = TypeVar("ItemT")


class Page(WireModel, Generic[ItemT]):
    """One page of a list: ``items`` and the cursor of the next page (None on the last)."""

    items: list[ItemT] = Field(default_factory=list)
    next_cursor: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten_pagination(cls, data: Any) -> Any:
        # Wire: {"items", "is_paginated", "pagination"?: {"next_cursor"}}
        if isinstance(data, dict) and isinstance(data.get("pagination"), dict) and "next_cursor" not in data:
            return {**data, "next_cursor": data["pagination"].get("next_cursor")}
        return data


class TeamMembership(WireModel):
    team_id: str
    user_id: str


class TeamMemberProfile(WireModel):
    """A member as the team sees them; name and image fall back to the user's own."""

    team_id: str
    user_id: str
    display_name: str | None = None
    profile_image_url: str | None = None


class ServerTeamMemberProfile(TeamMemberProfile):
    user: ServerUser | None = None


class TeamPermission(WireModel):
    """A permission a user holds in a team (granted, or contained in a granted one)."""

    id: str
    team_id: str
    user_id: str


class PermissionDefinition(WireModel):
    id: str
    description: str = ""
    contained_permission_ids: list[str] = Field(default_factory=list)


class TeamInvitation(WireModel):
    """A pending invitation (``GET /team-invitations``)."""

    id: str
    team_id: str
    recipient_email: str | None = None
    expires_at: Millis | None = Field(None, validation_alias=_wire("expires_at_millis", "expires_at"))


class TeamInvitationDetails(WireModel):
    """What an invitation code leads to (``POST /team-invitations/accept/details``)."""

    team_id: str
    team_display_name: str = ""


class ContactChannel(WireModel):
    """An e-mail address of a user; ``used_for_auth`` lets it sign in."""

    id: str
    user_id: str | None = None
    value: str
    type: str = "email"
    is_verified: bool = False
    is_primary: bool = False
    used_for_auth: bool = False
