"""User and team API keys as the credentials of machine clients (API 2.8), free of any framework.

A script calls the app with ``Authorization: Bearer sk_...`` (a key made with
``client.api_keys.create`` or ``server.user_api_keys.create``). When the app accepts keys
(``AuthConfig(accept_api_keys=True)``), the middleware:

1. tells a key from a JWT and from the 2.8 SDK's ``stackauth_...`` header by its text alone
   (:func:`authmw._keyformat.parse_api_key`: length, shape and CRC-32; no I/O), so a typo or
   a made-up value is refused without asking anyone;
2. answers from its caches when it can: a key the service confirmed within ``KEY_TTL``
   seconds, a key it refused within ``REFUSED_KEY_TTL`` (both bounded maps, oldest dropped
   first), so a repeated key costs no network call and a flood of made-up keys that pass the
   checksum costs one lookup each, never one per request;
3. otherwise asks the service once (``POST /user-api-keys/check`` or ``/team-api-keys/check``
   with the secret server key; concurrent requests with the same key share that call).

The request's user is then an :class:`ApiKeyUser` (a user's key: the user, ``via ==
"user_api_key"``) or an :class:`ApiKeyTeam` (a team's key: no user, ``via == "team_api_key"``).
Guards refuse both unless the route accepts keys (``api_keys=True``); :func:`key_refusal` is
that decision, written once for every adapter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from authmw._apps._base import _Api
from authmw._apps._project_api_keys import _KeysOps, _ServerTeamKeysOps, _ServerUserKeysOps
from authmw._bounded import BoundedMap
from authmw._config import AuthConfig
from authmw._keyformat import ParsedApiKey, parse_api_key
from authmw._ops import Op, Shared
from authmw._transport import Transport
from authmw.errors import (
    ApiKeyNotAccepted,
    ApiKeyNotFound,
    ApiKeyNotValid,
    HttpStatusError,
    KnownError,
    TeamMembershipNotFound,
    UserAuthenticationRequired,
)
from authmw.models import ProjectApiKey

from ._user import AuthUser

if TYPE_CHECKING:
    from authmw._apps import AsyncServerApp, ServerApp

logger = logging.getLogger("authmw.middleware")

__all__ = [
    "KEY_TTL",
    "REFUSED_KEY_TTL",
    "ApiKeyResolver",
    "ApiKeyTeam",
    "ApiKeyUser",
    "key_refusal",
    "looks_like_api_key",
]

#: Seconds a key the service confirmed is trusted without asking again: a key revoked at the
#: service stops working here within this time.
KEY_TTL = 30.0
KEY_CACHE_SIZE = 4096
#: Seconds a key the service refused (unknown, revoked, expired, the other kind) is refused
#: without asking again; a refused key never becomes valid, the bound keeps memory small.
REFUSED_KEY_TTL = 300.0
REFUSED_KEY_CACHE_SIZE = 4096


def looks_like_api_key(bearer: str) -> ParsedApiKey | None:
    """The key's id and kind when ``bearer`` has the service's key format (checksum right),
    else None; a JWT (``eyJ...``) or an SDK session header never does. No I/O."""
    return parse_api_key(bearer) if len(bearer) == 102 and bearer[2] == "_" else None


class ApiKeyUser(AuthUser):
    """A user calling through one of their API keys (``via == "user_api_key"``).

    Everything :class:`AuthUser` offers that needs no session works (``id``, the server-tier
    helpers, team checks); there is no access token, refresh token or claims. ``key`` is the
    key as listed (``last_four``, ``description``, ``expires_at``; never its value).
    """

    __slots__ = ("key",)

    via = "user_api_key"

    def __init__(self, key: ProjectApiKey, server: ServerApp | AsyncServerApp | None = None) -> None:
        super().__init__(None, None, None, server)  # type: ignore[arg-type]
        self.key = key

    @property
    def id(self) -> str:
        return str(self.key.user_id)

    @property
    def identity(self) -> str:
        return str(self.key.user_id)

    @property
    def is_anonymous(self) -> bool:
        return False

    @property
    def is_restricted(self) -> bool:
        return False

    @property
    def restricted_reason(self) -> str | None:
        return None

    def __repr__(self) -> str:
        return f"ApiKeyUser(id={self.id!r}, key_id={self.key.id!r})"


class ApiKeyTeam:
    """A team calling through its API key (``via == "team_api_key"``): not a user.

    ``is_authenticated`` is False, so code that asks for a signed-in person (Django's
    ``login_required``, Flask-Login) refuses it; ``team_id`` names the team and ``key`` the key
    as listed. Guards let it through where the route accepts keys and the team is its own.
    """

    __slots__ = ("key",)

    via = "team_api_key"
    is_authenticated = False
    is_anonymous = False
    is_restricted = False
    restricted_reason = None
    id = None
    claims = None
    access_token = None
    refresh_token = None
    identity = ""

    def __init__(self, key: ProjectApiKey) -> None:
        self.key = key

    @property
    def team_id(self) -> str:
        return str(self.key.team_id)

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"ApiKeyTeam(team_id={self.team_id!r}, key_id={self.key.id!r})"


def key_refusal(user: object, api_keys: bool, team_id: object = None, *, needs_user: bool = True) -> KnownError | None:
    """What a guard answers a request made with an API key, before its own checks; None lets
    the guard go on (a session's user, or a key the route accepts).

    ``api_keys``: whether the route accepts keys. ``team_id``: the team of a team guard (a team
    key passes only for its own team). ``needs_user``: the guard checks something of a user (a
    permission): a team key cannot pass it."""
    via = getattr(user, "via", None)
    if via not in ("user_api_key", "team_api_key"):
        return None  # a session's user, or nobody: the guard's own checks decide
    if not api_keys:
        return ApiKeyNotAccepted(details={"reason": f"a {via.replace('_', ' ')} was sent; this route takes sessions"})
    if via == "team_api_key":
        if team_id is None or needs_user:
            return UserAuthenticationRequired()  # a team's key is not a user
        if str(team_id) != getattr(user, "team_id", None):
            return TeamMembershipNotFound(details={"team_id": str(team_id), "user_id": ""})
    return None


class ApiKeyResolver:
    """Resolves key values through the service, with the caches of the module docstring."""

    def __init__(self, config: AuthConfig, clock: Callable[[], float]) -> None:
        self.config = config
        self._clock = clock
        self._valid: BoundedMap[tuple[ProjectApiKey, float]] = BoundedMap(KEY_CACHE_SIZE)
        self._refused: BoundedMap[tuple[KnownError, float]] = BoundedMap(REFUSED_KEY_CACHE_SIZE)
        self._api: _Api | None = None
        self._warned: set[str] = set()

    def cached(self, value: str) -> ProjectApiKey | KnownError | None:
        """The key or the refusal remembered for ``value`` (no I/O), None when unknown."""
        now = self._clock()
        hit = self._valid.get(value)
        if hit is not None:
            if now < hit[1]:
                return hit[0]
            self._valid.drop(value)
        if self._refused:
            refused = self._refused.get(value)
            if refused is not None:
                if now < refused[1]:
                    return refused[0]
                self._refused.drop(value)
        return None

    def resolve(self, value: str, parsed: ParsedApiKey) -> Op[ProjectApiKey | KnownError]:
        """The key, or the service's refusal (an ``ApiKeyNotValid``), asking the service at
        most once for concurrent requests with the same value. Network and server errors
        propagate (nothing is remembered then)."""
        found = self.cached(value)
        if found is not None:
            return found
        result: ProjectApiKey | KnownError = yield Shared(
            ("authmw.middleware.api_key", self.config.project_id, value), lambda: self._check(value, parsed)
        )
        return result

    def _check(self, value: str, parsed: ParsedApiKey) -> Op[ProjectApiKey | KnownError]:
        found = self.cached(value)  # a flight that just landed
        if found is not None:
            return found
        ops: _KeysOps = (_ServerUserKeysOps if parsed.type == "user" else _ServerTeamKeysOps)(self._server_api())
        try:
            key = yield from ops._check(value)
        except ApiKeyNotValid as exc:
            return self._refuse(value, exc)
        except HttpStatusError as exc:
            if exc.status not in (400, 404):
                raise
            # The project does not enable this kind of key (400), or the service has none (404,
            # API 2.7): no key of this kind can be valid. Said once; the key is refused.
            if parsed.type not in self._warned:
                self._warned.add(parsed.type)
                logger.warning(
                    "authmw: a %s API key was refused: the service answered %d (enable %s API keys in the "
                    "project settings, allow_%s_api_keys; API 2.7 services have none)",
                    parsed.type,
                    exc.status,
                    parsed.type,
                    parsed.type,
                )
            return self._refuse(value, ApiKeyNotFound())
        if key.id != parsed.id:  # the service's key for this value is another one: not this format's
            return self._refuse(value, ApiKeyNotFound())
        self._valid.put(value, (key, self._clock() + KEY_TTL))
        return key

    def _refuse(self, value: str, error: KnownError) -> KnownError:
        self._refused.put(value, (error, self._clock() + REFUSED_KEY_TTL))
        return error

    def forget(self, value: str) -> None:
        self._valid.drop(value)
        self._refused.drop(value)

    def _server_api(self) -> _Api:
        if self._api is None:
            api = _Api()
            api.config = self.config
            api._transport = Transport(self.config, "server")
            api._driver = None
            self._api = api
        return self._api


def principal(key: ProjectApiKey, server: Any) -> ApiKeyUser | ApiKeyTeam:
    """The request's user for a valid key."""
    return ApiKeyUser(key, server) if key.type == "user" else ApiKeyTeam(key)
