"""Team member profiles and team permissions, for the client and server tier."""

from __future__ import annotations

import builtins
from typing import Any, ClassVar, Generic, TypeVar, cast

from .._ops import Op
from .._transport import segment
from ..errors import TeamMembershipNotFound
from ..models import ServerTeamMemberProfile, TeamMemberProfile, TeamPermission
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import R, Twin, operation

__all__ = [
    "ClientTeamMemberProfiles",
    "ClientTeamPermissions",
    "ServerTeamMemberProfiles",
    "ServerTeamPermissions",
]

ProfileT = TypeVar("ProfileT", bound=TeamMemberProfile)


def _member_path(team_id: str, user_id: str) -> str:
    return f"/team-member-profiles/{segment(team_id)}/{segment(user_id)}"


class _ProfilesOps(_Namespace, Generic[ProfileT]):
    _model: ClassVar[type[TeamMemberProfile]]

    def _update(self, team_id: str, user_id: str, body: dict[str, Any]) -> Op[ProfileT]:
        answer = yield from self._transport.call_json(
            "PATCH", _member_path(team_id, user_id), json=body, session=self._session
        )
        return cast(ProfileT, parse(self._model, answer))

    @operation
    def list(self, team_id: str | None = None, *, user_id: str | None = None) -> Op[builtins.list[ProfileT]]:
        """Member profiles in membership order, filtered by team and/or user.

        The client tier must name a team it belongs to; other members' profiles need
        ``$read_members``.
        """
        body = yield from self._transport.call_json(
            "GET", "/team-member-profiles", query={"team_id": team_id, "user_id": user_id}, session=self._session
        )
        return cast("builtins.list[ProfileT]", parse_items(self._model, body))

    @operation
    def get(self, team_id: str, user_id: str = "me") -> Op[ProfileT | None]:
        """A member's profile in a team, or None if the user is not a member."""
        try:
            body = yield from self._transport.call_json("GET", _member_path(team_id, user_id), session=self._session)
        except TeamMembershipNotFound:
            return None
        return cast(ProfileT, parse(self._model, body))


class _ClientProfilesOps(_ProfilesOps[TeamMemberProfile]):
    _model = TeamMemberProfile

    @operation
    def update(
        self, team_id: str, *, display_name: str = UNSET, profile_image_url: str | None = UNSET
    ) -> Op[TeamMemberProfile]:
        """Change the signed-in user's own profile in a team."""
        body = changes(display_name=display_name, profile_image_url=profile_image_url)
        return (yield from self._update(team_id, "me", body))


class ClientTeamMemberProfiles(_ClientProfilesOps, Twin[R]):
    """``client.team_member_profiles``: members of the signed-in user's teams."""


class _ServerProfilesOps(_ProfilesOps[ServerTeamMemberProfile]):
    _model = ServerTeamMemberProfile

    @operation
    def update(
        self, team_id: str, user_id: str, *, display_name: str = UNSET, profile_image_url: str | None = UNSET
    ) -> Op[ServerTeamMemberProfile]:
        """Change a member's profile in a team."""
        body = changes(display_name=display_name, profile_image_url=profile_image_url)
        return (yield from self._update(team_id, user_id, body))


class ServerTeamMemberProfiles(_ServerProfilesOps, Twin[R]):
    """``server.team_member_profiles``: any member's profile."""


class _PermissionsOps(_Namespace):
    def _list(
        self, team_id: str | None, user_id: str | None, permission_id: str | None, recursive: bool
    ) -> Op[list[TeamPermission]]:
        # The service lists only directly granted permissions unless told otherwise; the SDK
        # (and so authmw) includes contained ones by default.
        query = {"team_id": team_id, "user_id": user_id, "permission_id": permission_id, "recursive": recursive}
        body = yield from self._transport.call_json("GET", "/team-permissions", query=query, session=self._session)
        return parse_items(TeamPermission, body)


class _ClientPermissionsOps(_PermissionsOps):
    @operation
    def list(self, team_id: str | None = None, *, recursive: bool = True) -> Op[list[TeamPermission]]:
        """The signed-in user's permissions (in one team, or all), contained ones included.

        ``recursive=False`` lists only the directly granted ones.
        """
        return (yield from self._list(team_id, "me", None, recursive))

    @operation
    def has(self, team_id: str, permission_id: str) -> Op[bool]:
        """Whether the signed-in user holds the permission in the team (directly or contained)."""
        return bool((yield from self._list(team_id, "me", permission_id, True)))


class ClientTeamPermissions(_ClientPermissionsOps, Twin[R]):
    """``client.team_permissions``: the signed-in user's permissions in their teams."""


class _ServerPermissionsOps(_PermissionsOps):
    @operation
    def list(
        self,
        team_id: str | None = None,
        user_id: str | None = None,
        *,
        permission_id: str | None = None,
        recursive: bool = True,
    ) -> Op[list[TeamPermission]]:
        """Permissions held, by team and user, contained ones included unless ``recursive=False``."""
        return (yield from self._list(team_id, user_id, permission_id, recursive))

    @operation
    def has(self, team_id: str, user_id: str, permission_id: str) -> Op[bool]:
        """Whether the user holds the permission in the team (directly or contained)."""
        return bool((yield from self._list(team_id, user_id, permission_id, True)))

    @operation
    def grant(self, team_id: str, user_id: str, permission_id: str) -> Op[TeamPermission]:
        """Grant a permission to a member (idempotent).

        Raises ``PermissionNotFound``, ``TeamMembershipNotFound`` or ``UserNotFound``.
        """
        body = yield from self._transport.call_json("POST", _permission_path(team_id, user_id, permission_id), json={})
        return parse(TeamPermission, body)

    @operation
    def revoke(self, team_id: str, user_id: str, permission_id: str) -> Op[None]:
        """Revoke a directly granted permission (else ``TeamPermissionNotFound``)."""
        yield from self._transport.call("DELETE", _permission_path(team_id, user_id, permission_id))


def _permission_path(team_id: str, user_id: str, permission_id: str) -> str:
    return f"/team-permissions/{segment(team_id)}/{segment(user_id)}/{segment(permission_id)}"


class ServerTeamPermissions(_ServerPermissionsOps, Twin[R]):
    """``server.team_permissions``: list, grant and revoke any member's permissions."""
