"""The service's access tokens: their expiry read unverified, the refresh margin, and the
verifier of one project's tokens over its cached key set.

Verification is CPU work (general JWT code in :mod:`authmw._jwt`) over a cached key set.
Only fetching the key set is I/O, done through a ``Send`` effect so the same code runs under
the sync and the async driver. Verified tokens are remembered until they expire, so a
repeated token costs a dict lookup.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

import jwt

from ._bounded import BoundedMap
from ._config import AuthConfig
from ._jwt import CLOCK_TOLERANCE, Parsed, PreparedKey, is_time, parse, prepare_key, verify_jwt, verify_parsed
from ._ops import Op, Request, Send, Shared
from ._refresh_policy import REQUIRED_VALIDITY_MS
from .errors import (
    AccessTokenExpired,
    AnonymousAuthenticationNotAllowed,
    HttpStatusError,
    InvalidJwt,
    InvalidProjectForAccessToken,
    InvalidServerResponse,
    KnownError,
    NetworkError,
    RestrictedUserNotAllowed,
    UnparsableAccessToken,
)

logger = logging.getLogger("authmw")

_T = TypeVar("_T")

__all__ = [
    "ACCESS_TOKEN_ISSUER",
    "REQUIRED_VALIDITY_MS",
    "KINDS",
    "LEGACY_ISSUER",
    "Claims",
    "TokenKind",
    "TokenVerifier",
    "UnknownSigningKey",
    "has_validity",
    "token_expiry",
    "usable_until",
    "verify_jwt",  # the generic verifier of authmw._jwt, which TokenVerifier builds on
]

#: The kinds of access token and the 2.7 issuer, one table shared with the React package.
_TABLE: dict[str, Any] = json.loads(resources.files("authmw").joinpath("token_kinds.json").read_text("utf-8"))
#: ``iss`` of every access token an API 2.7 service signs, whatever the project (its ``aud``
#: is the plain project id). API 2.8 derives the issuer from its URL: see :class:`TokenKind`.
LEGACY_ISSUER: str = _TABLE["legacy_issuer"]
ACCESS_TOKEN_ISSUER = LEGACY_ISSUER  # (the name of the 2.7 constant)
#: Algorithms the service signs access tokens with (ES256 only).
ACCESS_TOKEN_ALGORITHMS = ("ES256",)
#: Seconds a fetched key set is used before it is fetched again.
JWKS_TTL = 600.0
#: Verified tokens remembered at most.
VERIFIED_CACHE_SIZE = 10_000


def token_expiry(token: str) -> float | None:
    """The ``exp`` claim in seconds, read without verifying the signature.

    None means the token has no ``exp`` and never expires, as in the official SDK. Raises
    :class:`UnparsableAccessToken` for anything that is not a JWT (including ``"undefined"``)
    or whose ``exp`` is not a number of seconds between 1970 and the year 9999.
    """
    return _expiry(_parse(token))


def _parse(token: str) -> Parsed:
    """:func:`authmw._jwt.parse`, raising :class:`UnparsableAccessToken`."""
    try:
        return parse(token)
    except ValueError as exc:
        raise UnparsableAccessToken(f"Access token is not parsable: {exc}") from None


def _expiry(parsed: Parsed) -> float | None:
    exp = parsed.payload.get("exp")
    if exp is None:
        return None
    if not is_time(exp):
        raise UnparsableAccessToken(
            "Access token is not parsable: its exp claim is not a number of seconds up to the year 9999."
        )
    return float(exp)


class UnknownSigningKey(UnparsableAccessToken):
    """:class:`UnparsableAccessToken` (the same code and message on the wire) for a token
    signed with a key the project's key set did not hold when it was last fetched. The service
    may have added the key since, so this answer holds only until the key set may be fetched
    again: ``retry_in`` seconds (the verifier's refetch interval at most)."""

    def __init__(
        self, message: str | None = None, details: Mapping[str, Any] | None = None, *, retry_in: float = 0.0
    ) -> None:
        super().__init__(message, details)
        self.retry_in = retry_in


def usable_until(exp: float, min_validity_ms: float = REQUIRED_VALIDITY_MS) -> float:
    """The last instant (seconds) a token expiring at ``exp`` may be used: ``exp`` less the
    required validity. A cache that keeps this number decides with one comparison."""
    return exp - min_validity_ms / 1000


def has_validity(exp: float | None, now: float, min_validity_ms: float = REQUIRED_VALIDITY_MS) -> bool:
    """Whether a token expiring at ``exp`` (seconds; None = never) may be used at ``now``:
    at least ``min_validity_ms`` must remain. Below that it needs refreshing."""
    return exp is None or now <= usable_until(exp, min_validity_ms)


@dataclass(frozen=True, init=False)
class Claims:
    """The checked claims of a verified access token."""

    sub: str
    aud: str
    iss: str
    iat: float | None
    exp: float
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    #: "user", "restricted" or "anonymous": the token's kind, from its audience (API 2.8).
    kind: str = "user"

    def __init__(
        self, sub: str, aud: str, iss: str, iat: float | None, exp: float, raw: Mapping[str, Any], kind: str = "user"
    ) -> None:
        # The generated __init__ of a frozen dataclass calls object.__setattr__ once per field,
        # which costs twice as much as filling the instance's dict at once: one is made for
        # every new token.
        self.__dict__.update(sub=sub, aud=aud, iss=iss, iat=iat, exp=exp, raw=raw, kind=kind)

    @property
    def user_id(self) -> str:
        return self.sub

    @property
    def expires_at(self) -> _dt.datetime:
        return _dt.datetime.fromtimestamp(self.exp, tz=_dt.timezone.utc)

    # The claims below are issued by services of the official SDK's 2.8 generation (and by
    # the local service); 2.7 tokens lack them, so each is None when absent or mistyped.

    @property
    def project_id(self) -> str | None:
        return _typed(self.raw, "project_id", str) or _typed(self.raw, "projectId", str)

    @property
    def branch_id(self) -> str | None:
        return _typed(self.raw, "branch_id", str) or _typed(self.raw, "branchId", str)

    @property
    def refresh_token_id(self) -> str | None:
        """The id of the session (refresh token) the token was minted for."""
        return _typed(self.raw, "refresh_token_id", str)

    @property
    def role(self) -> str | None:
        return _typed(self.raw, "role", str)

    @property
    def name(self) -> str | None:
        """The user's display name when the token was minted."""
        return _typed(self.raw, "name", str)

    @property
    def email(self) -> str | None:
        """The user's primary e-mail when the token was minted."""
        return _typed(self.raw, "email", str)

    @property
    def email_verified(self) -> bool | None:
        return _typed(self.raw, "email_verified", bool)

    @property
    def selected_team_id(self) -> str | None:
        return _typed(self.raw, "selected_team_id", str)

    @property
    def signed_up_at(self) -> _dt.datetime | None:
        """API 2.8 writes seconds (``floor(signed_up_at_millis / 1000)``); a number past the
        year 5138 in seconds is read as milliseconds (what earlier local services wrote)."""
        value = self.raw.get("signed_up_at")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _MIN_MILLIS <= value <= _MAX_MILLIS:
            return None
        seconds = value if value < _MILLIS_FROM else value / 1000
        return _dt.datetime.fromtimestamp(seconds, tz=_dt.timezone.utc)

    @property
    def is_anonymous(self) -> bool | None:
        return _typed(self.raw, "is_anonymous", bool)

    @property
    def is_restricted(self) -> bool | None:
        return _typed(self.raw, "is_restricted", bool)

    @property
    def restricted_reason(self) -> str | None:
        """The `type` of the `restricted_reason` claim, when the user is restricted."""
        reason = self.raw.get("restricted_reason")
        return _typed(reason, "type", str) if isinstance(reason, Mapping) else None

    @property
    def requires_totp_mfa(self) -> bool | None:
        return _typed(self.raw, "requires_totp_mfa", bool)


#: signed_up_at outside years 1970..9999 is not a date (and would overflow datetime).
_MIN_MILLIS, _MAX_MILLIS = 0, 253_402_300_799_999
#: signed_up_at at or above this is milliseconds (as seconds it would be after the year 5138).
_MILLIS_FROM = 100_000_000_000


@dataclass(frozen=True)
class TokenKind:
    """One kind of access token a project's service signs (``authmw/token_kinds.json``)."""

    name: str  # "user", "restricted", "anonymous"
    audience: str
    #: Every ``iss`` accepted for this kind, without a trailing slash.
    issuers: frozenset[str]
    #: Whether the app signs such users in (``AuthConfig.allow_anonymous`` / ``allow_restricted``).
    accepted: bool


def token_kinds(config: AuthConfig) -> dict[str, TokenKind]:
    """audience -> :class:`TokenKind` of the project: the one rule of which issuer goes with
    which audience. API 2.8: ``iss = {public API URL}{issuer_path}``, ``aud = {project_id}
    {audience_suffix}``; API 2.7: the fixed :data:`LEGACY_ISSUER` with the plain audience."""
    pid = config.project_id
    # An app that signs anonymous users in signs restricted ones in too (as the service's
    # allow-anonymous header admits both): an anonymous user is the most restricted of them.
    accepted = {
        "user": True,
        "restricted": config.allow_restricted or config.allow_anonymous,
        "anonymous": config.allow_anonymous,
    }
    kinds: dict[str, TokenKind] = {}
    for name, spec in _TABLE["kinds"].items():
        issuers = {config.issuer_base + spec["issuer_path"].format(project_id=pid)}
        if not spec["audience_suffix"]:
            issuers.add(LEGACY_ISSUER)
        audience = pid + spec["audience_suffix"]
        kinds[audience] = TokenKind(name, audience, frozenset(issuers), accepted[name])
    return kinds


KINDS: tuple[str, ...] = tuple(_TABLE["kinds"])
#: Prefixes of the 2.8 SDK's ``Authorization: Bearer <prefix><base64 JSON>`` session header.
AUTHORIZATION_PREFIXES: tuple[str, ...] = tuple(_TABLE["authorization_prefixes"])


def _typed(claims: Mapping[str, Any], name: str, kind: type[_T]) -> _T | None:
    value = claims.get(name)
    if kind is not bool and isinstance(value, bool):
        return None
    return value if isinstance(value, kind) else None


class TokenVerifier:
    """Verifies the service's access tokens for one project over its cached JWKS.

    ``verify(token)`` is an operation (run it with a driver); it yields a ``Send`` only when
    the key set must be fetched: on first use, after ``jwks_ttl`` seconds, or for an unknown
    ``kid`` (at most once per ``jwks_min_refetch_interval`` seconds, so a flood of made-up
    key ids cannot cause a flood of fetches). Concurrent fetches are shared. A failed fetch
    keeps the previous key set. ``verify_cached(token)`` is a pure lookup.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float] = time.time,
        jwks_min_refetch_interval: float = 10.0,
        jwks_ttl: float = JWKS_TTL,
        leeway: float = CLOCK_TOLERANCE,
        cache_size: int = VERIFIED_CACHE_SIZE,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.project_id = config.project_id
        self.jwks_url = config.jwks_url
        self._kinds = token_kinds(config)
        #: Audiences of the kinds the app does not sign in: decided before any I/O.
        self._refused_audiences = {k.audience: k for k in self._kinds.values() if not k.accepted}
        self._issuer_base = config.issuer_base
        self._warned_issuer = False
        self._clock = clock
        self._monotonic = monotonic
        self._min_refetch = jwks_min_refetch_interval
        self._ttl = jwks_ttl
        self._leeway = leeway
        self._keys: dict[str, PreparedKey] = {}
        self._fetched_at: float | None = None  # monotonic time of the last good fetch
        self._attempted_at: float | None = None  # monotonic time of the last fetch attempt
        self._last_error: BaseException | None = None
        #: Token -> (the time it stops being served, its Claims): a repeated token costs a
        #: dictionary lookup instead of a signature check (the figures: docs/performance.md).
        self._verified: BoundedMap[str, tuple[float, Claims]] = BoundedMap(cache_size)
        #: The last token read and its parse (PyJWT's reader, :func:`authmw._jwt.parse`): the
        #: middleware reads a new token's expiry (and its audience), then verifies it, and the
        #: verification uses that parse: a token is read once (docs/performance-record.md).
        #: Dropped when the token is verified: its payload becomes the Claims' ``raw``.
        self._last_parse: tuple[str, Parsed] | None = None
        self._lock = threading.Lock()
        #: Signatures checked so far (a statistic for benchmarks and tests).
        self.signature_checks = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(project_id={self.project_id!r}, keys={len(self._keys)})"

    def verify_cached(self, token: str) -> Claims | None:
        """Claims of a token verified before and not expired since, else None."""
        hit = self._verified.get(token)
        if hit is None:
            return None
        deadline, claims = hit
        if self._clock() >= deadline:
            self._verified.drop(token)
            return None
        return claims

    def _parse(self, token: str) -> Parsed:
        last = self._last_parse
        if last is not None and last[0] == token:
            return last[1]
        parsed = _parse(token)
        self._last_parse = (token, parsed)
        return parsed

    def expiry(self, token: str) -> float | None:
        """:func:`token_expiry`, sharing its parse with a :meth:`verify` of the same token."""
        return _expiry(self._parse(token))

    def refused_kind(self, token: str) -> KnownError | None:
        """The error for a token of a kind the app does not sign in (an anonymous or a
        restricted user's, by its audience, not verified), else None. Pure: no I/O, no
        signature check; such a token means "not signed in" whether it is genuine or not."""
        if not self._refused_audiences:
            return None
        try:
            return self._refused_kind(self._parse(token).payload)
        except UnparsableAccessToken:
            return None

    def _refused_kind(self, payload: Mapping[str, Any]) -> KnownError | None:
        aud = payload.get("aud")
        kind = self._refused_audiences.get(aud) if isinstance(aud, str) else None
        return None if kind is None else self.refused_kind_of(kind, payload)

    def verify(self, token: str) -> Op[Claims]:
        """Verify an access token of this project. Raises InvalidAccessToken subclasses, and
        :class:`AnonymousAuthenticationNotAllowed` / :class:`RestrictedUserNotAllowed` (before
        any I/O) for the tokens of users the app does not sign in (:meth:`refused_kind`).

        When the key set cannot be fetched the fetch's error is raised (NetworkError,
        HttpStatusError or InvalidServerResponse): that says nothing about the token.
        """
        claims = self.verify_cached(token)
        if claims is not None:
            return claims
        parsed = self._parse(token)
        refused = self._refused_kind(parsed.payload)
        if refused is not None:
            raise refused
        header = parsed.header
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ACCESS_TOKEN_ALGORITHMS:
            raise UnparsableAccessToken(f"Access token is not parsable: algorithm {alg!r} is not ES256.")
        if not isinstance(kid, str) or not kid:
            raise UnparsableAccessToken("Access token is not parsable: it names no signing key (kid).")
        key = self._keys.get(kid)
        if key is None or not self._fresh(self._monotonic()):
            key = yield from self._key(kid)
        claims = self._check(parsed, key)
        last = self._last_parse
        if last is not None and last[0] == token:
            self._last_parse = None  # its payload is now the caller's (Claims.raw)
        self._remember(token, claims)
        return claims

    def _check(self, parsed: Parsed, key: PreparedKey) -> Claims:
        self.signature_checks += 1
        try:
            payload = verify_parsed(
                parsed, key, algorithms=ACCESS_TOKEN_ALGORITHMS, leeway=self._leeway, now=self._clock()
            )
        except InvalidJwt as exc:
            if exc.reason == "expired":
                payload = parsed.payload
                exp_millis = int(payload["exp"] * 1000)
                when = _dt.datetime.fromtimestamp(payload["exp"], tz=_dt.timezone.utc).isoformat()
                raise AccessTokenExpired(
                    f"Access token has expired. Please refresh it and try again. (It expired at {when}.)",
                    {"expired_at_millis": exp_millis},
                ) from None
            raise UnparsableAccessToken(f"Access token is not parsable: {exc}") from None
        kind = self._kind(payload)
        sub = payload.get("sub")
        if not isinstance(sub, str) or not sub:
            raise UnparsableAccessToken("Access token is not parsable: its sub claim is not a user id.")
        iat = payload.get("iat")
        return Claims(
            sub=sub,
            aud=kind.audience,
            iss=payload["iss"],
            iat=float(iat) if iat is not None else None,
            exp=float(payload["exp"]),
            raw=payload,
            kind=kind.name,
        )

    def _kind(self, payload: Mapping[str, Any]) -> TokenKind:
        """The kind of a signed token's audience, its issuer matching it, on the main branch.
        Raises InvalidProjectForAccessToken / UnparsableAccessToken."""
        aud = payload.get("aud")
        if not isinstance(aud, (str, list, type(None))):
            raise UnparsableAccessToken("Access token is not parsable: its aud claim is not a string.")
        kind = self._kinds.get(aud) if isinstance(aud, str) else None
        if kind is None:
            actual = aud.split(":", 1)[0] if isinstance(aud, str) else None
            raise InvalidProjectForAccessToken(
                details={"expected_project_id": self.project_id, "actual_project_id": actual}
            )
        if not kind.accepted:  # (refused_kind() refuses these before any I/O)
            raise self.refused_kind_of(kind, payload)
        iss = payload.get("iss")
        if not isinstance(iss, str) or iss.rstrip("/") not in kind.issuers:
            self._warn_issuer(iss, kind)
            raise UnparsableAccessToken("Access token is not parsable: the token was issued by someone else.")
        branch = payload.get("branch_id", payload.get("branchId"))
        if branch is not None and branch != "main":
            raise UnparsableAccessToken(
                f"Access token is not parsable: it is for the branch {branch!r}; the service accepts "
                "tokens of the main branch only."
            )
        return kind

    @staticmethod
    def refused_kind_of(kind: TokenKind, payload: Mapping[str, Any]) -> KnownError:
        if kind.name == "anonymous":
            return AnonymousAuthenticationNotAllowed()
        return RestrictedUserNotAllowed(
            "The access token is a restricted user's; this app does not sign them in (allow_restricted).",
            {"restricted_reason": {"type": _restricted_type(payload)}},
        )

    def _warn_issuer(self, iss: object, kind: TokenKind) -> None:
        """Once: a genuine token of this project whose issuer has another URL in front of the
        project path means the app reaches the service by another URL than the public one."""
        if self._warned_issuer or not isinstance(iss, str):
            return
        path = _TABLE["kinds"][kind.name]["issuer_path"].format(project_id=self.project_id)
        if iss.rstrip("/").endswith(path) and not iss.startswith(self._issuer_base + "/"):
            self._warned_issuer = True
            logger.warning(
                "authmw: access tokens of project %s are issued by %s, but this app expects %s: the service "
                "writes its public URL into the tokens. Set AuthConfig(public_api_url=...) "
                "(AUTHMW_PUBLIC_API_URL) to that URL when the app reaches the service by another one.",
                self.project_id,
                iss.rstrip("/").removesuffix(path),
                self._issuer_base,
            )

    def _remember(self, token: str, claims: Claims) -> None:
        self._verified.put(token, (claims.exp + self._leeway, claims))

    # -- key set -------------------------------------------------------------------------

    def _fresh(self, now: float) -> bool:
        return self._fetched_at is not None and now - self._fetched_at < self._ttl

    def _key(self, kid: str) -> Op[PreparedKey]:
        now = self._monotonic()
        key = self._keys.get(kid)
        if key is not None and self._fresh(now):
            return key
        recently_tried = self._attempted_at is not None and now - self._attempted_at < self._min_refetch
        if not recently_tried:
            try:
                keys = yield Shared(("authmw.jwks", self.jwks_url), self._fetch)
            except (NetworkError, HttpStatusError, InvalidServerResponse) as exc:
                with self._lock:
                    self._attempted_at = self._monotonic()
                    self._last_error = exc
                if kid in self._keys:
                    return self._keys[kid]  # keep using the last good key set
                raise
            with self._lock:
                self._keys, self._fetched_at = keys, self._monotonic()
                self._attempted_at, self._last_error = self._fetched_at, None
        key = self._keys.get(kid)
        if key is not None:
            return key
        if not self._keys and self._last_error is not None:
            raise self._last_error
        attempted = self._attempted_at
        raise UnknownSigningKey(
            "Access token is not parsable: it was signed with a key this project does not have.",
            retry_in=0.0 if attempted is None else max(0.0, self._min_refetch - (self._monotonic() - attempted)),
        )

    def _fetch(self) -> Op[dict[str, PreparedKey]]:
        request = Request("GET", self.jwks_url, {"accept": "application/json"})
        response = yield Send(request)
        if response.status_code != 200:
            raise HttpStatusError(response.status_code, response.content, method="GET", url=self.jwks_url)
        return parse_jwks(response.content, self.jwks_url)


def _restricted_type(payload: Mapping[str, Any]) -> str:
    reason = payload.get("restricted_reason")
    kind = reason.get("type") if isinstance(reason, Mapping) else None
    return kind if isinstance(kind, str) else "anonymous" if payload.get("is_anonymous") is True else "restricted"


def parse_jwks(content: bytes, url: str = "") -> dict[str, PreparedKey]:
    """kid -> key for the usable keys of a JWKS document: each a ``jwt.PyJWK`` made ready for
    PyJWT's signature check once (:func:`authmw._jwt.prepare_key`), not for every token."""
    try:
        document = json.loads(content)
        keys = document["keys"]
        if not isinstance(keys, list):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        raise InvalidServerResponse(f"The key set at {url} is not a JWKS document.") from None
    usable: dict[str, PreparedKey] = {}
    for entry in keys:
        if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str):
            continue
        try:
            usable[entry["kid"]] = prepare_key(jwt.PyJWK(entry))
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue
    if not usable:
        raise InvalidServerResponse(f"The key set at {url} has no usable key.")
    return usable
