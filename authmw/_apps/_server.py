"""The server tier: trusted back-end access with the secret server key."""

from __future__ import annotations

from typing import Any, ClassVar

from .._config import AuthConfig
from .._ops import Op
from .._tokens import Claims, TokenVerifier
from .._transport import segment
from ..errors import UserNotFound
from ..models import ServerUser, TokenPair
from ._base import _AsyncApp, _CommonOps, _Namespace, _SyncApp, parse
from ._binding import AsyncRunner, SyncRunner, operation

__all__ = ["AsyncServerApp", "AsyncServerUsers", "ServerApp", "ServerUsers"]

#: Default lifetime of a server-created session (spec section 9).
DEFAULT_SESSION_MILLIS = 31_536_000_000


class _ServerUsersOps(_Namespace):
    @operation
    def get(self, user_id: str) -> Op[ServerUser | None]:
        """The user with this id, or None."""
        try:
            body = yield from self._transport.call_json("GET", f"/users/{segment(user_id)}")
        except UserNotFound:
            return None
        return parse(ServerUser, body)


class ServerUsers(_ServerUsersOps, SyncRunner):
    pass


class AsyncServerUsers(_ServerUsersOps, AsyncRunner):
    pass


class _ServerOps(_CommonOps):
    _users_class: ClassVar[type[_ServerUsersOps]]
    _verifier: TokenVerifier | None = None

    def __init__(self, config: AuthConfig | None = None, /, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)  # type: ignore[call-arg]
        self.users = self._users_class(self)

    @property
    def token_verifier(self) -> TokenVerifier:
        """Verifies this project's access tokens (created on first use, then cached)."""
        if self._verifier is None:
            self._verifier = TokenVerifier(self.config)
        return self._verifier

    @operation
    def get_user(self, user_id: str) -> Op[ServerUser | None]:
        """The user with this id, or None (same as ``users.get``)."""
        return (yield from _ServerUsersOps.get.op(self, user_id))

    @operation
    def create_session(self, user_id: str, expires_in_millis: int = DEFAULT_SESSION_MILLIS) -> Op[TokenPair]:
        """Mint a session for a user (e.g. to sign them in after your own checks)."""
        body = yield from self._transport.call_json(
            "POST", "/auth/sessions", json={"user_id": user_id, "expires_in_millis": expires_in_millis}
        )
        return parse(TokenPair, body)

    @operation
    def verify_access_token(self, access_token: str) -> Op[Claims]:
        """Check an access token's signature and claims; raises ``InvalidAccessToken``."""
        return (yield from self.token_verifier.verify(access_token))


class ServerApp(_ServerOps, _SyncApp):
    """Trusted back-end access with the secret server key: any user, sessions, the project."""

    _tier = "server"
    _users_class = ServerUsers
    users: ServerUsers


class AsyncServerApp(_ServerOps, _AsyncApp):
    """:class:`ServerApp` for asyncio: every call returns a coroutine."""

    _tier = "server"
    _users_class = AsyncServerUsers
    users: AsyncServerUsers
