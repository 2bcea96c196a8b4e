"""JSON Web Tokens in general: a compact JWS parsed once, PyJWT's strict structural checks,
the signature (ECDSA with ``cryptography`` directly, anything else through PyJWT) and the
registered claims (``exp``, ``nbf``, ``iat``, ``iss``, ``aud``).

Nothing here knows the service or a project: :mod:`authmw._tokens` builds the access-token
verifier (key set, cache, the service's claims) on top of it. No state.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
import time
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

import jwt
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from .errors import InvalidJwt

__all__ = [
    "CLOCK_TOLERANCE",
    "MAX_TIME_CLAIM",
    "MAX_TOKEN_LENGTH",
    "MIN_RSA_BITS",
    "Parsed",
    "is_time",
    "parse",
    "verify_jwt",
]

#: Seconds of clock skew accepted on ``exp`` and ``nbf`` (spec section 9).
CLOCK_TOLERANCE = 30.0
#: Smallest RSA modulus accepted for RS* signatures (spec section 9).
MIN_RSA_BITS = 2048
#: Longer strings are not tokens: not parsed, and absent when read from a cookie or header
#: (a JWT of the service is about 400 bytes; a browser cookie holds at most 4 KiB).
MAX_TOKEN_LENGTH = 8192
_CURVES = {"ES256": "secp256r1", "ES384": "secp384r1", "ES512": "secp521r1"}
_ECDSA = {
    "ES256": ec.ECDSA(hashes.SHA256()),
    "ES384": ec.ECDSA(hashes.SHA384()),
    "ES512": ec.ECDSA(hashes.SHA512()),
}


_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def _b64url_json(segment: str) -> Any:
    """``json.loads(base64.urlsafe_b64decode(segment + padding))``, a few steps shorter."""
    padded = segment + "=" * (-len(segment) % 4)
    raw = binascii.a2b_base64(padded.encode("ascii").translate(_URLSAFE_TO_STANDARD))
    if raw[:1] == b"{" and raw[1:2] != b"\x00":  # what json.detect_encoding calls UTF-8
        return json.loads(raw.decode("utf-8", "surrogatepass"))
    return json.loads(raw)


@functools.lru_cache(maxsize=64)
def _header(segment: str) -> Any:
    """The decoded JOSE header: every token of one signing key has the same one, so it is
    decoded once. The dictionary is shared: nobody may change it."""
    return _b64url_json(segment)


class Parsed(NamedTuple):
    """A compact JWS split and decoded once (see :func:`parse`)."""

    header: dict[str, Any]
    payload: dict[str, Any]
    header_segment: str
    payload_segment: str
    signature_segment: str


def parse(token: object) -> Parsed:
    """Header and payload of a compact JWS, unverified. Raises ValueError when malformed."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise ValueError("not a token string")
    if token == "undefined":
        raise ValueError("the string 'undefined' is not a token")
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("a JWT has three dot-separated parts")
    try:
        header, payload = _header(parts[0]), _b64url_json(parts[1])
    except (ValueError, UnicodeError, binascii.Error, RecursionError) as exc:
        raise ValueError("header or payload is not base64url JSON") from exc
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise ValueError("header and payload must be JSON objects")  # noqa: TRY004 (callers catch ValueError)
    return Parsed(header, payload, parts[0], parts[1], parts[2])


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


#: The header segment is the same for every token of a key: checked once.
_strict_header = functools.lru_cache(maxsize=64)(_strict_b64url)


def _ec_verify(parsed: Parsed, key: Any, alg: str) -> bool:
    """The ECDSA check of ``parsed`` with ``cryptography``, after the same structural checks
    as ``jwt.PyJWS().decode`` (in its order). True when the signature matches. Raises
    _Malformed where PyJWT raises an error other than InvalidSignatureError."""
    header = parsed.header
    try:
        parsed.signature_segment.encode("utf-8")  # PyJWT encodes the whole token first
    except UnicodeError as exc:
        raise _Malformed(type(exc).__name__) from None
    _strict_header(parsed.header_segment)
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


def is_time(value: object) -> bool:
    """A time claim: a number of seconds between the epoch and MAX_TIME_CLAIM."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    # Compared before any float conversion: a huge int would overflow it.
    return (isinstance(value, int) or math.isfinite(value)) and 0 <= value <= MAX_TIME_CLAIM


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
    parsed: Parsed | None = None,
) -> dict[str, Any]:
    """Verify a JWT's signature and claims and return its payload.

    Generic (OAuth ID tokens and the like): RS256 unless ``algorithms`` says otherwise,
    RSA keys under 2048 bits refused. ``key`` is a public key object or a ``jwt.PyJWK``.
    Claim checks: ``exp`` a number in the future, ``nbf`` (if any) a number not in the
    future, both with ``leeway`` seconds of tolerance; ``iat`` (if any) a number; ``iss`` a
    string equal to ``issuer``; ``aud`` a string or list of strings containing ``audience``.
    Raises :class:`authmw.errors.InvalidJwt` with a ``reason``. ``parsed`` is
    ``parse(token)`` when the caller has it already (the token is then not parsed again).
    """
    if parsed is None:
        try:
            parsed = parse(token)
        except ValueError as exc:
            raise InvalidJwt("malformed", f"Not a JWT: {exc}.") from None
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
        if name in payload and not is_time(payload[name]):
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
