"""Contact channels: a user's e-mail addresses, for the client and server tier.

Every request is written once in ``_ChannelsOps`` for a user id; the client tier always
means its own user (``me``), the server tier names the user.
"""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._transport import segment
from ..errors import HttpStatusError
from ..models import ContactChannel
from ._base import UNSET, _Namespace, changes, parse, parse_items, require_callback_url
from ._binding import R, Twin, operation
from ._client_flows import _ClientFlows

__all__ = ["ClientContactChannels", "ServerContactChannels"]


def _path(user_id: str, channel_id: str) -> str:
    return f"/contact-channels/{segment(user_id)}/{segment(channel_id)}"


class _ChannelsOps(_Namespace):
    def _create(self, user_id: str, value: str, used_for_auth: bool, **fields: Any) -> Op[ContactChannel]:
        body = {
            "user_id": user_id,
            "type": "email",
            "value": value,
            "used_for_auth": used_for_auth,
            **changes(**fields),
        }
        answer = yield from self._transport.call_json("POST", "/contact-channels", json=body, session=self._session)
        return parse(ContactChannel, answer)

    def _list(self, user_id: str | None) -> Op[list[ContactChannel]]:
        body = yield from self._transport.call_json(
            "GET", "/contact-channels", query={"user_id": user_id}, session=self._session
        )
        return parse_items(ContactChannel, body)

    def _get(self, user_id: str, channel_id: str) -> Op[ContactChannel | None]:
        try:
            body = yield from self._transport.call_json("GET", _path(user_id, channel_id), session=self._session)
        except HttpStatusError as error:  # a plain 404 "Contact channel not found."
            if error.status == 404:
                return None
            raise
        return parse(ContactChannel, body)

    def _update(self, user_id: str, channel_id: str, **fields: Any) -> Op[ContactChannel]:
        body = yield from self._transport.call_json(
            "PATCH", _path(user_id, channel_id), json=changes(**fields), session=self._session
        )
        return parse(ContactChannel, body)

    def _delete(self, user_id: str, channel_id: str) -> Op[None]:
        yield from self._transport.call("DELETE", _path(user_id, channel_id), session=self._session)

    def _send_code(self, user_id: str, channel_id: str, callback_url: str) -> Op[None]:
        body = {"callback_url": require_callback_url(callback_url, page="email-verification")}
        path = _path(user_id, channel_id) + "/send-verification-code"
        yield from self._transport.call("POST", path, json=body, session=self._session)


class _ClientChannelsOps(_ChannelsOps):
    @operation
    def create(self, value: str, *, used_for_auth: bool = False, is_primary: bool = UNSET) -> Op[ContactChannel]:
        """Add an e-mail address to the signed-in user (unverified).

        ``used_for_auth=True`` lets it sign in (``ContactChannelAlreadyUsedForAuthBySomeoneElse``
        if another account does); ``is_primary=True`` makes it the primary address.
        """
        return (yield from self._create("me", value, used_for_auth, is_primary=is_primary))

    @operation
    def get(self, channel_id: str) -> Op[ContactChannel | None]:
        """One of the signed-in user's addresses, or None."""
        return (yield from self._get("me", channel_id))

    @operation
    def update(
        self, channel_id: str, *, value: str = UNSET, used_for_auth: bool = UNSET, is_primary: bool = UNSET
    ) -> Op[ContactChannel]:
        """Change the given fields; a new ``value`` is unverified again."""
        return (
            yield from self._update("me", channel_id, value=value, used_for_auth=used_for_auth, is_primary=is_primary)
        )

    @operation
    def delete(self, channel_id: str) -> Op[None]:
        """Remove one of the signed-in user's addresses."""
        yield from self._delete("me", channel_id)

    @operation
    def send_verification_code(self, channel_id: str, callback_url: str) -> Op[None]:
        """E-mail a verification link (``callback_url?code=...``) to the address.

        Raises ``EmailAlreadyVerified`` if it is verified, ``RedirectUrlNotWhitelisted`` if
        the service does not trust ``callback_url``. The page calls ``verify_email(code)``.
        """
        yield from self._send_code("me", channel_id, callback_url)

    @operation
    def verify(self, code: str) -> Op[None]:
        """Mark the address of an e-mailed code verified (the same call as ``verify_email``)."""
        yield from _ClientFlows.verify_email.op(self, code)

    @operation
    def list(self) -> Op[list[ContactChannel]]:
        """The signed-in user's addresses, oldest first."""
        return (yield from self._list("me"))


class ClientContactChannels(_ClientChannelsOps, Twin[R]):
    """``client.contact_channels``: the signed-in user's e-mail addresses."""


class _ServerChannelsOps(_ChannelsOps):
    @operation
    def create(
        self,
        user_id: str,
        value: str,
        *,
        used_for_auth: bool = False,
        is_primary: bool = UNSET,
        is_verified: bool = UNSET,
    ) -> Op[ContactChannel]:
        """Add an e-mail address to a user (unverified unless ``is_verified=True``)."""
        return (yield from self._create(user_id, value, used_for_auth, is_primary=is_primary, is_verified=is_verified))

    @operation
    def get(self, user_id: str, channel_id: str) -> Op[ContactChannel | None]:
        """One of the user's addresses, or None."""
        return (yield from self._get(user_id, channel_id))

    @operation
    def update(
        self,
        user_id: str,
        channel_id: str,
        *,
        value: str = UNSET,
        used_for_auth: bool = UNSET,
        is_primary: bool = UNSET,
        is_verified: bool = UNSET,
    ) -> Op[ContactChannel]:
        """Change the given fields; a new ``value`` is unverified unless ``is_verified`` is given."""
        return (
            yield from self._update(
                user_id,
                channel_id,
                value=value,
                used_for_auth=used_for_auth,
                is_primary=is_primary,
                is_verified=is_verified,
            )
        )

    @operation
    def delete(self, user_id: str, channel_id: str) -> Op[None]:
        """Remove one of the user's addresses."""
        yield from self._delete(user_id, channel_id)

    @operation
    def send_verification_code(self, user_id: str, channel_id: str, callback_url: str) -> Op[None]:
        """E-mail a verification link to the address (see the client call)."""
        yield from self._send_code(user_id, channel_id, callback_url)

    @operation
    def list(self, user_id: str | None = None) -> Op[list[ContactChannel]]:
        """A user's addresses (or every user's), oldest first."""
        return (yield from self._list(user_id))


class ServerContactChannels(_ServerChannelsOps, Twin[R]):
    """``server.contact_channels``: any user's e-mail addresses."""
