"""JSON Web Tokens in general: the unverified read of a compact JWS, and verification.

Every check of a token's form, header, algorithm, key and signature is PyJWT's
(``jwt.PyJWT.decode_complete``; pyproject pins the versions whose behaviour the tests pin).
authmw adds the rules PyJWT cannot hold: the time claims are checked against an injectable
clock (PyJWT reads the wall clock) and must be numbers of seconds (PyJWT converts strings,
booleans and fractions with ``int()``); the comparisons are PyJWT's own.
``tests/core/test_tokens_pyjwt.py`` holds both to the same answers.

Nothing here knows the service or a project: :mod:`authmw._tokens` builds the access-token
verifier (key set, cache, the service's claims) on top of it. No state.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import time
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

import jwt

from .errors import InvalidJwt

__all__ = [
    "CLOCK_TOLERANCE",
    "MAX_TIME_CLAIM",
    "MAX_TOKEN_LENGTH",
    "Parsed",
    "is_time",
    "parse",
    "verify_jwt",
]

#: Seconds of clock skew accepted on ``exp``, ``nbf`` and ``iat``.
CLOCK_TOLERANCE = 30.0
#: Longer strings are not tokens: not parsed, and absent when read from a cookie or header
#: (a JWT of the service is about 400 bytes; a browser cookie holds at most 4 KiB).
MAX_TOKEN_LENGTH = 8192
#: Largest time claim accepted (9999-12-31T23:59:59Z, the last second a datetime can hold).
#: A bigger ``exp``, ``iat`` or ``nbf`` (a 400-digit integer, say) makes the token unparsable.
MAX_TIME_CLAIM = 253_402_300_799

_BASE64URL = re.compile(rb"[A-Za-z0-9_-]*")


class _PyJWS(jwt.PyJWS):
    """PyJWS with one method given a faster body: its strict base64url rule for a segment,
    checked by a regular expression instead of a Python loop over every character (PyJWT's
    loop costs more than the signature check itself on a first-seen token: bench/inprocess.py,
    verify 213 -> 123 us). The rule and the error are PyJWT's;
    tests/core/test_tokens_pyjwt.py compares both on arbitrary segments."""

    @staticmethod
    def _decode_base64url_segment(segment: bytes, name: str) -> bytes:
        stripped = segment.rstrip(b"=")
        padding = len(segment) - len(stripped)
        if padding > 2 or (padding and len(segment) % 4) or len(stripped) % 4 == 1 or not _BASE64URL.fullmatch(stripped):
            raise jwt.DecodeError(f"Invalid {name} padding")
        decoded = base64.urlsafe_b64decode(stripped + b"=" * (-len(stripped) % 4))
        if base64.urlsafe_b64encode(decoded).rstrip(b"=") != stripped:
            raise jwt.DecodeError(f"Invalid {name} padding")
        return decoded


#: PyJWT with its strictest token checks (RSA keys under 2048 bits refused) and without the
#: claim checks that read the wall clock: those are :func:`_check_times`.
_PYJWT = jwt.PyJWT(
    {
        "enforce_minimum_key_length": True,
        "verify_exp": False,
        "verify_nbf": False,
        "verify_iat": False,
    }
)
_PYJWT._jws = _PyJWS(options=_PYJWT._get_sig_options())  # as PyJWT's own module-level decode sets it


class Parsed(NamedTuple):
    """Header and payload of a compact JWS, decoded and not verified (see :func:`parse`)."""

    header: dict[str, Any]
    payload: dict[str, Any]


_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def _b64url_json(segment: str) -> Any:
    """``json.loads(base64.urlsafe_b64decode(segment + padding))``, a few steps shorter."""
    raw = binascii.a2b_base64((segment + "=" * (-len(segment) % 4)).encode("ascii").translate(_URLSAFE_TO_STANDARD))
    if raw[:1] == b"{" and raw[1:2] != b"\x00":  # what json.detect_encoding calls UTF-8
        return json.loads(raw.decode("utf-8", "surrogatepass"))
    return json.loads(raw)


def parse(token: object) -> Parsed:
    """Header and payload of a compact JWS, unverified (to read ``exp``, ``kid`` and ``aud``
    before verifying). Raises ValueError when malformed."""
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
    return Parsed(header, payload)


def is_time(value: object) -> bool:
    """A time claim: a number of seconds between the epoch and MAX_TIME_CLAIM."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    # Compared before any float conversion: a huge int would overflow it.
    return (isinstance(value, int) or math.isfinite(value)) and 0 <= value <= MAX_TIME_CLAIM


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
    Claim checks: ``exp`` a number in the future, ``nbf`` and ``iat`` (if any) numbers not
    in the future, each with ``leeway`` seconds of tolerance; ``iss`` a string equal to
    ``issuer``; ``aud`` a string or list of strings containing ``audience`` (not checked
    without ``audience``). Raises :class:`authmw.errors.InvalidJwt` with a ``reason``.
    """
    if any(alg.lower() == "none" for alg in algorithms):
        raise ValueError("Unsigned tokens (alg 'none') are never accepted.")
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        raise InvalidJwt("malformed", "Not a JWT: not a token string.")
    options: jwt.types.Options = {"verify_aud": audience is not None, "verify_iss": issuer is not None}
    try:
        payload: dict[str, Any] = _PYJWT.decode_complete(
            token, key, algorithms=list(algorithms), options=options, audience=audience, issuer=issuer
        )["payload"]
    except jwt.InvalidSignatureError:
        raise InvalidJwt("signature", "The signature does not match.") from None
    except jwt.InvalidAlgorithmError:
        allowed = ", ".join(sorted(algorithms))
        raise InvalidJwt("algorithm", f"The token's algorithm is not allowed (allowed: {allowed}).") from None
    except (jwt.InvalidKeyError, TypeError) as exc:  # PyJWT: TypeError for a key of another type
        raise InvalidJwt("key", f"The key does not fit the token's algorithm: {exc}") from None
    except jwt.InvalidIssuerError:
        raise InvalidJwt("issuer", "The token was issued by someone else.") from None
    except jwt.InvalidAudienceError:
        raise InvalidJwt("audience", "The token is for another audience.") from None
    except jwt.MissingRequiredClaimError as exc:
        raise InvalidJwt("claims", f"The token has no {exc.claim} claim.") from None
    except (jwt.exceptions.InvalidSubjectError, jwt.exceptions.InvalidJTIError) as exc:
        raise InvalidJwt("claims", f"{exc}.") from None
    except (jwt.PyJWTError, ValueError) as exc:
        raise InvalidJwt("malformed", f"The token could not be verified: {type(exc).__name__}.") from None
    _check_times(payload, require_exp=require_exp, leeway=leeway, now=time.time() if now is None else now)
    return payload


def _check_times(payload: Mapping[str, Any], *, require_exp: bool, leeway: float, now: float) -> None:
    """The time claims: numbers of seconds (:func:`is_time`), compared as PyJWT compares them
    (on their whole seconds, ``int()``) but with ``now`` from the caller's clock."""
    for name in ("exp", "iat", "nbf"):
        if name in payload and not is_time(payload[name]):
            raise InvalidJwt("claims", f"The {name} claim must be a number of seconds up to the year 9999.")
    exp, nbf, iat = payload.get("exp"), payload.get("nbf"), payload.get("iat")
    if iat is not None and int(iat) > now + leeway:
        raise InvalidJwt("not_yet_valid", "The token is not valid yet (iat is in the future).")
    if nbf is not None and int(nbf) > now + leeway:
        raise InvalidJwt("not_yet_valid", "The token is not valid yet (nbf is in the future).")
    if exp is None:
        if require_exp:
            raise InvalidJwt("claims", "The token has no exp claim.")
    elif int(exp) <= now - leeway:
        raise InvalidJwt("expired", "The token has expired.")
