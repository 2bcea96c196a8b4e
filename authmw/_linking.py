"""Linking an authmw user to an app's own user by e-mail: the one rule (exported by
:mod:`authmw.adapter`).

An app that had users before authmw (a Flask-Login table, Django's users) may want to find the
row of a first-time authmw user by e-mail. Anyone can sign up at the service with someone
else's address (unverified), sign up through an OAuth provider that vouches for it, or add it
to their account as a contact channel and make it primary. So an address may pick an app's
row only when:

1. the service says it is verified: the **primary** e-mail of the server-tier user object
   (``primary_email_verified``), read through the server app, never from token claims;
2. exactly one authmw user holds it verified, as the service sees it: every user whose
   contact channels contain the address (``GET /users?query=``, then each candidate's
   channels) is checked, and another user with the address verified (primary or not) makes
   it ambiguous. Users that merely list it unverified do not count (they could otherwise
   block someone else's link).

Otherwise :class:`EmailLinkRefused` names the reason. Addresses are compared trimmed and
lower-cased (the service's own normalisation since API 2.8).

What the app must add, since only it knows its table: a link, once made, is kept by authmw
user id and looked up by that id first; a row already linked to an authmw user is never
re-linked to another, whatever the e-mails say later. ``authmw_django`` and the Flask-Login
recipe of docs/flask.md do exactly this.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, overload

from ._ops import Op
from .errors import AuthmwError, ConfigurationError, InvalidServerResponse
from .models import ServerUser

if TYPE_CHECKING:
    from ._apps import AsyncServerApp, ServerApp

__all__ = ["EmailLinkRefused", "linkable_email", "linkable_email_op", "normalize_email"]

#: Users asked for per page when looking for every holder of an address.
PAGE_SIZE = 100


class EmailLinkRefused(AuthmwError, ValueError):
    """An authmw user's e-mail must not link or match an app's user. ``reason``:

    - ``no_user``: the service has no such user;
    - ``no_email``: the user has no primary e-mail;
    - ``unverified``: the primary e-mail is not verified at the service;
    - ``shared``: another authmw user also holds the address, verified.

    ``user_id`` names the authmw user. The message never contains the address.
    """

    REASONS = ("no_user", "no_email", "unverified", "shared")

    def __init__(self, reason: str, user_id: str) -> None:
        self.reason = reason
        self.user_id = user_id
        why = {
            "no_user": "the service has no such user",
            "no_email": "the user has no primary e-mail",
            "unverified": "the user's primary e-mail is not verified at the service (it is linked once verified)",
            "shared": "another authmw user also holds that e-mail, verified, so it does not tell who this is",
        }[reason]
        super().__init__(
            f"Not linking authmw user {user_id} to an existing user by e-mail: {why}. "
            "Give the user a new account of their own, or link it by hand."
        )


def normalize_email(value: str | None) -> str:
    """An address as the service stores it since API 2.8: trimmed and lower-cased."""
    return (value or "").strip().lower()


def linkable_email_op(server: ServerApp | AsyncServerApp, user: str | ServerUser) -> Op[str]:
    """The operation behind :func:`linkable_email` (for composing in other operations)."""
    _require(server)
    if isinstance(user, ServerUser):
        profile: ServerUser | None = user
        user_id = user.id
    elif isinstance(user, str):
        user_id = user
        users = server.users
        profile = yield from type(users).get.op(users, user_id)
    else:
        raise TypeError(f"linkable_email takes a user id or a ServerUser (the server tier's view), not {user!r}.")
    if profile is None:
        raise EmailLinkRefused("no_user", user_id)
    email = normalize_email(profile.primary_email)
    if not email:
        raise EmailLinkRefused("no_email", user_id)
    if not profile.primary_email_verified:
        raise EmailLinkRefused("unverified", user_id)
    cursor: str | None = None
    while True:
        users = server.users
        page = yield from type(users).list.op(users, query=email, limit=PAGE_SIZE, cursor=cursor)
        for other in page.items:
            if other.id != user_id and (yield from _holds_verified(server, other, email)):
                raise EmailLinkRefused("shared", user_id)
        if page.next_cursor is None:
            return email
        if page.next_cursor == cursor:
            raise InvalidServerResponse(f"The service returned the same page cursor twice ({cursor!r}).")
        cursor = page.next_cursor


def _holds_verified(server: ServerApp | AsyncServerApp, user: ServerUser, email: str) -> Op[bool]:
    if user.primary_email_verified and normalize_email(user.primary_email) == email:
        return True
    contact_channels = server.contact_channels
    channels = yield from type(contact_channels).list.op(contact_channels, user.id)
    return any(channel.is_verified and normalize_email(channel.value) == email for channel in channels)


@overload
def linkable_email(server: ServerApp, user: str | ServerUser) -> str: ...
@overload
def linkable_email(server: AsyncServerApp, user: str | ServerUser) -> Coroutine[Any, Any, str]: ...
def linkable_email(server: Any, user: str | ServerUser) -> Any:
    """The address by which ``user`` may be linked to an app's own user, or
    :class:`EmailLinkRefused` naming why not (see the module docstring for the rule).

    ``server`` is the project's :class:`~authmw.ServerApp` (the address, returned trimmed and
    lower-cased) or :class:`~authmw.AsyncServerApp` (a coroutine); ``user`` is an authmw user
    id, or the :class:`~authmw.models.ServerUser` already fetched (saves one call). Costs one
    ``GET /users?query=`` (and one channel list per other user holding the address).
    """
    return _require(server).run_op(linkable_email_op(server, user))


def _require(server: Any) -> Any:
    if server is None:  # AuthUser.server without the secret key
        raise ConfigurationError(
            "Linking users by e-mail asks the service who holds the address, so it needs the secret "
            "server key: set AUTHMW_SECRET_SERVER_KEY (or secret_server_key in the AuthConfig)."
        )
    return server
