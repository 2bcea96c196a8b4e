"""Team invitations by e-mailed code, for the client tier."""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._transport import segment
from ..errors import HttpStatusError, InvalidServerResponse, NotInServiceVersion, SchemaError
from ..models import ReceivedTeamInvitation, TeamInvitation, TeamInvitationDetails
from ._base import _Namespace, parse, parse_items, require_callback_url
from ._binding import R, Twin, operation

__all__ = ["ClientTeamInvitations", "ServerTeamInvitations"]

NEEDS_2_8 = (
    "Listing the invitations a user received and accepting one by id are API 2.8 "
    "(GET /team-invitations?user_id=..., POST /team-invitations/{id}/accept); this service answers as "
    "API 2.7. Accept with the code of the invitation link instead (team_invitations.accept(code))."
)


class _ReceivedOps(_Namespace):
    """A user's received invitations (API 2.8): the client tier for its signed-in user ("me"),
    the server tier for any user."""

    def _list_received(self, user_id: str) -> Op[list[ReceivedTeamInvitation]]:
        try:
            body = yield from self._transport.call_json(
                "GET", "/team-invitations", query={"user_id": user_id}, session=self._session
            )
        except SchemaError as exc:  # 2.7 knows only ?team_id=
            raise NotInServiceVersion(NEEDS_2_8, method="GET", url="/team-invitations", status=exc.status) from None
        return parse_items(ReceivedTeamInvitation, body)

    def _accept_by_id(self, invitation_id: str, user_id: str) -> Op[None]:
        path = f"/team-invitations/{segment(invitation_id)}/accept"
        try:
            yield from self._transport.call("POST", path, query={"user_id": user_id}, json={}, session=self._session)
        except HttpStatusError as exc:
            if exc.status == 404:  # 2.7 has no such route (known errors are not HttpStatusError)
                raise NotInServiceVersion(NEEDS_2_8, method="POST", url=exc.url) from None
            raise


class _InvitationsOps(_ReceivedOps):
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
    def list_received(self) -> Op[list[ReceivedTeamInvitation]]:
        """The pending invitations addressed to one of the signed-in user's verified e-mail
        addresses, with each team's name (API 2.8; ``NotInServiceVersion`` on 2.7)."""
        return (yield from self._list_received("me"))

    @operation
    def accept_by_id(self, invitation_id: str) -> Op[None]:
        """Join the team of a received invitation (API 2.8). The user needs a verified e-mail
        equal to the recipient; otherwise, and for an unknown, used or expired invitation,
        ``VerificationCodeNotFound``. ``NotInServiceVersion`` on 2.7."""
        yield from self._accept_by_id(invitation_id, "me")

    @operation
    def list(self, team_id: str) -> Op[list[TeamInvitation]]:
        """Pending invitations of a team (needs ``$read_members`` and ``$invite_members``)."""
        body = yield from self._transport.call_json(
            "GET", "/team-invitations", query={"team_id": team_id}, session=self._session
        )
        return parse_items(TeamInvitation, body)


class ServerTeamInvitations(_ReceivedOps, Twin[R]):
    """``server.team_invitations``: the invitations a user received, accepted for them (API 2.8)."""

    @operation
    def list_received(self, user_id: str) -> Op[list[ReceivedTeamInvitation]]:
        """The pending invitations addressed to one of the user's verified e-mail addresses."""
        return (yield from self._list_received(user_id))

    @operation
    def accept(self, invitation_id: str, user_id: str) -> Op[None]:
        """Make the user join the team of an invitation addressed to one of their verified
        addresses (``VerificationCodeNotFound`` otherwise)."""
        yield from self._accept_by_id(invitation_id, user_id)


class ClientTeamInvitations(_InvitationsOps, Twin[R]):
    """``client.team_invitations``: invite people to the signed-in user's teams, accept invitations."""
