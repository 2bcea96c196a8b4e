"""Provider access tokens of connected OAuth accounts.

The service reuses a stored provider token that covers the scopes asked for, or refreshes one.
"""

from __future__ import annotations

from .._ops import Op
from ._base import _Namespace
from ._binding import R, Twin, operation
from ._oauth import connected_account_token

__all__ = ["ServerConnectedAccounts"]


class _ConnectedAccountsOps(_Namespace):
    @operation
    def get_access_token(
        self, user_id: str, provider: str, scope: str | None = None, *, account_id: str | None = None
    ) -> Op[str | None]:
        """An access token for the provider API on behalf of the user, or None.

        None when the user has no account of that provider or it was not granted ``scope``
        (space-separated provider scopes): the user must connect it first. ``account_id``
        (API 2.8) picks one of several accounts of the provider (``provider_accounts.connected``
        lists them). Raises ``OAuthProviderNotFoundOrNotEnabled`` or
        ``OAuthAccessTokenNotAvailableWithSharedOAuthKeys`` for project set-up problems.
        """
        return (yield from connected_account_token(self._transport, user_id, provider, scope, None, account_id))


class ServerConnectedAccounts(_ConnectedAccountsOps, Twin[R]):
    """``server.connected_accounts``: provider access tokens of any user."""
