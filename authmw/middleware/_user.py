"""What the middleware puts on the request: a user and its credentials."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from authmw._apps._base import UNSET
from authmw.errors import AnonymousAuthenticationNotAllowed, ConfigurationError, KnownError, RestrictedUserNotAllowed

from ._access import PermissionRequirement, team_refusal

if TYPE_CHECKING:
    from authmw._apps import AsyncServerApp, ServerApp
    from authmw._config import AuthConfig
    from authmw._tokens import Claims
    from authmw.models import ProjectApiKey

    from ._api_keys import ConfirmedKey


class AnonymousUser:
    """Nobody is signed in (or the session could not be confirmed, or it is an anonymous or
    restricted user's and the app does not sign those in).

    ``is_anonymous`` is True as for Django's anonymous user: there is no account here.
    """

    __slots__ = ()

    is_authenticated = False
    is_anonymous = True
    is_restricted = False
    #: None: nobody; "team_api_key" for ApiKeyTeam.
    via: str | None = None
    #: True only for :data:`UNCONFIRMED`: the request carried a session or key that could not
    #: be checked (the auth service did not answer). Not signed in, and not signed out either:
    #: what an adapter keeps for the session (Django's linked session) must stay.
    unconfirmed = False
    restricted_reason = None
    id = None
    claims = None
    access_token = None
    refresh_token = None
    identity = ""
    email = None
    email_verified = None
    display_name = None
    selected_team_id = None
    signed_up_at = None

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "AnonymousUser()"


class AuthUser:
    """A signed-in user, as far as a verified access token tells.

    ``is_anonymous`` / ``is_restricted`` are True only for the users API 2.8 marks so, and
    only in an app that signs them in (``AuthConfig(allow_anonymous=True)`` /
    ``allow_restricted=True``); otherwise such a request has :class:`AnonymousUser`.
    An anonymous user is restricted too (``restricted_reason == "anonymous"``).

    ``server`` is the project's :class:`authmw.ServerApp` (under WSGI) or
    :class:`authmw.AsyncServerApp` (under ASGI), running on the middleware's own driver; it
    is None when no secret server key is configured. The server-tier helpers below go
    through it, so they return values under WSGI and awaitables under ASGI::

        user = await request.user.get_server_user()          # ASGI
        user = environ["authmw.user"].get_server_user()      # WSGI
    """

    __slots__ = ("access_token", "claims", "refresh_token", "server")

    is_authenticated = True
    #: How the request proved who it is: ``"session"`` (an access token: cookies, headers);
    #: :class:`~authmw.middleware.ApiKeyUser` says ``"user_api_key"``.
    via = "session"

    def __init__(
        self,
        claims: Claims,
        access_token: str,
        refresh_token: str | None,
        server: ServerApp | AsyncServerApp | None = None,
    ) -> None:
        # (server may be passed by position: the middleware makes one user per request, and a
        # positional call costs about 0.08 µs less)
        self.claims = claims
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.server = server

    @property
    def id(self) -> str:
        return self.claims.sub

    @property
    def identity(self) -> str:
        return self.claims.sub

    @property
    def is_anonymous(self) -> bool:
        """An anonymous user of API 2.8 (no e-mail, no password: a session the browser SDK made)."""
        return self.claims.kind == "anonymous"

    @property
    def is_restricted(self) -> bool:
        """A user API 2.8 restricts: anonymous, e-mail not verified, or restricted by an admin."""
        return self.claims.kind != "user"

    @property
    def restricted_reason(self) -> str | None:
        """Why the user is restricted: ``"anonymous"``, ``"email_not_verified"`` or
        ``"restricted_by_administrator"``; None for a user who is not."""
        if self.claims.kind == "user":
            return None
        return self.claims.restricted_reason or ("anonymous" if self.claims.kind == "anonymous" else None)

    # -- from the token, no network call ------------------------------------------------
    # What the service wrote into the access token when it minted it (at most its lifetime
    # ago, 10 minutes by default). Tokens of API 2.8 services (and of the local service)
    # carry them; a 2.7 service's tokens do not, and each is then None: ask
    # ``get_server_user()`` for the current values, or when a change must show at once.

    @property
    def email(self) -> str | None:
        """The primary e-mail, or None (no e-mail, or a token without the claim)."""
        return self.claims.email

    @property
    def email_verified(self) -> bool | None:
        """Whether the primary e-mail is verified; None when the token does not say."""
        return self.claims.email_verified

    @property
    def display_name(self) -> str | None:
        """The display name, or None (not set, or a token without the claim)."""
        return self.claims.name

    @property
    def selected_team_id(self) -> str | None:
        """The team the user last selected, or None."""
        return self.claims.selected_team_id

    @property
    def signed_up_at(self) -> Any:
        """When the user signed up (an aware ``datetime``), or None when the token does not say."""
        return self.claims.signed_up_at

    def __repr__(self) -> str:  # never the tokens, nor the e-mail
        return f"AuthUser(id={self.id!r})"

    # -- server tier: the full user, its teams and permissions, metadata updates ---------
    # Each goes through ``server``: a value under WSGI, an awaitable under ASGI.

    def get_server_user(self) -> Any:
        """The full user as the server sees it (``ServerUser``; None if since deleted)."""
        return self._server().get_user(self.id)

    def list_teams(self) -> Any:
        """The user's teams (``list[ServerTeam]``), oldest first."""
        return self._server().teams.list(user_id=self.id)

    def list_permissions(self, team_id: str, *, recursive: bool = True) -> Any:
        """The user's permissions in a team (``list[TeamPermission]``), contained ones included."""
        return self._server().team_permissions.list(team_id, self.id, recursive=recursive)

    def has_permission(self, team_id_or_permission_id: str, permission_id: str | None = None) -> Any:
        """Whether the user holds a permission, directly or contained (bool):
        ``has_permission("docs:write")`` a project permission (API 2.8, no team),
        ``has_permission(team_id, "$update_team")`` a permission in a team."""
        if permission_id is None:
            return self._server().project_permissions.has(self.id, team_id_or_permission_id)
        return self._server().team_permissions.has(team_id_or_permission_id, self.id, permission_id)

    def update(self, **fields: Any) -> Any:
        """Change the user: the fields of ``server.users.update``; the updated ``ServerUser``."""
        return self._server().users.update(self.id, **fields)

    def update_metadata(
        self,
        *,
        client_metadata: Any = UNSET,
        client_read_only_metadata: Any = UNSET,
        server_metadata: Any = UNSET,
    ) -> Any:
        """Replace the given metadata (None clears it); the updated ``ServerUser``.

        ``client_metadata`` is also writable by the user's browser; the other two only here.
        """
        return self.update(
            client_metadata=client_metadata,
            client_read_only_metadata=client_read_only_metadata,
            server_metadata=server_metadata,
        )

    def team_refusal(self, team_id: object, permission_id: str | None = None) -> Any:
        """For guards: None if the user is a member of the team (holding ``permission_id``),
        else the error to refuse with; answers 503 at once when the service cannot be asked."""
        server = self._server()
        return server.run_op(team_refusal(server, self.id, team_id, permission_id))

    def permission_refusal(self, requirement: PermissionRequirement) -> Any:
        """For guards: None if the user holds the requirement's project permission, else the
        error to refuse with; answers 503 at once when the service cannot be asked."""
        server = self._server()
        return server.run_op(requirement.refusal(server, self.id))

    def _server(self) -> ServerApp | AsyncServerApp:
        if self.server is None:
            raise ConfigurationError(
                "Server-side user data needs the secret server key: set AUTHMW_SECRET_SERVER_KEY "
                "(or pass secret_server_key in the AuthConfig given to the middleware)."
            )
        return self.server


class ApiKeyUser(AuthUser):
    """A user calling through one of their API keys (``via == "user_api_key"``).

    Everything :class:`AuthUser` offers that needs no session works (``id``, the server-tier
    helpers, team checks); there is no access token, refresh token or claims. ``key`` is the
    key as listed (``last_four``, ``description``, ``expires_at``; never its value).
    """

    __slots__ = ("key", "_reason")

    via = "user_api_key"

    def __init__(
        self, key: ProjectApiKey, server: ServerApp | AsyncServerApp | None = None, restricted_reason: str | None = None
    ) -> None:
        super().__init__(None, None, None, server)  # type: ignore[arg-type]
        self.key = key
        self._reason = restricted_reason

    @property
    def id(self) -> str:
        return str(self.key.user_id)

    @property
    def identity(self) -> str:
        return str(self.key.user_id)

    # The key's holder counts: an anonymous or restricted user's key (in an app that signs
    # such users in) is that user, as their session would be.

    @property
    def is_anonymous(self) -> bool:
        return self._reason == "anonymous"

    @property
    def is_restricted(self) -> bool:
        return self._reason is not None

    @property
    def restricted_reason(self) -> str | None:
        return self._reason

    # A key carries no token: what a session's token says is None here (get_server_user()).
    email = None
    email_verified = None
    display_name = None
    selected_team_id = None
    signed_up_at = None

    def __repr__(self) -> str:
        return f"ApiKeyUser(id={self.id!r}, key_id={self.key.id!r})"


class ApiKeyTeam(AnonymousUser):
    """A team calling through its API key (``via == "team_api_key"``): not a user.

    An :class:`AnonymousUser` to everything that asks for a signed-in person
    (``is_authenticated`` False: Django's ``login_required``, Flask-Login and authmw's guards
    without ``api_keys=True`` refuse it); ``team_id`` names the team and ``key`` the key as
    listed. Guards that accept keys let it through for its own team.
    """

    __slots__ = ("key",)

    via = "team_api_key"

    def __init__(self, key: ProjectApiKey) -> None:
        self.key = key

    @property
    def team_id(self) -> str:
        return str(self.key.team_id)

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"ApiKeyTeam(team_id={self.team_id!r}, key_id={self.key.id!r})"


class UnadmittedUser(AnonymousUser):
    """A user the app does not sign in (API 2.8: an anonymous user without
    ``allow_anonymous``, a restricted one without ``allow_restricted``), by a session or by
    one of their API keys: not signed in (an :class:`AnonymousUser` to everything else), but
    guards know why: ``refused`` is ``AnonymousAuthenticationNotAllowed`` or
    ``RestrictedUserNotAllowed``, and a restricted user's page is sent to verify their e-mail
    (``{handler_path}/onboarding``) rather than to sign in."""

    __slots__ = ("refused", "restricted_reason", "via")

    def __init__(self, refused: KnownError, via: str = "session") -> None:
        self.refused = refused
        #: ``"session"`` or ``"user_api_key"``: how the request proved who it is.
        self.via = via
        #: ``"anonymous"``, ``"email_not_verified"``, ``"restricted_by_administrator"``.
        self.restricted_reason = _reason_of(refused)  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"UnadmittedUser({self.refused.code}, via={self.via!r})"


def _reason_of(refused: KnownError) -> str:
    if isinstance(refused, AnonymousAuthenticationNotAllowed):
        return "anonymous"
    reason = refused.details.get("restricted_reason") if refused.details else None
    kind = reason.get("type") if isinstance(reason, dict) else None
    return kind if isinstance(kind, str) else "restricted"


def key_principal(
    confirmed: ConfirmedKey, server: ServerApp | AsyncServerApp | None, config: AuthConfig
) -> ApiKeyUser | ApiKeyTeam | UnadmittedUser:
    """The request's user for a valid key (the middleware's ``Outcome.api_key``): a user's
    key is admitted exactly as that user's session would be in this app."""
    key = confirmed.key
    if confirmed.holder == "team":
        return ApiKeyTeam(key)
    if confirmed.holder == "anonymous" and not config.allow_anonymous:
        return UnadmittedUser(AnonymousAuthenticationNotAllowed(), "user_api_key")
    if confirmed.holder == "restricted" and not (config.allow_restricted or config.allow_anonymous):
        refused = RestrictedUserNotAllowed(
            "The API key is a restricted user's; this app does not sign them in (allow_restricted).",
            {"restricted_reason": {"type": confirmed.restricted_reason}},
        )
        return UnadmittedUser(refused, "user_api_key")
    return ApiKeyUser(key, server, confirmed.restricted_reason)


class AuthCredentials:
    """``scope["auth"]``; the scopes work with Starlette's ``requires("authenticated")``."""

    __slots__ = ("scopes",)

    def __init__(self, scopes: Sequence[str] = ()) -> None:
        self.scopes = list(scopes)

    def __repr__(self) -> str:
        return f"AuthCredentials(scopes={self.scopes!r})"


class UnconfirmedUser(AnonymousUser):
    """Nobody for this request, because its session or key could not be checked: the auth
    service did not answer (``on_refresh_unavailable="anonymous"``). A transient error never
    signs a user out, so adapters end nothing of their own for it (``unconfirmed`` is True)."""

    __slots__ = ()

    unconfirmed = True

    def __repr__(self) -> str:
        return "UnconfirmedUser()"


ANONYMOUS = AnonymousUser()
#: The user of a request whose session or key could not be checked (the service unreachable).
UNCONFIRMED = UnconfirmedUser()
