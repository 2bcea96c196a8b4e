"""Access tokens: unverified expiry, claim checks, the project key set, verification.

Verification is CPU work over a cached key set. Only fetching the key set is I/O, done
through a ``Send`` effect so the same code runs under the sync and the async driver.
Verified tokens are remembered until they expire, so a repeated token costs a dict lookup.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import jwt
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ._config import AuthConfig
from ._ops import Op, Request, Send, Shared

_T = TypeVar("_T")
from .errors import (
    AccessTokenExpired,
    HttpStatusError,
    InvalidJwt,
    InvalidProjectForAccessToken,
    InvalidServerResponse,
    NetworkError,
    UnparsableAccessToken,
)

__all__ = [
    "ACCESS_TOKEN_ISSUER",
    "CLOCK_TOLERANCE",
    "REQUIRED_VALIDITY_MS",
    "Claims",
    "TokenVerifier",
    "has_validity",
    "token_expiry",
    "usable_until",
    "verify_jwt",
]

#: ``iss`` of every access token the service signs (contract 3.1).
ACCESS_TOKEN_ISSUER = "https://access-token.jwt-signature.stack-auth.com"
#: Seconds of clock skew accepted on ``exp`` and ``nbf`` (spec section 9).
CLOCK_TOLERANCE = 30.0
#: An access token with less validity than this left needs refreshing before use (spec
#: sections 4 and 9). The one definition: the session, the client apps and the middleware
#: all decide through :func:`has_validity`.
REQUIRED_VALIDITY_MS = 20_000
#: Smallest RSA modulus accepted for RS* signatures (spec section 9).
MIN_RSA_BITS = 2048
#: Algorithms the service signs access tokens with (contract 3.1: ES256 only).
ACCESS_TOKEN_ALGORITHMS = ("ES256",)
#: Seconds a fetched key set is used before it is fetched again.
JWKS_TTL = 600.0
#: Verified tokens remembered at most.
VERIFIED_CACHE_SIZE = 10_000
#: Longer strings are not tokens: not parsed, and absent when read from a cookie or header
#: (a JWT of the service is about 400 bytes; a browser cookie holds at most 4 KiB).
MAX_TOKEN_LENGTH = 8192

_CURVES = {"ES256": "secp256r1", "ES384": "secp384r1", "ES512": "secp521r1"}
_ECDSA = {
    "ES256": ec.ECDSA(hashes.SHA256()),
    "ES384": ec.ECDSA(hashes.SHA384()),
    "ES512": ec.ECDSA(hashes.SHA512()),
}


def _b64url_json(segment: str) -> Any:
    padded = segment + "=" * (-len(segment) % 4)
    return json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))


class _Parsed(NamedTuple):
    """A compact JWS split and decoded once: what verification and ``token_expiry`` share."""

    header: dict[str, Any]
    payload: dict[str, Any]
    header_segment: str
    payload_segment: str
    signature_segment: str


#: The last token parsed successfully: the middleware reads a new token's expiry and then
#: verifies it, so both steps share one parse. One entry, replaced atomically.
_last_parsed: tuple[str, _Parsed] | None = None


def _parse(token: object) -> _Parsed:
    """Header and payload of a compact JWS, unverified. Raises ValueError when malformed."""
    global _last_parsed
    last = _last_parsed
    if last is not None and last[0] == token:
        return last[1]
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise ValueError("not a token string")
    if token == "undefined":
        raise ValueError("the string 'undefined' is not a token")
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("a JWT has three dot-separated parts")
    try:
        header, payload = _b64url_json(parts[0]), _b64url_json(parts[1])
    except (ValueError, UnicodeError, binascii.Error, RecursionError) as exc:
        raise ValueError("header or payload is not base64url JSON") from exc
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise ValueError("header and payload must be JSON objects")  # noqa: TRY004 (callers catch ValueError)
    parsed = _Parsed(header, payload, parts[0], parts[1], parts[2])
    _last_parsed = (token, parsed)
    return parsed


def _split(token: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and payload of a compact JWS, unverified. Raises ValueError when malformed."""
    parsed = _parse(token)
    return parsed.header, parsed.payload


_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


class _Malformed(Exception):
    """What PyJWT would raise before checking the signature; ``kind`` is its error's name."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


_B64URL_VALUE = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}


def _strict_b64url(segment: str) -> str:
    """PyJWT's strict base64url check of a segment (2.15: up to two '=' when the length is
    a multiple of 4, the URL-safe alphabet only, canonical: the bits after the last whole
    byte are zero). Returns the segment without its padding."""
    stripped = segment.rstrip("=")
    padding = len(segment) - len(stripped)
    if padding > 2 or (padding and len(segment) % 4) or not _BASE64URL.fullmatch(stripped):
        raise _Malformed("DecodeError")
    rest = len(stripped) % 4
    if rest == 1 or (rest and _B64URL_VALUE[stripped[-1]] & (0x0F if rest == 2 else 0x03)):
        raise _Malformed("DecodeError")
    return stripped


def _ec_verify(parsed: _Parsed, key: Any, alg: str) -> bool:
    """The ECDSA check of ``parsed`` with ``cryptography``, after the same structural checks
    as ``jwt.PyJWS().decode`` (in its order). True when the signature matches. Raises
    _Malformed where PyJWT raises an error other than InvalidSignatureError."""
    header = parsed.header
    try:
        parsed.signature_segment.encode("utf-8")  # PyJWT encodes the whole token first
    except UnicodeError as exc:
        raise _Malformed(type(exc).__name__) from None
    _strict_b64url(parsed.header_segment)
    if header.get("b64", True) is False:
        raise _Malformed("DecodeError")  # PyJWT wants an empty payload segment (and then a detached payload)
    _strict_b64url(parsed.payload_segment)
    stripped = _strict_b64url(parsed.signature_segment)
    signature = base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    if "kid" in header and not isinstance(header["kid"], str):
        raise _Malformed("InvalidTokenError")
    if "crit" in header:
        crit = header["crit"]
        if not isinstance(crit, list) or not crit:
            raise _Malformed("InvalidTokenError")
        for ext in crit:
            if not isinstance(ext, str) or ext != "b64" or ext not in header:
                raise _Malformed("InvalidTokenError")
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    size = (key.curve.key_size + 7) // 8
    if len(signature) != 2 * size:
        return False
    der = encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))
    signing_input = f"{parsed.header_segment}.{parsed.payload_segment}".encode("ascii")
    try:
        key.verify(der, signing_input, _ECDSA[alg])
    except InvalidSignature:
        return False
    return True


#: Largest time claim accepted (9999-12-31T23:59:59Z, the last second a datetime can hold).
#: A bigger ``exp``, ``iat`` or ``nbf`` (a 400-digit integer, say) makes the token unparsable.
MAX_TIME_CLAIM = 253_402_300_799


def _is_time(value: object) -> bool:
    """A time claim: a number of seconds between the epoch and MAX_TIME_CLAIM."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    # Compared before any float conversion: a huge int would overflow it.
    return (isinstance(value, int) or math.isfinite(value)) and 0 <= value <= MAX_TIME_CLAIM


def token_expiry(token: str) -> float | None:
    """The ``exp`` claim in seconds, read without verifying the signature.

    None means the token has no ``exp`` and never expires (contract 3.7). Raises
    :class:`UnparsableAccessToken` for anything that is not a JWT (including ``"undefined"``)
    or whose ``exp`` is not a number of seconds between 1970 and the year 9999.
    """
    try:
        _, payload = _split(token)
    except ValueError as exc:
        raise UnparsableAccessToken(f"Access token is not parsable: {exc}.") from None
    exp = payload.get("exp")
    if exp is None:
        return None
    if not _is_time(exp):
        raise UnparsableAccessToken(
            "Access token is not parsable: its exp claim is not a number of seconds up to the year 9999."
        )
    return float(exp)


def usable_until(exp: float, min_validity_ms: float = REQUIRED_VALIDITY_MS) -> float:
    """The last instant (seconds) a token expiring at ``exp`` may be used: ``exp`` less the
    required validity. A cache that keeps this number decides with one comparison."""
    return exp - min_validity_ms / 1000


def has_validity(exp: float | None, now: float, min_validity_ms: float = REQUIRED_VALIDITY_MS) -> bool:
    """Whether a token expiring at ``exp`` (seconds; None = never) may be used at ``now``:
    at least ``min_validity_ms`` must remain. Below that it needs refreshing (spec section 4)."""
    return exp is None or now <= usable_until(exp, min_validity_ms)


@dataclass(frozen=True)
class Claims:
    """The checked claims of a verified access token."""

    sub: str
    aud: str
    iss: str
    iat: float | None
    exp: float
    raw: Mapping[str, Any] = field(repr=False, compare=False)

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
        millis = self.raw.get("signed_up_at")
        if isinstance(millis, bool) or not isinstance(millis, (int, float)) or not _MIN_MILLIS <= millis <= _MAX_MILLIS:
            return None
        return _dt.datetime.fromtimestamp(millis / 1000, tz=_dt.timezone.utc)

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


def _typed(claims: Mapping[str, Any], name: str, kind: type[_T]) -> _T | None:
    value = claims.get(name)
    if kind is not bool and isinstance(value, bool):
        return None
    return value if isinstance(value, kind) else None


def _check_key(key: Any, alg: str) -> None:
    if alg.startswith(("RS", "PS")):
        if not isinstance(key, (rsa.RSAPublicKey, rsa.RSAPrivateKey)):
            raise InvalidJwt("key", f"{alg} needs an RSA key.")
        if key.key_size < MIN_RSA_BITS:
            raise InvalidJwt("key", f"RSA keys shorter than {MIN_RSA_BITS} bits are refused ({key.key_size} bits).")
    elif alg in _CURVES:
        if not isinstance(key, (ec.EllipticCurvePublicKey, ec.EllipticCurvePrivateKey)):
            raise InvalidJwt("key", f"{alg} needs an elliptic-curve key.")
        if key.curve.name != _CURVES[alg]:
            raise InvalidJwt("key", f"{alg} needs a {_CURVES[alg]} key, not {key.curve.name}.")


def verify_jwt(
    token: str,
    key: Any,
    *,
    algorithms: Collection[str] = ("RS256",),
    issuer: str | None = None,
    audience: str | None = None,
    require_exp: bool = True,
    leeway: float = CLOCK_TOLERANCE,
    now: float | None = None,
) -> dict[str, Any]:
    """Verify a JWT's signature and claims and return its payload.

    Generic (OAuth ID tokens and the like): RS256 unless ``algorithms`` says otherwise,
    RSA keys under 2048 bits refused. ``key`` is a public key object or a ``jwt.PyJWK``.
    Claim checks: ``exp`` a number in the future, ``nbf`` (if any) a number not in the
    future, both with ``leeway`` seconds of tolerance; ``iat`` (if any) a number; ``iss`` a
    string equal to ``issuer``; ``aud`` a string or list of strings containing ``audience``.
    Raises :class:`authmw.errors.InvalidJwt` with a ``reason``.
    """
    global _last_parsed
    try:
        parsed = _parse(token)
    except ValueError as exc:
        raise InvalidJwt("malformed", f"Not a JWT: {exc}.") from None
    last = _last_parsed
    if last is not None and last[1] is parsed:
        # Used up: the payload returned below shares its nested values with this parse,
        # so a caller changing them must not change what the next call reads.
        _last_parsed = None
    header = parsed.header
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in algorithms or alg.lower() == "none":
        raise InvalidJwt("algorithm", f"Algorithm {alg!r} is not allowed (allowed: {', '.join(sorted(algorithms))}).")
    if isinstance(key, jwt.PyJWK):
        if key.algorithm_name and key.algorithm_name != alg:
            raise InvalidJwt("key", f"The key is for {key.algorithm_name}, the token says {alg}.")
        key = key.key
    _check_key(key, alg)
    if alg in _ECDSA:
        # ECDSA directly with cryptography over the one parse (PyJWT would decode the token
        # again, checking each base64url character in Python): same checks, same errors.
        try:
            valid = _ec_verify(parsed, key, alg)
        except _Malformed as exc:
            raise InvalidJwt("malformed", f"The token could not be verified: {exc.kind}.") from None
        if not valid:
            raise InvalidJwt("signature", "The signature does not match.")
        payload = dict(parsed.payload)  # the caller's own copy; the parse is shared
    else:
        payload = _pyjwt_payload(token, key, alg)
    _check_claims(
        payload,
        issuer=issuer,
        audience=audience,
        require_exp=require_exp,
        leeway=leeway,
        now=time.time() if now is None else now,
    )
    return payload


def _pyjwt_payload(token: str, key: Any, alg: str) -> dict[str, Any]:
    """Verify with PyJWT (RSA and anything but ECDSA) and return the payload."""
    try:
        payload_bytes = jwt.PyJWS().decode(token, key, algorithms=[alg])
    except jwt.InvalidSignatureError:
        raise InvalidJwt("signature", "The signature does not match.") from None
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        raise InvalidJwt("malformed", f"The token could not be verified: {type(exc).__name__}.") from None
    try:
        payload = json.loads(payload_bytes)
    except (ValueError, RecursionError):
        raise InvalidJwt("malformed", "The payload is not JSON.") from None
    if not isinstance(payload, dict):
        raise InvalidJwt("malformed", "The payload is not a JSON object.")
    return payload


def _check_claims(
    payload: Mapping[str, Any],
    *,
    issuer: str | None,
    audience: str | None,
    require_exp: bool,
    leeway: float,
    now: float,
) -> None:
    for name in ("exp", "iat", "nbf"):
        if name in payload and not _is_time(payload[name]):
            raise InvalidJwt("claims", f"The {name} claim must be a number of seconds up to the year 9999.")
    if "iss" in payload and not isinstance(payload["iss"], str):
        raise InvalidJwt("claims", "The iss claim must be a string.")
    aud = payload.get("aud")
    if "aud" in payload and not (
        isinstance(aud, str) or (isinstance(aud, list) and all(isinstance(a, str) for a in aud))
    ):
        raise InvalidJwt("claims", "The aud claim must be a string or a list of strings.")
    exp = payload.get("exp")
    if exp is None:
        if require_exp:
            raise InvalidJwt("claims", "The token has no exp claim.")
    elif exp + leeway <= now:
        raise InvalidJwt("expired", "The token has expired.")
    nbf = payload.get("nbf")
    if nbf is not None and nbf - leeway > now:
        raise InvalidJwt("not_yet_valid", "The token is not valid yet (nbf is in the future).")
    if issuer is not None and payload.get("iss") != issuer:
        raise InvalidJwt("issuer", "The token was issued by someone else.")
    if audience is not None and not (aud == audience or (isinstance(aud, list) and audience in aud)):
        raise InvalidJwt("audience", "The token is for another audience.")


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
        self._clock = clock
        self._monotonic = monotonic
        self._min_refetch = jwks_min_refetch_interval
        self._ttl = jwks_ttl
        self._leeway = leeway
        self._cache_size = cache_size
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at: float | None = None  # monotonic time of the last good fetch
        self._attempted_at: float | None = None  # monotonic time of the last fetch attempt
        self._last_error: BaseException | None = None
        self._verified: OrderedDict[str, tuple[float, Claims]] = OrderedDict()
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
            with self._lock:
                self._verified.pop(token, None)
            return None
        with self._lock:
            if token in self._verified:
                self._verified.move_to_end(token)
        return claims

    def verify(self, token: str) -> Op[Claims]:
        """Verify an access token of this project. Raises InvalidAccessToken subclasses.

        When the key set cannot be fetched the fetch's error is raised (NetworkError,
        HttpStatusError or InvalidServerResponse): that says nothing about the token.
        """
        claims = self.verify_cached(token)
        if claims is not None:
            return claims
        try:
            header, _ = _split(token)
        except ValueError as exc:
            raise UnparsableAccessToken(f"Access token is not parsable: {exc}.") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ACCESS_TOKEN_ALGORITHMS:
            raise UnparsableAccessToken(f"Access token is not parsable: algorithm {alg!r} is not ES256.")
        if not isinstance(kid, str) or not kid:
            raise UnparsableAccessToken("Access token is not parsable: it names no signing key (kid).")
        key = yield from self._key(kid)
        claims = self._check(token, key)
        self._remember(token, claims)
        return claims

    def _check(self, token: str, key: jwt.PyJWK) -> Claims:
        self.signature_checks += 1
        try:
            payload = verify_jwt(
                token,
                key,
                algorithms=ACCESS_TOKEN_ALGORITHMS,
                issuer=ACCESS_TOKEN_ISSUER,
                audience=self.project_id,
                leeway=self._leeway,
                now=self._clock(),
            )
        except InvalidJwt as exc:
            if exc.reason == "expired":
                _, payload = _split(token)
                exp_millis = int(payload["exp"] * 1000)
                when = _dt.datetime.fromtimestamp(payload["exp"], tz=_dt.timezone.utc).isoformat()
                raise AccessTokenExpired(
                    f"Access token has expired. Please refresh it and try again. (It expired at {when}.)",
                    {"expired_at_millis": exp_millis},
                ) from None
            if exc.reason == "audience":
                raise InvalidProjectForAccessToken() from None
            raise UnparsableAccessToken(f"Access token is not parsable: {exc}") from None
        sub = payload.get("sub")
        if not isinstance(sub, str) or not sub:
            raise UnparsableAccessToken("Access token is not parsable: its sub claim is not a user id.")
        iat = payload.get("iat")
        return Claims(
            sub=sub,
            aud=self.project_id,
            iss=payload["iss"],
            iat=float(iat) if iat is not None else None,
            exp=float(payload["exp"]),
            raw=payload,
        )

    def _remember(self, token: str, claims: Claims) -> None:
        with self._lock:
            self._verified[token] = (claims.exp + self._leeway, claims)
            self._verified.move_to_end(token)
            while len(self._verified) > self._cache_size:
                self._verified.popitem(last=False)

    # -- key set -------------------------------------------------------------------------

    def _fresh(self, now: float) -> bool:
        return self._fetched_at is not None and now - self._fetched_at < self._ttl

    def _key(self, kid: str) -> Op[jwt.PyJWK]:
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
        raise UnparsableAccessToken(
            "Access token is not parsable: it was signed with a key this project does not have."
        )

    def _fetch(self) -> Op[dict[str, jwt.PyJWK]]:
        request = Request("GET", self.jwks_url, {"accept": "application/json"})
        response = yield Send(request)
        if response.status_code != 200:
            raise HttpStatusError(response.status_code, response.content, method="GET", url=self.jwks_url)
        return parse_jwks(response.content, self.jwks_url)


def parse_jwks(content: bytes, url: str = "") -> dict[str, jwt.PyJWK]:
    """kid -> key for the usable keys of a JWKS document."""
    try:
        document = json.loads(content)
        keys = document["keys"]
        if not isinstance(keys, list):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        raise InvalidServerResponse(f"The key set at {url} is not a JWKS document.") from None
    usable: dict[str, jwt.PyJWK] = {}
    for entry in keys:
        if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str):
            continue
        try:
            usable[entry["kid"]] = jwt.PyJWK(entry)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue
    if not usable:
        raise InvalidServerResponse(f"The key set at {url} has no usable key.")
    return usable
