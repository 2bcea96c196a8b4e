"""JSON Web Tokens in general: the unverified read of a compact JWS, and verification.

Every check of a token's form, header, algorithm, key and signature is PyJWT's: a token is
read once, by PyJWT's reader (:func:`parse`), and verified from that reading by the steps of
``jwt.PyJWT.decode_complete`` that follow its reader, each PyJWT's own method
(:func:`verify_parsed`), so a token read for its ``exp`` or ``kid`` is not read again to be
verified (pyproject pins the versions whose behaviour and private methods the tests pin).
authmw adds the rules PyJWT cannot hold: the time claims are checked against an injectable
clock (PyJWT reads the wall clock) and must be numbers of seconds (PyJWT converts strings,
booleans and fractions with ``int()``); the comparisons are PyJWT's own.
``tests/core/test_tokens_pyjwt.py`` holds both to the same answers as ``jwt.decode``.

Two of PyJWT's reading steps are given faster bodies that answer exactly as PyJWT's do (each
compared with PyJWT's own on arbitrary input by those tests): a segment's strict base64url
rule, and the reader itself, which remembers the few header segments it has read (every token
one key signs has the same header) so a token's header is not decoded and parsed again; the
payload is parsed by ``json``'s own scanner without ``json.loads``' wrappers.

A key set's key is made ready for that check once (:func:`prepare_key`: PyJWT's own
``prepare_key`` and key-length rule, run when the key set is read), and each token then costs
PyJWT's allow-list comparisons and its algorithm's ``verify`` alone.

Nothing here knows the service or a project: :mod:`authmw._tokens` builds the access-token
verifier (key set, cache, the service's claims) on top of it. No state.
"""

from __future__ import annotations

import binascii
import json
import math
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, NamedTuple

import jwt

from ._bounded import BoundedMap
from .errors import InvalidJwt

__all__ = [
    "CLOCK_TOLERANCE",
    "MAX_TIME_CLAIM",
    "MAX_TOKEN_LENGTH",
    "Parsed",
    "PreparedKey",
    "is_time",
    "parse",
    "prepare_key",
    "verify_jwt",
    "verify_parsed",
]

#: Seconds of clock skew accepted on ``exp``, ``nbf`` and ``iat``.
CLOCK_TOLERANCE = 30.0
#: Longer strings are not tokens: not parsed, and absent when read from a cookie or header
#: (a JWT of the service is about 400 bytes; a browser cookie holds at most 4 KiB).
MAX_TOKEN_LENGTH = 8192
#: Largest time claim accepted (9999-12-31T23:59:59Z, the last second a datetime can hold).
#: A bigger ``exp``, ``iat`` or ``nbf`` (a 400-digit integer, say) makes the token unparsable.
MAX_TIME_CLAIM = 253_402_300_799

#: The base64url alphabet: what is left of a segment once these are deleted is not base64url.
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
#: Per byte of the alphabet, the bits a last character may not set in a segment whose
#: length modulo 4 is 2 (four spare bits) and 3 (two): a segment with such a bit set does
#: not come back unchanged from decoding and encoding again (PyJWT's "canonical" rule).
_SPARE_BITS = {
    2: frozenset(c for i, c in enumerate(_ALPHABET) if i & 0xF),
    3: frozenset(c for i, c in enumerate(_ALPHABET) if i & 0x3),
}


class _PyJWS(jwt.PyJWS):
    """PyJWS with one method given a faster body: its strict base64url rule for a segment
    (the alphabet, at most two "=" and only to a multiple of 4, no length of 1 modulo 4, a
    canonical last character), checked by deleting the alphabet's bytes (``bytes.translate``)
    and a look-up of the last character instead of a Python loop over every character and an
    encoding back (PyJWT's loop costs more than the signature check itself on a first-seen
    token: bench/inprocess.py, verify 213 -> 123 us). The rule and the error are PyJWT's;
    tests/core/test_tokens_pyjwt.py compares both on arbitrary segments."""

    @staticmethod
    def _decode_base64url_segment(segment: bytes, name: str) -> bytes:
        stripped = segment.rstrip(b"=")
        padding = len(segment) - len(stripped)
        rest = len(stripped) % 4
        if (
            padding > 2
            or stripped.translate(None, _ALPHABET)  # a byte outside the alphabet
            or rest == 1
            or (padding and len(segment) % 4)
            or (rest > 1 and stripped[-1] in _SPARE_BITS[rest])
        ):
            raise jwt.DecodeError(f"Invalid {name} padding")
        return binascii.a2b_base64(stripped.translate(_URLSAFE_TO_STANDARD) + b"==")

    def _load(self, jwt: str | bytes) -> tuple[bytes, bytes, dict[str, Any], bytes]:
        """PyJWT's reader, its header segment read once: a header segment PyJWT's reader has
        read before (every token a key signs has the same one) is not decoded and parsed
        again. The memo holds only headers PyJWT accepted whose values are all strings, each
        handed out as a new dict; what PyJWT's
        reader does after the header (the payload, then the signature, with its errors) is
        done as it does it. Anything else, new or unusual, is PyJWT's own ``_load``."""
        data = jwt.encode("utf-8") if isinstance(jwt, str) else jwt
        if isinstance(data, bytes):
            signing_input, dot, crypto_segment = data.rpartition(b".")
            header_segment, dot2, payload_segment = signing_input.partition(b".")
            if dot and dot2:
                known = _HEADERS.get(header_segment)
                if known is not None:
                    payload = self._decode_base64url_segment(payload_segment, "payload")
                    return payload, signing_input, dict(known), self._decode_base64url_segment(crypto_segment, "crypto")
        loaded = super()._load(jwt)
        header = loaded[2]
        # (string values only: never ``b64`` false, PyJWT's detached payload, nor a list or
        # object a caller could change inside the memo)
        if len(header_segment) <= HEADER_MEMO_MAX_KEY and all(type(value) is str for value in header.values()):
            _HEADERS.put(header_segment, dict(header))
        return loaded


#: Header segments PyJWT's reader has read -> their header (see ``_PyJWS._load``): the few
#: signing keys of a key set give the few headers of every token. Bounded: a made-up header
#: only pushes out an older one.
HEADER_MEMO_SIZE = 64
HEADER_MEMO_MAX_KEY = 512
_HEADERS: BoundedMap[bytes, dict[str, Any]] = BoundedMap(HEADER_MEMO_SIZE, HEADER_MEMO_MAX_KEY)


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


#: The options PyJWT's own decode would pass on: its signature options (the key-length rule)
#: and, for each combination of an audience and an issuer to check, its claim options.
_SIG_OPTIONS = _PYJWT._get_sig_options()
_CLAIM_OPTIONS = {
    (aud, iss): _PYJWT._merge_options({"verify_aud": aud, "verify_iss": iss}) for aud in (False, True) for iss in (False, True)
}


#: Whether PyJWT's claim check, with neither an audience nor an issuer to check, does only
#: its ``sub`` and ``jti`` checks under these options (no required claim, no time claim: those
#: are :func:`_check_times`): then :func:`verify_parsed` calls those two alone.
_SUBJECT_AND_ID_ONLY = _CLAIM_OPTIONS[False, False] == {
    **_CLAIM_OPTIONS[False, False],
    "verify_exp": False,
    "verify_nbf": False,
    "verify_iat": False,
    "verify_aud": False,
    "verify_iss": False,
    "verify_sub": True,
    "verify_jti": True,
    "require": [],
}

#: Tuples of algorithm names already found to hold no "none" (see :func:`_refuse_unsigned`).
_SIGNED_ONLY: set[tuple[str, ...]] = set()


def _refuse_unsigned(algorithms: Collection[str]) -> None:
    """Raise ValueError when ``algorithms`` allows unsigned tokens ("none", any case); a
    tuple found to be free of it is remembered (a few dozen at most: callers pass constants)."""
    if any(alg.lower() == "none" for alg in algorithms):
        raise ValueError("Unsigned tokens (alg 'none') are never accepted.")
    if type(algorithms) is tuple and len(_SIGNED_ONLY) < 64:
        _SIGNED_ONLY.add(algorithms)


class Parsed(NamedTuple):
    """A compact JWS read once by PyJWT's own reader, not verified (see :func:`parse`): what
    :func:`verify_parsed` hands to PyJWT's signature check, with no second pass."""

    header: dict[str, Any]
    payload: dict[str, Any]
    signing_input: bytes
    signature: bytes


class PreparedKey(NamedTuple):
    """A key set's ``jwt.PyJWK`` made ready for PyJWT's signature check once, not per token
    (see :func:`prepare_key`): its algorithm (fixed when the PyJWK was built), the key as that
    algorithm's ``prepare_key`` returns it, and the error PyJWT's check would raise for this
    key on every token (its curve or length refused), None for a usable key."""

    jwk: jwt.PyJWK
    key: Any
    error: Exception | None


def prepare_key(jwk: jwt.PyJWK) -> PreparedKey:
    """The steps of PyJWT's signature check (``PyJWS._verify_signature``) that depend on the
    key alone, run once: the algorithm's ``prepare_key`` (the curve an EC key must have, ...)
    and its ``check_key_length`` under ``enforce_minimum_key_length`` (RSA under 2048 bits).
    Their error is kept, not raised: it is the answer to every token checked with the key,
    given where PyJWT gives it, after the token's algorithm was found allowed."""
    algorithm = jwk.Algorithm
    try:
        key = algorithm.prepare_key(jwk.key)
        message = algorithm.check_key_length(key)
        if message and _SIG_OPTIONS.get("enforce_minimum_key_length", False):
            raise jwt.InvalidKeyError(message)
    except Exception as exc:  # whatever PyJWT raises there, raised for each token instead
        return PreparedKey(jwk, None, exc)
    return PreparedKey(jwk, key, None)


def parse(token: object) -> Parsed:
    """A compact JWS read by PyJWT's reader (``PyJWS._load``: the three segments split and
    decoded under its strict base64url rule, the header as a JSON object) and its payload by
    PyJWT's (``PyJWT._decode_payload``: a JSON object), unverified: to read ``exp``, ``kid``
    and ``aud`` before verifying, and then to verify without reading the token again.
    Raises :class:`authmw.errors.InvalidJwt` (a ValueError) with reason "malformed"."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise InvalidJwt("malformed", "Not a JWT: not a token string.")
    if token == "undefined":
        raise InvalidJwt("malformed", "Not a JWT: the string 'undefined' is not a token.")
    try:
        payload, signing_input, header, signature = _PYJWT._jws._load(token)
        return Parsed(header, _json_object(payload), signing_input, signature)
    except (jwt.PyJWTError, ValueError, RecursionError) as exc:
        raise InvalidJwt("malformed", f"The token could not be verified: {type(exc).__name__}.") from None


#: json.loads' own scanner (its default decoder's: the same parse of a value as json.loads).
_SCAN: Callable[[str, int], tuple[Any, int]] = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _json_object(raw: bytes) -> dict[str, Any]:
    """The payload as ``PyJWT._decode_payload`` reads it (``json.loads`` of the bytes, a JSON
    object), a step shorter: the text decoded directly when ``json.detect_encoding`` would
    call it UTF-8 (an object's first byte, then not a NUL)."""
    if raw[:1] == b"{" and raw[1:2] != b"\x00":
        # json.loads of that text, without its wrappers: the scanner from the first byte, then
        # nothing but JSON's blanks after the object; anything else takes json.loads below.
        try:
            text = raw.decode("utf-8", "surrogatepass")
            payload, end = _SCAN(text, 0)
            if end == len(text) or not text[end:].strip(" \t\n\r"):
                return payload  # type: ignore[no-any-return]  # (a JSON object: "{" began it)
        except (StopIteration, ValueError, RecursionError):
            pass
    try:
        if raw[:1] == b"{" and raw[1:2] != b"\x00":
            payload = json.loads(raw.decode("utf-8", "surrogatepass"))
        else:
            payload = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise jwt.DecodeError(f"Invalid payload string: {exc}") from exc
    if not isinstance(payload, dict):
        raise jwt.DecodeError("Invalid payload string: must be a json object")
    return payload


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
    ``key`` may also be a :class:`PreparedKey` (a key set's keys, checked many times).
    """
    return verify_parsed(
        parse(token),
        key,
        algorithms=algorithms,
        issuer=issuer,
        audience=audience,
        require_exp=require_exp,
        leeway=leeway,
        now=now,
    )


def verify_parsed(
    parsed: Parsed,
    key: Any,
    *,
    algorithms: Collection[str] = ("RS256",),
    issuer: str | None = None,
    audience: str | None = None,
    require_exp: bool = True,
    leeway: float = CLOCK_TOLERANCE,
    now: float | None = None,
) -> dict[str, Any]:
    """:func:`verify_jwt` of a token :func:`parse` has read: the steps of PyJWT's
    ``decode_complete`` after its reader, each PyJWT's own (the header rules, the signature
    check that decides the algorithm and the key, the claim checks), then the time claims.
    Returns the parse's payload (the caller's own: a new parse gives a new one)."""
    if type(algorithms) is not tuple or algorithms not in _SIGNED_ONLY:
        _refuse_unsigned(algorithms)
    header, payload = parsed.header, parsed.payload
    try:
        _PYJWT._jws._validate_headers(header)
        if header.get("b64", True) is False:  # PyJWT: a detached payload only, never given here
            raise jwt.DecodeError("A token with b64 false has a detached payload.")
        if isinstance(key, PreparedKey):
            _verify_prepared(parsed, key, algorithms)
        else:
            _PYJWT._jws._verify_signature(
                parsed.signing_input, header, parsed.signature, key, list(algorithms), options=_SIG_OPTIONS
            )
        if audience is None and issuer is None and _SUBJECT_AND_ID_ONLY:
            # All PyJWT's claim check does then (it reads the wall clock for nothing first).
            _PYJWT._validate_sub(payload)
            _PYJWT._validate_jti(payload)
        else:
            _PYJWT._validate_claims(
                payload,
                _CLAIM_OPTIONS[audience is not None, issuer is not None],
                audience=audience,
                issuer=issuer,
                leeway=leeway,
            )
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


def _verify_prepared(parsed: Parsed, key: PreparedKey, algorithms: Collection[str]) -> None:
    """``PyJWS._verify_signature`` for a PyJWK, in its order and with its errors, the steps
    that depend on the key alone done beforehand by :func:`prepare_key`: the token's ``alg``
    present and allowed, equal to the algorithm the PyJWK was built for, then the key's
    prepared answer, then the signature decided by the PyJWK's own algorithm object
    (``Algorithm.verify``: PyJWT's conversion of the signature and cryptography's check)."""
    header = parsed.header
    try:
        alg = header["alg"]
    except KeyError:
        raise jwt.InvalidAlgorithmError("Algorithm not specified") from None
    if not alg or alg not in (algorithms if isinstance(algorithms, (list, tuple)) else list(algorithms)):
        raise jwt.InvalidAlgorithmError("The specified alg value is not allowed")
    jwk = key.jwk
    if alg != jwk.algorithm_name:
        raise jwt.InvalidAlgorithmError(f"Token algorithm {alg!r} does not match the key's algorithm {jwk.algorithm_name!r}")
    if key.error is not None:
        raise key.error.with_traceback(None)  # (a traceback kept would grow with every raise)
    if not jwk.Algorithm.verify(parsed.signing_input, key.key, parsed.signature):
        raise jwt.InvalidSignatureError("Signature verification failed")


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
