"""A user's account settings of API 2.8: OAuth provider accounts, active
sessions and notification preferences, for the client tier (its own user) and the
server tier (any user).

Each request is written once in a ``_…Ops`` class for a user id; the client classes always
mean ``me``. The service must answer as API 2.8: a 2.7 service has none of these routes
(``HttpStatusError`` 404, for the session list 405).
"""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._transport import segment
from ..models import ConnectedAccountLink, NotificationPreference, ProviderAccount, SessionInfo
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import R, Twin, operation

__all__ = [
    "ClientNotificationPreferences",
    "ClientProviderAccounts",
    "ClientSessions",
    "ServerNotificationPreferences",
    "ServerProviderAccounts",
    "list_user_sessions",
    "revoke_user_session",
]

#: The two notification categories of API 2.8 (fixed by the service), by name.
NOTIFICATION_CATEGORIES = {
    "Transactional": "7bb82d33-2f54-4a3d-9d23-82739e0d66ef",
    "Marketing": "4f6f8873-3d04-46bd-8bef-18338b1a1b4c",
}


# -- OAuth provider accounts ------------------------------------------------------------------


def _link_path(user_id: str, link_id: str) -> str:
    return f"/oauth-providers/{segment(user_id)}/{segment(link_id)}"


class _ProviderAccountsOps(_Namespace):
    def _list(self, user_id: str | None) -> Op[list[ProviderAccount]]:
        query = None if user_id is None else {"user_id": user_id}
        body = yield from self._transport.call_json("GET", "/oauth-providers", query=query, session=self._session)
        return parse_items(ProviderAccount, body)

    def _get(self, user_id: str, link_id: str) -> Op[ProviderAccount]:
        body = yield from self._transport.call_json("GET", _link_path(user_id, link_id), session=self._session)
        return parse(ProviderAccount, body)

    def _update(self, user_id: str, link_id: str, **fields: Any) -> Op[ProviderAccount]:
        body = yield from self._transport.call_json(
            "PATCH", _link_path(user_id, link_id), json=changes(**fields), session=self._session
        )
        return parse(ProviderAccount, body)

    def _delete(self, user_id: str, link_id: str) -> Op[None]:
        yield from self._transport.call("DELETE", _link_path(user_id, link_id), session=self._session)


class _ClientProviderAccountsOps(_ProviderAccountsOps):
    @operation
    def list(self) -> Op[list[ProviderAccount]]:
        """The signed-in user's provider accounts, oldest first."""
        return (yield from self._list("me"))

    @operation
    def get(self, link_id: str) -> Op[ProviderAccount]:
        """One of them by its ``id`` (``HttpStatusError`` 404 when it is not the user's)."""
        return (yield from self._get("me", link_id))

    @operation
    def update(
        self, link_id: str, *, allow_sign_in: bool = UNSET, allow_connected_accounts: bool = UNSET
    ) -> Op[ProviderAccount]:
        """Turn signing in with the account, or the app's use of its provider tokens, on or off.

        A second account of the same provider cannot sign in too (``HttpStatusError`` 400);
        an account that already signs in another user raises
        ``OAuthProviderAccountIdAlreadyUsedForSignIn``.
        """
        return (
            yield from self._update(
                "me", link_id, allow_sign_in=allow_sign_in, allow_connected_accounts=allow_connected_accounts
            )
        )

    @operation
    def unlink(self, link_id: str) -> Op[None]:
        """Remove the provider account from the user (it no longer signs in)."""
        yield from self._delete("me", link_id)


class ClientProviderAccounts(_ClientProviderAccountsOps, Twin[R]):
    """``client.provider_accounts``: the signed-in user's OAuth provider accounts (API 2.8)."""


class _ServerProviderAccountsOps(_ProviderAccountsOps):
    @operation
    def get(self, user_id: str, link_id: str) -> Op[ProviderAccount]:
        """One provider account of a user."""
        return (yield from self._get(user_id, link_id))

    @operation
    def create(
        self,
        user_id: str,
        provider_config_id: str,
        account_id: str,
        *,
        allow_sign_in: bool,
        allow_connected_accounts: bool,
        email: str | None = None,
    ) -> Op[ProviderAccount]:
        """Link a provider account (the provider's ``account_id``) to a user.

        The provider must be configured in the project (``HttpStatusError`` 404 otherwise);
        the rules of ``update`` apply.
        """
        payload: dict[str, Any] = {
            "user_id": user_id,
            "provider_config_id": provider_config_id,
            "account_id": account_id,
            "allow_sign_in": allow_sign_in,
            "allow_connected_accounts": allow_connected_accounts,
        }
        if email is not None:
            payload["email"] = email
        body = yield from self._transport.call_json("POST", "/oauth-providers", json=payload)
        return parse(ProviderAccount, body)

    @operation
    def update(
        self,
        user_id: str,
        link_id: str,
        *,
        allow_sign_in: bool = UNSET,
        allow_connected_accounts: bool = UNSET,
        email: str = UNSET,
        account_id: str = UNSET,
    ) -> Op[ProviderAccount]:
        """Change a user's provider account (see the client call for the sign-in rules)."""
        return (
            yield from self._update(
                user_id,
                link_id,
                allow_sign_in=allow_sign_in,
                allow_connected_accounts=allow_connected_accounts,
                email=email,
                account_id=account_id,
            )
        )

    @operation
    def unlink(self, user_id: str, link_id: str) -> Op[None]:
        """Remove the provider account from the user."""
        yield from self._delete(user_id, link_id)

    @operation
    def connected(self, user_id: str) -> Op[list[ConnectedAccountLink]]:
        """The user's accounts whose provider tokens the app may ask for
        (``connected_accounts.get_access_token``)."""
        body = yield from self._transport.call_json("GET", f"/connected-accounts/{segment(user_id)}")
        return parse_items(ConnectedAccountLink, body)

    # list last: below it, "list" in this class body would name the method.
    @operation
    def list(self, user_id: str | None = None) -> Op[list[ProviderAccount]]:
        """A user's provider accounts (or every user's), oldest first."""
        return (yield from self._list(user_id))


class ServerProviderAccounts(_ServerProviderAccountsOps, Twin[R]):
    """``server.provider_accounts``: any user's OAuth provider accounts (API 2.8)."""


# -- sessions ---------------------------------------------------------------------------------


def list_user_sessions(api: _Namespace, user_id: str) -> Op[list[SessionInfo]]:
    """``GET /auth/sessions?user_id=``: newest first; impersonation sessions only for admins."""
    body = yield from api._transport.call_json(
        "GET", "/auth/sessions", query={"user_id": user_id}, session=api._session
    )
    return parse_items(SessionInfo, body)


def revoke_user_session(api: _Namespace, user_id: str, session_id: str) -> Op[None]:
    """``DELETE /auth/sessions/{id}?user_id=`` (the service's schema asks for the user on this
    route too). Its refresh token stops working; issued access tokens live until they expire."""
    yield from api._transport.call(
        "DELETE", f"/auth/sessions/{segment(session_id)}", query={"user_id": user_id}, session=api._session
    )


class _ClientSessionsOps(_Namespace):
    @operation
    def list(self) -> Op[list[SessionInfo]]:
        """The signed-in user's active sessions, newest first; this app's own one has
        ``is_current_session``."""
        return (yield from list_user_sessions(self, "me"))

    @operation
    def revoke(self, session_id: str) -> Op[None]:
        """Sign one of the user's other sessions out (``CannotDeleteCurrentSession`` for this
        app's own one: use ``sign_out``)."""
        yield from revoke_user_session(self, "me", session_id)


class ClientSessions(_ClientSessionsOps, Twin[R]):
    """``client.sessions``: the signed-in user's active sessions (API 2.8)."""


# -- notification preferences -----------------------------------------------------------------


def _category_id(category: str) -> str:
    """A category id, given as its id or as its name (``"Marketing"``)."""
    return NOTIFICATION_CATEGORIES.get(category, category)


class _NotificationPreferencesOps(_Namespace):
    def _list(self, user_id: str) -> Op[list[NotificationPreference]]:
        path = f"/emails/notification-preference/{segment(user_id)}"
        body = yield from self._transport.call_json("GET", path, session=self._session)
        return parse_items(NotificationPreference, body)

    def _set(self, user_id: str, category: str, enabled: bool) -> Op[NotificationPreference]:
        if not isinstance(enabled, bool):
            raise TypeError(f"enabled must be True or False, not {enabled!r}")
        path = f"/emails/notification-preference/{segment(user_id)}/{segment(_category_id(category))}"
        body = yield from self._transport.call_json("PATCH", path, json={"enabled": enabled}, session=self._session)
        return parse(NotificationPreference, body)


class _ClientNotificationPreferencesOps(_NotificationPreferencesOps):
    @operation
    def list(self) -> Op[list[NotificationPreference]]:
        """The signed-in user's choice per category (``Transactional``, ``Marketing``)."""
        return (yield from self._list("me"))

    @operation
    def set(self, category: str, enabled: bool) -> Op[NotificationPreference]:
        """Turn a category (its name, e.g. ``"Marketing"``, or its id) on or off."""
        return (yield from self._set("me", category, enabled))


class ClientNotificationPreferences(_ClientNotificationPreferencesOps, Twin[R]):
    """``client.notification_preferences``: which e-mail the signed-in user gets (API 2.8)."""


class _ServerNotificationPreferencesOps(_NotificationPreferencesOps):
    @operation
    def list(self, user_id: str) -> Op[list[NotificationPreference]]:
        """A user's choice per category."""
        return (yield from self._list(user_id))

    @operation
    def set(self, user_id: str, category: str, enabled: bool) -> Op[NotificationPreference]:
        """Turn a category (name or id) on or off for a user."""
        return (yield from self._set(user_id, category, enabled))


class ServerNotificationPreferences(_ServerNotificationPreferencesOps, Twin[R]):
    """``server.notification_preferences``: any user's e-mail categories (API 2.8)."""
