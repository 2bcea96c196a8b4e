"""Team invitations by e-mailed code, for the client tier."""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._transport import segment
from ..errors import InvalidServerResponse
from ..models import TeamInvitation, TeamInvitationDetails
from ._base import _Namespace, parse, parse_items, require_callback_url
from ._binding import R, Twin, operation

__all__ = ["ClientTeamInvitations"]


class _InvitationsOps(_Namespace):
    def _code_call(self, path: str, code: str) -> Op[Any]:
        return (yield from self._transport.call_json("POST", path, json={"code": code}, session=self._session))

    @operation
    def send(self, team_id: str, email: str, callback_url: str) -> Op[str]:
        """E-mail an invitation link (``callback_url?code=...``); the invitation's id.

        Needs ``$invite_members``. Raises ``RedirectUrlNotWhitelisted`` if the service does
        not trust ``callback_url``.
        """
        body = {
            "team_id": team_id,
            "email": email,
            "callback_url": require_callback_url(callback_url, page="team-invitation"),
        }
        answer = yield from self._transport.call_json(
            "POST", "/team-invitations/send-code", json=body, session=self._session
        )
        invitation_id = answer.get("id") if isinstance(answer, dict) else None
        if not isinstance(invitation_id, str):
            raise InvalidServerResponse("The invitation answer has no id.")
        return invitation_id

    @operation
    def revoke(self, team_id: str, invitation_id: str) -> Op[None]:
        """Withdraw a pending invitation (needs ``$remove_members``)."""
        yield from self._transport.call(
            "DELETE", f"/team-invitations/{segment(invitation_id)}", query={"team_id": team_id}, session=self._session
        )

    @operation
    def check_code(self, code: str) -> Op[None]:
        """Check an invitation code without using it (no sign-in needed).

        Raises a ``VerificationCodeError`` (not found, expired, used, too many attempts).
        """
        yield from self._code_call("/team-invitations/accept/check-code", code)

    @operation
    def get_details(self, code: str) -> Op[TeamInvitationDetails]:
        """The team an invitation code leads to (``team_display_name``), without using it."""
        return parse(TeamInvitationDetails, (yield from self._code_call("/team-invitations/accept/details", code)))

    @operation
    def accept(self, code: str) -> Op[None]:
        """Join the team as the signed-in user (nothing changes if already a member).

        Raises a ``VerificationCodeError`` for a bad code.
        """
        yield from self._code_call("/team-invitations/accept", code)

    @operation
    def list(self, team_id: str) -> Op[list[TeamInvitation]]:
        """Pending invitations of a team (needs ``$read_members`` and ``$invite_members``)."""
        body = yield from self._transport.call_json(
            "GET", "/team-invitations", query={"team_id": team_id}, session=self._session
        )
        return parse_items(TeamInvitation, body)


class ClientTeamInvitations(_InvitationsOps, Twin[R]):
    """``client.team_invitations``: invite people to the signed-in user's teams, accept invitations."""
