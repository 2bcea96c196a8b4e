"""Server tier: users and server-created sessions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._ops import Op
from .._transport import segment
from ..errors import SchemaError, UserNotFound
from ..models import Page, ServerUser, SessionInfo, TokenPair
from ._accounts import list_user_sessions, revoke_user_session
from ._base import UNSET, _Namespace, changes, parse
from ._binding import R, Twin, operation, paginated

__all__ = [
    "DEFAULT_SESSION_MILLIS",
    "ITER_PAGE_SIZE",
    "ServerSessions",
    "ServerUsers",
]

#: Default lifetime of a server-created session: one year, as the official SDK.
DEFAULT_SESSION_MILLIS = 31_536_000_000
#: Page size of ``users.iter()`` unless a ``limit`` is given.
ITER_PAGE_SIZE = 100


def _restriction(restricted: Any, reason: Any, private_details: Any) -> dict[str, Any]:
    """The restriction fields of a user body; a reason without ``restricted_by_admin=True``
    is refused here, as the service would (it must come in the same call)."""
    fields = changes(
        restricted_by_admin=restricted,
        restricted_by_admin_reason=reason,
        restricted_by_admin_private_details=private_details,
    )
    given = [name for name in fields if name != "restricted_by_admin" and fields[name] is not None]
    if given and restricted is not True:
        raise ValueError(
            f"{' and '.join(given)} needs restricted_by_admin=True in the same call "
            "(restricted_by_admin=False lifts the restriction and clears both reasons)."
        )
    return fields


def _restricting_call(call: Op[Any], body: Mapping[str, Any]) -> Op[Any]:
    """``call``; a 2.7 service's refusal of the restriction fields becomes a clear error."""
    try:
        return (yield from call)
    except SchemaError as exc:
        if "restricted_by_admin" not in body or "restricted_by_admin" not in exc.message:
            raise
        raise ValueError(
            "restricted_by_admin: only API 2.8 has restricted users, and this service speaks API 2.7. "
            "Leave it out, or use a 2.8 service (locally: `authmw dev --api 2.8`)."
        ) from None


class _ServerUsersOps(_Namespace):
    @operation
    def create(
        self,
        *,
        primary_email: str | None = UNSET,
        primary_email_verified: bool = UNSET,
        primary_email_auth_enabled: bool = UNSET,
        password: str | None = UNSET,
        password_hash: str = UNSET,
        display_name: str | None = UNSET,
        profile_image_url: str | None = UNSET,
        client_metadata: Any = UNSET,
        client_read_only_metadata: Any = UNSET,
        server_metadata: Any = UNSET,
        otp_auth_enabled: bool = UNSET,
        passkey_auth_enabled: bool = UNSET,
        totp_secret_base64: str | None = UNSET,
        oauth_providers: Sequence[Mapping[str, Any]] = UNSET,
        restricted_by_admin: bool = UNSET,
        restricted_by_admin_reason: str | None = UNSET,
        restricted_by_admin_private_details: str | None = UNSET,
    ) -> Op[ServerUser]:
        """Create a user; every field is optional.

        ``primary_email_auth_enabled`` lets the user sign in with that address (raises
        ``UserEmailAlreadyExists`` if another user does). ``password`` has no minimum
        length here; ``password_hash`` imports a bcrypt hash instead. ``oauth_providers``
        pre-links provider accounts (``{"id", "account_id", "email"?}``).
        ``restricted_by_admin`` (API 2.8) restricts the user: see :meth:`update`.
        """
        body = changes(
            primary_email=primary_email,
            primary_email_verified=primary_email_verified,
            primary_email_auth_enabled=primary_email_auth_enabled,
            password=password,
            password_hash=password_hash,
            display_name=display_name,
            profile_image_url=profile_image_url,
            client_metadata=client_metadata,
            client_read_only_metadata=client_read_only_metadata,
            server_metadata=server_metadata,
            otp_auth_enabled=otp_auth_enabled,
            passkey_auth_enabled=passkey_auth_enabled,
            totp_secret_base64=totp_secret_base64,
            **_restriction(restricted_by_admin, restricted_by_admin_reason, restricted_by_admin_private_details),
        )
        if oauth_providers is not UNSET:
            body["oauth_providers"] = [dict(provider) for provider in oauth_providers]
        answer = yield from _restricting_call(self._transport.call_json("POST", "/users", json=body), body)
        return parse(ServerUser, answer)

    @operation
    def get(self, user_id: str) -> Op[ServerUser | None]:
        """The user with this id, or None."""
        try:
            body = yield from self._transport.call_json("GET", f"/users/{segment(user_id)}")
        except UserNotFound:
            return None
        return parse(ServerUser, body)

    @operation
    def update(
        self,
        user_id: str,
        *,
        primary_email: str | None = UNSET,
        primary_email_verified: bool = UNSET,
        primary_email_auth_enabled: bool = UNSET,
        password: str | None = UNSET,
        password_hash: str = UNSET,
        display_name: str | None = UNSET,
        profile_image_url: str | None = UNSET,
        client_metadata: Any = UNSET,
        client_read_only_metadata: Any = UNSET,
        server_metadata: Any = UNSET,
        selected_team_id: str | None = UNSET,
        otp_auth_enabled: bool = UNSET,
        passkey_auth_enabled: bool = UNSET,
        totp_secret_base64: str | None = UNSET,
        restricted_by_admin: bool = UNSET,
        restricted_by_admin_reason: str | None = UNSET,
        restricted_by_admin_private_details: str | None = UNSET,
    ) -> Op[ServerUser]:
        """Change the given fields; None clears a field. Raises ``UserNotFound``.

        ``password=None`` removes the password; a new password (or hash) signs the user
        out everywhere. ``primary_email=None`` removes the primary address; a new one keeps
        the old verified flag unless ``primary_email_verified`` is given.
        ``primary_email_auth_enabled`` only takes effect together with ``primary_email``.
        ``selected_team_id`` must be a team the user belongs to
        (``TeamMembershipNotFound``). ``totp_secret_base64`` turns multi-factor sign-in on
        (None: off); ``passkey_auth_enabled=False`` deletes the passkey.

        ``restricted_by_admin=True`` (API 2.8) restricts the user: signed in, but
        ``is_restricted`` with the reason ``restricted_by_administrator`` until an admin lifts
        it (``False``, which also clears both reasons). ``restricted_by_admin_reason`` is
        shown to the user (the handler's onboarding page shows it);
        ``restricted_by_admin_private_details`` only to the server and admin tiers. A reason
        needs ``restricted_by_admin=True`` in the same call (ValueError otherwise).
        """
        body = changes(
            primary_email=primary_email,
            primary_email_verified=primary_email_verified,
            primary_email_auth_enabled=primary_email_auth_enabled,
            password=password,
            password_hash=password_hash,
            display_name=display_name,
            profile_image_url=profile_image_url,
            client_metadata=client_metadata,
            client_read_only_metadata=client_read_only_metadata,
            server_metadata=server_metadata,
            selected_team_id=selected_team_id,
            otp_auth_enabled=otp_auth_enabled,
            passkey_auth_enabled=passkey_auth_enabled,
            totp_secret_base64=totp_secret_base64,
            **_restriction(restricted_by_admin, restricted_by_admin_reason, restricted_by_admin_private_details),
        )
        call = self._transport.call_json("PATCH", f"/users/{segment(user_id)}", json=body)
        answer = yield from _restricting_call(call, body)
        return parse(ServerUser, answer)

    @operation
    def delete(self, user_id: str) -> Op[None]:
        """Delete the user (raises ``UserNotFound``)."""
        yield from self._transport.call("DELETE", f"/users/{segment(user_id)}")

    # list last: below it, "list" in this class body would name the method.
    @operation
    def list(
        self,
        *,
        cursor: str | None = None,
        limit: int | None = None,
        desc: bool = False,
        order_by: Literal["signed_up_at"] = "signed_up_at",
        query: str | None = None,
        team_id: str | None = None,
        include_restricted: bool = False,
        include_anonymous: bool = False,
    ) -> Op[Page[ServerUser]]:
        """One page of users, oldest first (``desc=True``: newest first).

        ``limit`` is the page size (without it the service returns every user at once);
        pass the page's ``next_cursor`` as ``cursor`` for the next page. ``query`` matches a
        user id exactly, or part of a display name or e-mail address (case-insensitive).
        ``team_id`` keeps the members of a team.

        An API 2.8 service leaves out restricted users (e-mail not verified when the project
        requires it, restricted by an admin) unless ``include_restricted``, and anonymous
        users unless ``include_anonymous`` (which includes the restricted ones too). Each is
        sent only when True (a 2.7 service, which refuses them, is asked again without: it
        has neither kind of user).
        """
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}.")
        params = {
            "cursor": cursor,
            "limit": limit,
            "desc": desc or None,
            "order_by": order_by,
            "query": query,
            "team_id": team_id,
            "include_restricted": include_restricted or None,
            "include_anonymous": include_anonymous or None,
        }
        try:
            body = yield from self._transport.call_json("GET", "/users", query=params)
        except SchemaError as exc:
            if not (include_restricted or include_anonymous) or "include_" not in exc.message:
                raise
            # A 2.7 service knows neither parameter, and has neither kind of user to include.
            params["include_restricted"] = params["include_anonymous"] = None
            body = yield from self._transport.call_json("GET", "/users", query=params)
        return parse(Page[ServerUser], body)

    #: Every user matching the filters, page after page (``limit`` = page size, default 100).
    iter = paginated(list, limit=ITER_PAGE_SIZE)


class ServerUsers(_ServerUsersOps, Twin[R]):
    """``server.users``: create, read, update, delete and list users."""


class _ServerSessionsOps(_Namespace):
    @operation
    def create(
        self, user_id: str, expires_in_millis: int = DEFAULT_SESSION_MILLIS, *, is_impersonation: bool = False
    ) -> Op[TokenPair]:
        """Mint a session for a user (for example after your own checks); the token pair.

        ``is_impersonation=True`` (API 2.8) marks a session an administrator opens as the
        user: the user's own session list does not show it. Raises ``UserIdDoesNotExist`` for
        an unknown user.
        """
        payload: dict[str, Any] = {"user_id": user_id, "expires_in_millis": expires_in_millis}
        if is_impersonation:
            payload["is_impersonation"] = True
        body = yield from self._transport.call_json("POST", "/auth/sessions", json=payload)
        return parse(TokenPair, body)

    @operation
    def list(self, user_id: str) -> Op[list[SessionInfo]]:
        """A user's active sessions, newest first (API 2.8; impersonation sessions are listed
        to the admin tier only)."""
        return (yield from list_user_sessions(self, user_id))

    @operation
    def revoke(self, user_id: str, session_id: str) -> Op[None]:
        """End one of the user's sessions: its refresh token stops working at once, access
        tokens already issued expire as usual (API 2.8)."""
        yield from revoke_user_session(self, user_id, session_id)


class ServerSessions(_ServerSessionsOps, Twin[R]):
    """``server.sessions``: mint sessions for users."""
