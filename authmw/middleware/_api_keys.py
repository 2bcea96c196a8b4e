"""User and team API keys as the credentials of machine clients (API 2.8), free of any framework.

A script calls the app with ``Authorization: Bearer sk_...`` (a key made with
``client.api_keys.create`` or ``server.user_api_keys.create``). When the app accepts keys
(``AuthConfig(accept_api_keys=True)``), the middleware:

1. tells a key from a JWT and from the 2.8 SDK's ``stackauth_...`` header by its text alone
   (:func:`authmw.keyformat.parse_api_key`: length, shape and CRC-32; no I/O), so a typo or
   a made-up value is refused without asking anyone;
2. answers from its caches when it can: a key the service confirmed within ``KEY_TTL``
   seconds, a key it refused within ``REFUSED_KEY_TTL`` (both bounded maps, oldest dropped
   first), so a repeated key costs no network call and a flood of made-up keys that pass the
   checksum costs one lookup each, never one per request;
3. otherwise asks the service once (``POST /user-api-keys/check`` or ``/team-api-keys/check``
   with the secret server key), and for a user's key reads its user (``GET /users/{id}``): a
   key counts as its holder, and an anonymous or restricted user's key must get what that
   user's session gets. Concurrent requests with the same key share those calls.

The request's user is then an :class:`~authmw.middleware.ApiKeyUser` (a user's key: the user,
``via == "user_api_key"``), an :class:`~authmw.middleware.UnadmittedUser` (the key of a user
the app does not sign in) or an :class:`~authmw.middleware.ApiKeyTeam` (a team's key: no
user, ``via == "team_api_key"``), made by ``_user.key_principal``. Guards refuse keys unless
the route accepts them (``api_keys=True``): ``_access.admit``, written once for every adapter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, NamedTuple

from authmw._apps._base import _Api
from authmw._apps._project_api_keys import _KeysOps, _ServerTeamKeysOps, _ServerUserKeysOps
from authmw._apps._users import _ServerUsersOps
from authmw._bounded import BoundedMap
from authmw._config import AuthConfig
from authmw._ops import Op, Shared, at_once
from authmw._transport import Transport
from authmw.errors import ApiKeyNotFound, ApiKeyNotValid, HttpStatusError, KnownError
from authmw.keyformat import ParsedApiKey, parse_api_key
from authmw.models import ProjectApiKey

logger = logging.getLogger("authmw.middleware")

__all__ = ["KEY_TTL", "REFUSED_KEY_TTL", "ApiKeyResolver", "ConfirmedKey", "looks_like_api_key"]

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


#: Who holds a key: a team, or a user of one of the service's kinds (what that user's session
#: token would say: a full user, a restricted one, an anonymous one).
Holder = Literal["team", "user", "restricted", "anonymous"]


class ConfirmedKey(NamedTuple):
    """A key the service confirmed, with what its holder is: a user's key counts as that
    user's session would (an anonymous user's key is an anonymous user's credential)."""

    key: ProjectApiKey
    holder: Holder
    #: Why the holder is restricted (``"anonymous"``, ``"email_not_verified"``,
    #: ``"restricted_by_administrator"``), None for a full user or a team.
    restricted_reason: str | None = None


class ApiKeyResolver:
    """Resolves key values through the service, with the caches of the module docstring."""

    def __init__(self, config: AuthConfig, clock: Callable[[], float]) -> None:
        self.config = config
        self._clock = clock
        self._valid: BoundedMap[str, tuple[ConfirmedKey, float]] = BoundedMap(KEY_CACHE_SIZE)
        self._refused: BoundedMap[str, tuple[KnownError, float]] = BoundedMap(REFUSED_KEY_CACHE_SIZE)
        self._api: _Api | None = None  # made on first use
        self._warned: set[str] = set()

    @property
    def has_answers(self) -> bool:
        """Whether any key is remembered (else no request needs a look)."""
        return bool(self._valid) or bool(self._refused)

    def cached(self, value: str) -> ConfirmedKey | KnownError | None:
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

    def resolve(self, value: str, parsed: ParsedApiKey) -> Op[ConfirmedKey | KnownError]:
        """The key and its holder, or the service's refusal (an ``ApiKeyNotValid``), asking the service at
        most once for concurrent requests with the same value. Network and server errors
        propagate (nothing is remembered then)."""
        found = self.cached(value)
        if found is not None:
            return found
        # Inside a request: answered at once, never held through the service's Retry-After.
        result: ConfirmedKey | KnownError = yield Shared(
            ("authmw.middleware.api_key", self.config.project_id, value), lambda: at_once(self._check(value, parsed))
        )
        return result

    def _check(self, value: str, parsed: ParsedApiKey) -> Op[ConfirmedKey | KnownError]:
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
        if key.type == "team":
            confirmed = ConfirmedKey(key, "team")
        else:
            # The holder's kind is not in the key: one more call, remembered with the key.
            owner = yield from _ServerUsersOps.get.op(_ServerUsersOps(self._server_api()), str(key.user_id))
            if owner is None:  # deleted since: its keys went with it
                return self._refuse(value, ApiKeyNotFound())
            confirmed = _holder(key, owner.is_anonymous, owner.is_restricted, owner.restricted_reason)
        self._valid.put(value, (confirmed, self._clock() + KEY_TTL))
        return confirmed

    def _refuse(self, value: str, error: KnownError) -> KnownError:
        self._refused.put(value, (error, self._clock() + REFUSED_KEY_TTL))
        return error

    def forget(self, value: str) -> None:
        self._valid.drop(value)
        self._refused.drop(value)

    def _server_api(self) -> _Api:
        if self._api is None:
            self._api = _ServerCalls(self.config)
        return self._api


class _ServerCalls(_Api):
    """What the server tier's operations need (config, transport) without a driver of their
    own: the middleware yields them to the request's driver."""

    _driver = None

    def __init__(self, config: AuthConfig) -> None:
        self.config = config
        self._transport = Transport(config, "server")


def _holder(key: ProjectApiKey, anonymous: bool, restricted: bool, reason: str | None) -> ConfirmedKey:
    if anonymous:
        return ConfirmedKey(key, "anonymous", "anonymous")
    if restricted:
        return ConfirmedKey(key, "restricted", reason or "restricted")
    return ConfirmedKey(key, "user")
