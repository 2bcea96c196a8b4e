"""The server tier: trusted back-end access with the secret server key."""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._tokens import Claims, TokenVerifier
from ..errors import ApiKeyNotValid, InvalidServerResponse
from ..models import ServerTeam, ServerUser, TokenPair
from ._accounts import ServerNotificationPreferences, ServerProviderAccounts
from ._base import _AsyncApp, _CommonOps, _SyncApp, namespace
from ._binding import AsyncRunner, SyncRunner, operation
from ._connected_accounts import ServerConnectedAccounts
from ._contact_channels import ServerContactChannels
from ._invitations import ServerTeamInvitations
from ._project_api_keys import ServerTeamApiKeys, ServerUserApiKeys, _ServerTeamKeysOps, _ServerUserKeysOps
from ._project_permissions import ServerProjectPermissions
from ._team_members import ServerTeamMemberProfiles, ServerTeamPermissions
from ._teams import ServerTeams, _ServerTeamsOps
from ._users import DEFAULT_SESSION_MILLIS, ServerSessions, ServerUsers, _ServerSessionsOps, _ServerUsersOps

__all__ = ["AsyncServerApp", "ServerApp"]


def _key_owner(keys: _ServerUserKeysOps | _ServerTeamKeysOps, api_key: str) -> Op[str | None]:
    """The user or team id of a valid key of the kind, else None (as the 2.8 SDK does for
    every ``API_KEY_NOT_VALID`` error)."""
    try:
        key = yield from keys._check(api_key)
    except ApiKeyNotValid:
        return None
    return key.user_id if keys._kind == "user" else key.team_id


class _ServerOps(_CommonOps):
    _verifier: TokenVerifier | None = None

    @property
    def token_verifier(self) -> TokenVerifier:
        """Verifies this project's access tokens (created on first use, then cached)."""
        if self._verifier is None:
            self._verifier = TokenVerifier(self.config)
        return self._verifier

    @operation
    def get_user(self, user_id: str | None = None, *, api_key: str | None = None) -> Op[ServerUser | None]:
        """The user with this id (same as ``users.get``), or the owner of a user API key
        (API 2.8): None for an unknown, revoked or expired key, or a team's key.

        ``get_user(api_key=...)`` asks the service twice (``user_api_keys.check``, then the
        user); the key's value is sent only to the service.
        """
        if (user_id is None) == (api_key is None):
            raise TypeError("get_user takes a user id or api_key=..., exactly one of them.")
        if api_key is not None:
            user_id = yield from _key_owner(_ServerUserKeysOps(self), api_key)
            if user_id is None:
                return None
        assert user_id is not None
        return (yield from _ServerUsersOps.get.op(self, user_id))

    @operation
    def get_team(self, team_id: str | None = None, *, api_key: str | None = None) -> Op[ServerTeam | None]:
        """The team with this id (same as ``teams.get``), or the owner of a team API key
        (API 2.8): None for an unknown, revoked or expired key, or a user's key."""
        if (team_id is None) == (api_key is None):
            raise TypeError("get_team takes a team id or api_key=..., exactly one of them.")
        if api_key is not None:
            team_id = yield from _key_owner(_ServerTeamKeysOps(self), api_key)
            if team_id is None:
                return None
        assert team_id is not None
        return (yield from _ServerTeamsOps.get.op(_ServerTeamsOps(self), team_id))

    @operation
    def create_session(
        self, user_id: str, expires_in_millis: int = DEFAULT_SESSION_MILLIS, *, is_impersonation: bool = False
    ) -> Op[TokenPair]:
        """Mint a session for a user (same as ``sessions.create``)."""
        return (
            yield from _ServerSessionsOps.create.op(self, user_id, expires_in_millis, is_impersonation=is_impersonation)
        )

    @operation
    def send_email(
        self,
        *,
        html: str,
        subject: str,
        user_ids: list[str] | None = None,
        all_users: bool = False,
        notification_category: str | None = None,
    ) -> Op[list[str]]:
        """E-mail users at their primary addresses (API 2.8, ``POST /emails/send-email``).

        Give ``user_ids`` or ``all_users=True``. ``notification_category``: ``"Transactional"``
        (the default: always sent) or ``"Marketing"`` (users who turned it off get nothing; the
        others get an unsubscribe link). The project needs its own e-mail server
        (``RequiresCustomEmailServer`` otherwise); an unknown user raises ``UserIdDoesNotExist``
        and sends nothing. Returns the ids of the users addressed; users without a primary
        address are among them but get no mail.
        """
        if (user_ids is None) == (not all_users):
            raise ValueError("send_email needs either user_ids=[...] or all_users=True (not both).")
        payload: dict[str, Any] = {"html": html, "subject": subject}
        if all_users:
            payload["all_users"] = True
        else:
            payload["user_ids"] = list(user_ids or [])
        if notification_category is not None:
            payload["notification_category_name"] = notification_category
        body = yield from self._transport.call_json("POST", "/emails/send-email", json=payload)
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list):
            raise InvalidServerResponse("The send-email answer has no results list.")
        return [str(item.get("user_id")) for item in results if isinstance(item, dict)]

    @operation
    def verify_access_token(self, access_token: str) -> Op[Claims]:
        """Check an access token's signature and claims; raises ``InvalidAccessToken``."""
        return (yield from self.token_verifier.verify(access_token))


class ServerApp(_ServerOps, _SyncApp):
    """Trusted back-end access with the secret server key: any user, team, session.

    Calls are grouped by resource: ``users``, ``sessions``, ``teams``,
    ``team_member_profiles``, ``team_permissions``, ``contact_channels``,
    ``connected_accounts``; API 2.8 adds ``provider_accounts``, ``notification_preferences``,
    ``user_api_keys``, ``team_api_keys``, ``project_permissions`` and ``team_invitations``
    (a user's received invitations).
    """

    _tier = "server"
    connected_accounts = namespace(ServerConnectedAccounts[SyncRunner])
    contact_channels = namespace(ServerContactChannels[SyncRunner])
    notification_preferences = namespace(ServerNotificationPreferences[SyncRunner])
    provider_accounts = namespace(ServerProviderAccounts[SyncRunner])
    sessions = namespace(ServerSessions[SyncRunner])
    project_permissions = namespace(ServerProjectPermissions[SyncRunner])
    team_api_keys = namespace(ServerTeamApiKeys[SyncRunner])
    team_invitations = namespace(ServerTeamInvitations[SyncRunner])
    team_member_profiles = namespace(ServerTeamMemberProfiles[SyncRunner])
    team_permissions = namespace(ServerTeamPermissions[SyncRunner])
    teams = namespace(ServerTeams[SyncRunner])
    user_api_keys = namespace(ServerUserApiKeys[SyncRunner])
    users = namespace(ServerUsers[SyncRunner])


class AsyncServerApp(_ServerOps, _AsyncApp):
    """:class:`ServerApp` for asyncio: every call returns a coroutine."""

    _tier = "server"
    connected_accounts = namespace(ServerConnectedAccounts[AsyncRunner])
    contact_channels = namespace(ServerContactChannels[AsyncRunner])
    notification_preferences = namespace(ServerNotificationPreferences[AsyncRunner])
    provider_accounts = namespace(ServerProviderAccounts[AsyncRunner])
    sessions = namespace(ServerSessions[AsyncRunner])
    project_permissions = namespace(ServerProjectPermissions[AsyncRunner])
    team_api_keys = namespace(ServerTeamApiKeys[AsyncRunner])
    team_invitations = namespace(ServerTeamInvitations[AsyncRunner])
    team_member_profiles = namespace(ServerTeamMemberProfiles[AsyncRunner])
    team_permissions = namespace(ServerTeamPermissions[AsyncRunner])
    teams = namespace(ServerTeams[AsyncRunner])
    user_api_keys = namespace(ServerUserApiKeys[AsyncRunner])
    users = namespace(ServerUsers[AsyncRunner])
