"""The client tier: a user's own view of the project."""

from __future__ import annotations

import json
from typing import Any, Literal

from .._config import AuthConfig
from .._ops import Op
from .._session import Session
from ..errors import (
    AnonymousAuthenticationNotAllowed,
    CannotGetOwnUserWithoutUser,
    RestrictedUserNotAllowed,
    UserAuthenticationRequired,
)
from ..models import SignInResult, User
from ._accounts import ClientNotificationPreferences, ClientProviderAccounts, ClientSessions
from ._base import UNSET, _AsyncApp, _SyncApp, changes, namespace, parse
from ._binding import AsyncRunner, SyncRunner, operation
from ._cli_login import _CliLogin
from ._contact_channels import ClientContactChannels
from ._invitations import ClientTeamInvitations
from ._mfa import _ClientMfa
from ._oauth import _ClientOAuth
from ._owned_projects import _OwnedProjectsOps
from ._project_api_keys import ClientTeamApiKeys, ClientUserApiKeys
from ._project_permissions import ClientProjectPermissions
from ._team_members import ClientTeamMemberProfiles, ClientTeamPermissions
from ._teams import ClientTeams

__all__ = ["AsyncClientApp", "ClientApp"]


class _ClientOps(_ClientMfa, _ClientOAuth, _CliLogin, _OwnedProjectsOps):
    def __init__(
        self,
        config: AuthConfig | None = None,
        /,
        *,
        access_token: str | None = None,
        refresh_token: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(config, **kwargs)  # type: ignore[call-arg]
        self.session = Session(self.config, access_token=access_token, refresh_token=refresh_token)
        self._session = self.session

    @operation
    def sign_up_with_password(
        self, email: str, password: str, verification_callback_url: str | None = None
    ) -> Op[SignInResult]:
        """Create a user with e-mail and password and sign in as them.

        The service e-mails a verification link to ``verification_callback_url`` (your
        front end's e-mail verification page). Without one, a link to
        ``{api_url}{handler_path}/email-verification`` is used, which the service only
        sends if it trusts that domain.
        """
        callback = verification_callback_url or f"{self.config.api_url}{self.config.handler_path}/email-verification"
        body = yield from self._transport.call_json(
            "POST",
            "/auth/password/sign-up",
            json={"email": email, "password": password, "verification_callback_url": callback},
            session=self._upgradable_session(),
        )
        return self._sign_in(body)

    def _upgradable_session(self) -> Session | None:
        """The session a sign-up sends along: an app that signs in anonymous users
        (``allow_anonymous=True``) sends its session, so that API 2.8 turns an anonymous user
        into this account, keeping its id; the service ignores the token of
        a user who is not anonymous. Other apps send none, as before."""
        return self.session if self.config.allow_anonymous and self.session.is_signed_in else None

    @operation
    def sign_up_anonymously(self) -> Op[SignInResult]:
        """Sign in as a new anonymous user (API 2.8, ``POST /auth/anonymous/sign-up``).

        The app must accept anonymous users (``AuthConfig(allow_anonymous=True)``): the service
        refuses their tokens otherwise. A later ``sign_up_with_password`` on this app turns the
        anonymous user into a real account with the same user id.
        """
        if not self.config.allow_anonymous:
            raise ValueError(
                "sign_up_anonymously needs an app that accepts anonymous users: "
                "AuthConfig(..., allow_anonymous=True) or AUTHMW_ALLOW_ANONYMOUS=true."
            )
        body = yield from self._transport.call_json("POST", "/auth/anonymous/sign-up", json={})
        return self._sign_in(body)

    @operation
    def sign_in_with_password(self, email: str, password: str) -> Op[SignInResult]:
        """Sign in; raises ``EmailPasswordMismatch`` for a wrong e-mail or password and
        ``MultiFactorAuthenticationRequired`` for a user with TOTP (then ``sign_in_with_mfa``)."""
        body = yield from self._transport.call_json(
            "POST", "/auth/password/sign-in", json={"email": email, "password": password}
        )
        return self._sign_in(body)

    @operation
    def sign_out(self) -> Op[None]:
        """Revoke the session's refresh token and forget both tokens."""
        yield from self.session.sign_out(self._transport)

    @operation
    def get_access_token(self) -> Op[str | None]:
        """An access token valid for at least 20 s (refreshed if needed), or None."""
        return (yield from self.session.get_access_token())

    @operation
    def get_auth_headers(self, form: Literal["x-stack-auth", "bearer"] = "x-stack-auth") -> Op[dict[str, str]]:
        """Headers that forward this session to your own back end, the access token refreshed
        first if needed.

        ``"x-stack-auth"`` (default): ``{"x-stack-auth": ...}`` with both tokens, so the
        middleware can refresh it; it wins over cookies. ``"bearer"``: ``{"authorization":
        "Bearer <access token>"}`` for mobile and service-to-service callers; the back end
        never refreshes it (call this again for a fresh one).
        """
        access = yield from self.session.get_access_token()
        if form == "bearer":
            if access is None:
                raise UserAuthenticationRequired()
            return {"authorization": f"Bearer {access}"}
        if form != "x-stack-auth":
            raise ValueError(f'form must be "x-stack-auth" or "bearer", not {form!r}')
        value = {"accessToken": access, "refreshToken": self.session.refresh_token}
        return {"x-stack-auth": json.dumps(value, separators=(",", ":"))}

    @operation
    def get_user(self) -> Op[User | None]:
        """The signed-in user, or None.

        None too for an anonymous or restricted user of API 2.8 when the app does not sign
        them in (``AuthConfig(allow_anonymous=True)`` / ``allow_restricted=True``), as the
        middleware decides and as the official SDK's ``getUser()`` does by default.
        """
        if not self.session.is_signed_in:
            return None
        try:
            body = yield from self._transport.call_json("GET", "/users/me", session=self.session)
        except (CannotGetOwnUserWithoutUser, AnonymousAuthenticationNotAllowed, RestrictedUserNotAllowed):
            return None
        user = parse(User, body)
        # (the allow header admits both kinds; allow_restricted alone does not sign in anonymous users)
        if user.is_anonymous and not self.config.allow_anonymous:
            return None
        return user

    @operation
    def update_user(
        self,
        *,
        display_name: str | None = UNSET,
        client_metadata: Any = UNSET,
        selected_team_id: str | None = UNSET,
        profile_image_url: str | None = UNSET,
        otp_auth_enabled: bool = UNSET,
        passkey_auth_enabled: bool = UNSET,
        totp_secret_base64: str | None = UNSET,
    ) -> Op[User]:
        """Change the fields the client tier may change; pass None to clear a field.

        Only ``client_metadata`` is writable here; client-read-only and server metadata are
        changed by your back end (``server.users.update``). ``profile_image_url`` must be a
        base64 image (``data:image/png;base64,...``). ``totp_secret_base64`` turns
        multi-factor sign-in on (None: off).
        """
        payload = changes(
            display_name=display_name,
            client_metadata=client_metadata,
            selected_team_id=selected_team_id,
            profile_image_url=profile_image_url,
            otp_auth_enabled=otp_auth_enabled,
            passkey_auth_enabled=passkey_auth_enabled,
            totp_secret_base64=totp_secret_base64,
        )
        body = yield from self._transport.call_json("PATCH", "/users/me", json=payload, session=self.session)
        return parse(User, body)

    @operation
    def select_team(self, team_id: str | None) -> Op[User]:
        """Make one of the user's teams the selected team (None: no team selected)."""
        return (yield from _ClientOps.update_user.op(self, selected_team_id=team_id))

    @operation
    def delete_user(self) -> Op[None]:
        """Delete the signed-in user (if the project allows it); the session becomes invalid."""
        yield from self._transport.call("DELETE", "/users/me", json={}, session=self.session)
        self.session.invalidate()


class ClientApp(_ClientOps, _SyncApp):
    """A user's view of the project: sign up, sign in, the user's own data.

    ``ClientApp(config)``, ``ClientApp(project_id=..., publishable_client_key=...)`` or
    ``ClientApp()`` to read ``AUTHMW_*`` variables. Pass ``access_token`` and
    ``refresh_token`` to resume a session; ``app.session`` holds the tokens.

    E-mailed-code flows (magic link, password reset, e-mail verification) are methods of
    the app; the user's teams and addresses are grouped: ``teams``,
    ``team_member_profiles``, ``team_permissions``, ``team_invitations``,
    ``contact_channels``; API 2.8 adds ``sessions``, ``provider_accounts``,
    ``notification_preferences``, the user's own ``api_keys``, its teams' ``team_api_keys`` and
    its ``project_permissions``.
    """

    _tier = "client"
    api_keys = namespace(ClientUserApiKeys[SyncRunner])
    contact_channels = namespace(ClientContactChannels[SyncRunner])
    notification_preferences = namespace(ClientNotificationPreferences[SyncRunner])
    project_permissions = namespace(ClientProjectPermissions[SyncRunner])
    provider_accounts = namespace(ClientProviderAccounts[SyncRunner])
    sessions = namespace(ClientSessions[SyncRunner])
    team_api_keys = namespace(ClientTeamApiKeys[SyncRunner])
    team_invitations = namespace(ClientTeamInvitations[SyncRunner])
    team_member_profiles = namespace(ClientTeamMemberProfiles[SyncRunner])
    team_permissions = namespace(ClientTeamPermissions[SyncRunner])
    teams = namespace(ClientTeams[SyncRunner])


class AsyncClientApp(_ClientOps, _AsyncApp):
    """:class:`ClientApp` for asyncio: every call returns a coroutine."""

    _tier = "client"
    api_keys = namespace(ClientUserApiKeys[AsyncRunner])
    contact_channels = namespace(ClientContactChannels[AsyncRunner])
    notification_preferences = namespace(ClientNotificationPreferences[AsyncRunner])
    project_permissions = namespace(ClientProjectPermissions[AsyncRunner])
    provider_accounts = namespace(ClientProviderAccounts[AsyncRunner])
    sessions = namespace(ClientSessions[AsyncRunner])
    team_api_keys = namespace(ClientTeamApiKeys[AsyncRunner])
    team_invitations = namespace(ClientTeamInvitations[AsyncRunner])
    team_member_profiles = namespace(ClientTeamMemberProfiles[AsyncRunner])
    team_permissions = namespace(ClientTeamPermissions[AsyncRunner])
    teams = namespace(ClientTeams[AsyncRunner])
