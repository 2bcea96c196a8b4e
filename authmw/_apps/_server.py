"""The server tier: trusted back-end access with the secret server key."""

from __future__ import annotations

from .._ops import Op
from .._tokens import Claims, TokenVerifier
from ..models import ServerUser, TokenPair
from ._base import _AsyncApp, _CommonOps, _SyncApp, namespace
from ._binding import operation
from ._connected_accounts import AsyncServerConnectedAccounts, ServerConnectedAccounts
from ._contact_channels import AsyncServerContactChannels, ServerContactChannels
from ._team_members import (
    AsyncServerTeamMemberProfiles,
    AsyncServerTeamPermissions,
    ServerTeamMemberProfiles,
    ServerTeamPermissions,
)
from ._teams import AsyncServerTeams, ServerTeams
from ._users import (
    DEFAULT_SESSION_MILLIS,
    AsyncServerSessions,
    AsyncServerUsers,
    ServerSessions,
    ServerUsers,
    _ServerSessionsOps,
    _ServerUsersOps,
)

__all__ = ["AsyncServerApp", "ServerApp"]


class _ServerOps(_CommonOps):
    _verifier: TokenVerifier | None = None

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
        """Mint a session for a user (same as ``sessions.create``)."""
        return (yield from _ServerSessionsOps.create.op(self, user_id, expires_in_millis))

    @operation
    def verify_access_token(self, access_token: str) -> Op[Claims]:
        """Check an access token's signature and claims; raises ``InvalidAccessToken``."""
        return (yield from self.token_verifier.verify(access_token))


class ServerApp(_ServerOps, _SyncApp):
    """Trusted back-end access with the secret server key: any user, team, session.

    Calls are grouped by resource: ``users``, ``sessions``, ``teams``,
    ``team_member_profiles``, ``team_permissions``, ``contact_channels``,
    ``connected_accounts``.
    """

    _tier = "server"
    connected_accounts = namespace(ServerConnectedAccounts)
    contact_channels = namespace(ServerContactChannels)
    sessions = namespace(ServerSessions)
    team_member_profiles = namespace(ServerTeamMemberProfiles)
    team_permissions = namespace(ServerTeamPermissions)
    teams = namespace(ServerTeams)
    users = namespace(ServerUsers)


class AsyncServerApp(_ServerOps, _AsyncApp):
    """:class:`ServerApp` for asyncio: every call returns a coroutine."""

    _tier = "server"
    connected_accounts = namespace(AsyncServerConnectedAccounts)
    contact_channels = namespace(AsyncServerContactChannels)
    sessions = namespace(AsyncServerSessions)
    team_member_profiles = namespace(AsyncServerTeamMemberProfiles)
    team_permissions = namespace(AsyncServerTeamPermissions)
    teams = namespace(AsyncServerTeams)
    users = namespace(AsyncServerUsers)
