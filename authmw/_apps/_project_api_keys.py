"""User and team API keys (API 2.8; the project must allow them), for the client and server tier.

``client.api_keys`` manages the signed-in user's own keys and ``client.team_api_keys`` the
keys of teams where the user holds ``$manage_api_keys``; ``server.user_api_keys`` and
``server.team_api_keys`` any user's or team's, plus ``check`` (which user or team a key
belongs to). A key's value is returned once, by ``create``; afterwards only its last four
characters. The project must allow the kind (``allow_user_api_keys`` /
``allow_team_api_keys``); otherwise every call raises :class:`~authmw.errors.HttpStatusError`
(400) saying so.
"""

from __future__ import annotations

import builtins
import datetime as _dt
from typing import Any, ClassVar, Literal

from .._ops import Op
from .._transport import segment
from ..models import NewProjectApiKey, ProjectApiKey
from ._api_keys import _millis
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import R, Twin, operation

__all__ = [
    "ClientTeamApiKeys",
    "ClientUserApiKeys",
    "ServerTeamApiKeys",
    "ServerUserApiKeys",
]

def _expiry(expires_at: int | _dt.datetime | None) -> int | None:
    return None if expires_at is None else _millis(expires_at)


class _KeysOps(_Namespace):
    """The calls of one kind of key, written once; the public methods name the owner."""

    _kind: ClassVar[Literal["user", "team"]]

    @property
    def _base(self) -> str:
        return f"/{self._kind}-api-keys"

    def _create(
        self, owner_id: str, description: str, expires_at: int | _dt.datetime | None, is_public: bool
    ) -> Op[NewProjectApiKey]:
        if not isinstance(description, str):
            raise TypeError(f"description must be a string, not {type(description).__name__}.")
        body = {
            f"{self._kind}_id": owner_id,
            "description": description,
            "expires_at_millis": _expiry(expires_at),
            "is_public": is_public,
        }
        answer = yield from self._transport.call_json("POST", self._base, json=body, session=self._session)
        return parse(NewProjectApiKey, answer)

    def _list(self, owner_id: str) -> Op[builtins.list[ProjectApiKey]]:
        query = {f"{self._kind}_id": owner_id}
        body = yield from self._transport.call_json("GET", self._base, query=query, session=self._session)
        return parse_items(ProjectApiKey, body)

    def _one(self, method: str, api_key_id: str, team_id: str | None, body: Any = None) -> Op[ProjectApiKey]:
        path = f"{self._base}/{segment(api_key_id)}"
        query = {"team_id": team_id} if self._kind == "team" else None
        kwargs: dict[str, Any] = {"query": query, "session": self._session}
        if body is not None:
            kwargs["json"] = body
        answer = yield from self._transport.call_json(method, path, **kwargs)
        return parse(ProjectApiKey, answer)

    def _check(self, api_key: str) -> Op[ProjectApiKey]:
        if not isinstance(api_key, str):
            raise TypeError(f"api_key must be a string, not {type(api_key).__name__}.")
        answer = yield from self._transport.call_json("POST", f"{self._base}/check", json={"api_key": api_key})
        return parse(ProjectApiKey, answer)


class _UserKeysOps(_KeysOps):
    _kind = "user"

    @operation
    def create(
        self,
        user_id: str = "me",
        *,
        description: str,
        expires_at: int | _dt.datetime | None = None,
        is_public: bool = False,
    ) -> Op[NewProjectApiKey]:
        """A new key of the user (``"me"``: the signed-in user; the client tier may name no
        other). The answer's ``api_key`` is the key itself, shown this once only.

        ``expires_at``: an aware ``datetime`` or milliseconds since the epoch; None never expires.
        """
        return (yield from self._create(user_id, description, expires_at, is_public))

    @operation
    def list(self, user_id: str = "me") -> Op[builtins.list[ProjectApiKey]]:
        """The user's keys, newest first, revoked and expired ones included."""
        return (yield from self._list(user_id))

    @operation
    def get(self, api_key_id: str) -> Op[ProjectApiKey]:
        """One key (``ApiKeyNotFound`` for an unknown id)."""
        return (yield from self._one("GET", api_key_id, None))

    @operation
    def update(self, api_key_id: str, *, description: str = UNSET) -> Op[ProjectApiKey]:
        """Change a key's description (its expiry cannot change)."""
        return (yield from self._one("PATCH", api_key_id, None, changes(description=description)))

    @operation
    def revoke(self, api_key_id: str) -> Op[ProjectApiKey]:
        """Revoke a key: it stops working at once. Revoking again keeps the first time."""
        return (yield from self._one("PATCH", api_key_id, None, {"revoked": True}))


class _TeamKeysOps(_KeysOps):
    _kind = "team"

    @operation
    def create(
        self,
        team_id: str,
        *,
        description: str,
        expires_at: int | _dt.datetime | None = None,
        is_public: bool = False,
    ) -> Op[NewProjectApiKey]:
        """A new key of the team (client tier: needs ``$manage_api_keys`` in it, else
        ``ApiKeyNotFound``). The answer's ``api_key`` is shown this once only."""
        return (yield from self._create(team_id, description, expires_at, is_public))

    @operation
    def list(self, team_id: str) -> Op[builtins.list[ProjectApiKey]]:
        """The team's keys, newest first, revoked and expired ones included."""
        return (yield from self._list(team_id))

    @operation
    def get(self, api_key_id: str, team_id: str) -> Op[ProjectApiKey]:
        """One key of the team (``ApiKeyNotFound`` for an unknown id)."""
        return (yield from self._one("GET", api_key_id, team_id))

    @operation
    def update(self, api_key_id: str, team_id: str, *, description: str = UNSET) -> Op[ProjectApiKey]:
        """Change a key's description."""
        return (yield from self._one("PATCH", api_key_id, team_id, changes(description=description)))

    @operation
    def revoke(self, api_key_id: str, team_id: str) -> Op[ProjectApiKey]:
        """Revoke a key of the team: it stops working at once."""
        return (yield from self._one("PATCH", api_key_id, team_id, {"revoked": True}))


class _ServerUserKeysOps(_UserKeysOps):
    @operation
    def check(self, api_key: str) -> Op[ProjectApiKey]:
        """The key behind a value (its ``user_id``), or ``ApiKeyNotFound``, ``WrongApiKeyType``
        (a team key), ``ApiKeyRevoked``, ``ApiKeyExpired`` (all ``ApiKeyNotValid``)."""
        return (yield from self._check(api_key))


class _ServerTeamKeysOps(_TeamKeysOps):
    @operation
    def check(self, api_key: str) -> Op[ProjectApiKey]:
        """The key behind a value (its ``team_id``), or an ``ApiKeyNotValid`` error."""
        return (yield from self._check(api_key))


class ClientUserApiKeys(_UserKeysOps, Twin[R]):
    """``client.api_keys``: the signed-in user's own API keys."""


class ClientTeamApiKeys(_TeamKeysOps, Twin[R]):
    """``client.team_api_keys``: keys of teams where the user holds ``$manage_api_keys``."""


class ServerUserApiKeys(_ServerUserKeysOps, Twin[R]):
    """``server.user_api_keys``: any user's API keys, and ``check``."""


class ServerTeamApiKeys(_ServerTeamKeysOps, Twin[R]):
    """``server.team_api_keys``: any team's API keys, and ``check``."""
