"""Teams and memberships, for the client and the server tier.

Calls both tiers make are written once in ``_TeamsOps``, generic in the team model the
tier sees (``Team`` or ``ServerTeam``); each tier adds the calls and fields only it has.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar, cast

from .._ops import Op
from .._transport import segment
from ..errors import TeamNotFound
from ..models import ServerTeam, Team, TeamMembership
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import R, Twin, operation

__all__ = ["ClientTeams", "ServerTeams"]

TeamT = TypeVar("TeamT", bound=Team)


class _TeamsOps(_Namespace, Generic[TeamT]):
    _model: ClassVar[type[Team]]

    def _team(self, body: Any) -> TeamT:
        return cast(TeamT, parse(self._model, body))

    def _teams(self, user_id: str | None) -> Op[list[TeamT]]:
        body = yield from self._transport.call_json("GET", "/teams", query={"user_id": user_id}, session=self._session)
        return cast("list[TeamT]", parse_items(self._model, body))

    def _create(self, body: dict[str, Any]) -> Op[TeamT]:
        answer = yield from self._transport.call_json("POST", "/teams", json=body, session=self._session)
        return self._team(answer)

    def _update(self, team_id: str, body: dict[str, Any]) -> Op[TeamT]:
        answer = yield from self._transport.call_json(
            "PATCH", f"/teams/{segment(team_id)}", json=body, session=self._session
        )
        return self._team(answer)

    @operation
    def get(self, team_id: str) -> Op[TeamT | None]:
        """The team, or None if there is none with this id.

        On the client tier only members may read a team (``TeamMembershipNotFound``).
        """
        try:
            body = yield from self._transport.call_json("GET", f"/teams/{segment(team_id)}", session=self._session)
        except TeamNotFound:
            return None
        return self._team(body)

    @operation
    def delete(self, team_id: str) -> Op[None]:
        """Delete the team (client tier: needs ``$delete_team``)."""
        yield from self._transport.call("DELETE", f"/teams/{segment(team_id)}", session=self._session)

    @operation
    def remove_member(self, team_id: str, user_id: str) -> Op[None]:
        """Remove a member (client tier: ``$remove_members`` unless it is yourself).

        Raises ``TeamMembershipNotFound`` if the user is not a member.
        """
        path = f"/team-memberships/{segment(team_id)}/{segment(user_id)}"
        yield from self._transport.call("DELETE", path, session=self._session)


class _ClientTeamsOps(_TeamsOps[Team]):
    _model = Team

    @operation
    def create(
        self, display_name: str, *, profile_image_url: str | None = UNSET, client_metadata: Any = UNSET
    ) -> Op[Team]:
        """Create a team with the signed-in user as its creator (creator permissions).

        Only when the project allows client team creation. The selected team is unchanged.
        """
        body = changes(display_name=display_name, profile_image_url=profile_image_url, client_metadata=client_metadata)
        return (yield from self._create({**body, "creator_user_id": "me"}))

    @operation
    def update(
        self,
        team_id: str,
        *,
        display_name: str = UNSET,
        profile_image_url: str | None = UNSET,
        client_metadata: Any = UNSET,
    ) -> Op[Team]:
        """Change the given fields (needs ``$update_team``). Images must be base64 images."""
        body = changes(display_name=display_name, profile_image_url=profile_image_url, client_metadata=client_metadata)
        return (yield from self._update(team_id, body))

    @operation
    def leave(self, team_id: str) -> Op[None]:
        """Leave the team (raises ``TeamMembershipNotFound`` if not a member)."""
        yield from _TeamsOps.remove_member.op(self, team_id, "me")

    @operation
    def list(self) -> Op[list[Team]]:
        """The signed-in user's teams, oldest first."""
        return (yield from self._teams("me"))


class ClientTeams(_ClientTeamsOps, Twin[R]):
    """``client.teams``: the signed-in user's teams."""


class _ServerTeamsOps(_TeamsOps[ServerTeam]):
    _model = ServerTeam

    @operation
    def create(
        self,
        display_name: str,
        *,
        creator_user_id: str | None = None,
        profile_image_url: str | None = UNSET,
        client_metadata: Any = UNSET,
        client_read_only_metadata: Any = UNSET,
        server_metadata: Any = UNSET,
    ) -> Op[ServerTeam]:
        """Create a team; ``creator_user_id`` joins it with the creator default permissions.

        Without a creator the team has no members. Raises ``UserNotFound`` for an unknown
        creator.
        """
        body = changes(
            display_name=display_name,
            profile_image_url=profile_image_url,
            client_metadata=client_metadata,
            client_read_only_metadata=client_read_only_metadata,
            server_metadata=server_metadata,
        )
        if creator_user_id is not None:
            body["creator_user_id"] = creator_user_id
        return (yield from self._create(body))

    @operation
    def update(
        self,
        team_id: str,
        *,
        display_name: str = UNSET,
        profile_image_url: str | None = UNSET,
        client_metadata: Any = UNSET,
        client_read_only_metadata: Any = UNSET,
        server_metadata: Any = UNSET,
    ) -> Op[ServerTeam]:
        """Change the given fields; None clears one. Raises ``TeamNotFound``."""
        body = changes(
            display_name=display_name,
            profile_image_url=profile_image_url,
            client_metadata=client_metadata,
            client_read_only_metadata=client_read_only_metadata,
            server_metadata=server_metadata,
        )
        return (yield from self._update(team_id, body))

    @operation
    def add_member(self, team_id: str, user_id: str) -> Op[TeamMembership]:
        """Add a user to a team with the member default permissions.

        Raises ``TeamNotFound``, ``UserNotFound`` or ``TeamMembershipAlreadyExists``.
        """
        path = f"/team-memberships/{segment(team_id)}/{segment(user_id)}"
        body = yield from self._transport.call_json("POST", path, json={})
        return parse(TeamMembership, body)

    @operation
    def list(self, *, user_id: str | None = None) -> Op[list[ServerTeam]]:
        """Every team of the project, oldest first; with ``user_id``, that user's teams."""
        return (yield from self._teams(user_id))


class ServerTeams(_ServerTeamsOps, Twin[R]):
    """``server.teams``: any team of the project and its members."""
