"""What the middleware puts on the request: a user and its credentials."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from authmw._tokens import Claims


class AnonymousUser:
    """Nobody is signed in (or the session could not be confirmed)."""

    __slots__ = ()

    is_authenticated = False
    id = None
    claims = None
    access_token = None
    refresh_token = None
    identity = ""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "AnonymousUser()"


class AuthUser:
    """A signed-in user, as far as a verified access token tells.

    ``server`` is how server-tier helpers (full user, teams, permissions) will reach the
    service: an object whose ``run(op)`` executes an operation with the driver of the
    middleware that made this user (awaitable under ASGI, blocking under WSGI).
    """

    __slots__ = ("claims", "access_token", "refresh_token", "server")

    is_authenticated = True

    def __init__(
        self,
        claims: Claims,
        access_token: str,
        refresh_token: str | None,
        *,
        server: Any = None,
    ) -> None:
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

    def __repr__(self) -> str:  # never the tokens
        return f"AuthUser(id={self.id!r})"


class AuthCredentials:
    """``scope["auth"]``; the scopes work with Starlette's ``requires("authenticated")``."""

    __slots__ = ("scopes",)

    def __init__(self, scopes: Sequence[str] = ()) -> None:
        self.scopes = list(scopes)

    def __repr__(self) -> str:
        return f"AuthCredentials(scopes={self.scopes!r})"


ANONYMOUS = AnonymousUser()
