"""Access tokens are verified as PyJWT verifies them: a differential property test.

Every check of a token's form, header, algorithm, key and signature is PyJWT's; authmw adds
the time claims on an injectable clock and the service's rules (the kinds of
``authmw/token_kinds.json``: which issuer goes with which audience, the main branch, a user
id). The oracle below is PyJWT alone, as an app would use it by the book: the key of the
token's ``kid`` from the key set (``PyJWKSet``), ``jwt.decode`` with the audiences and issuers
of the kinds the app accepts, 30 s of leeway, its clock set to the test's; then the
service's rules, each stated once here. For every token, valid or hostile, the verifier and
the oracle must give the same answer: the same claims, or both refusing. The one place the
verifier is stricter: a time claim that is not a number of seconds (PyJWT reads ``"123"``,
``true`` and ``1e300`` through ``int()``) is refused.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import time
from typing import Any
from unittest import mock

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from hypothesis import HealthCheck, event, given, settings, strategies as st

from authmw import AuthConfig, _jwt
from authmw._jwt import is_time
from authmw._tokens import _TABLE, LEGACY_ISSUER, TokenVerifier, token_expiry, verify_jwt
from authmw.errors import (
    AnonymousAuthenticationNotAllowed,
    InvalidAccessToken,
    InvalidJwt,
    RestrictedUserNotAllowed,
    UnparsableAccessToken,
)

from .conftest import Recorder, SigningKey, b64url

#: Order of the P-256 group.
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
API = "http://auth.test"
PID = "6f1b1c52-3c1e-4f0e-9d4a-2a4f3b5c6d7e"
KEY = SigningKey(kid="key-1")
#: Not in the key set; signs under KEY's kid (a forgery) or its own.
STRANGER = SigningKey(kid="key-1")
#: A P-384 key in the key set (as ES384): a token naming it says ES256.
P384 = ec.generate_private_key(ec.SECP384R1())
P384_KID = "key-384"
JWKS = {
    "keys": [
        KEY.jwk(),
        {**json.loads(jwt.algorithms.ECAlgorithm.to_jwk(P384.public_key())), "kid": P384_KID, "alg": "ES384"},
    ]
}
LEEWAY = 30.0
NOW = 1_800_000_000.0


def run(verifier: TokenVerifier, recorder: Recorder, token: str):
    return recorder.sync_driver().run(verifier.verify(token))


def with_signature(token: str, signature: str) -> str:
    return token.rsplit(".", 1)[0] + "." + signature


def raw_signature(token: str) -> tuple[int, int]:
    sig = base64.urlsafe_b64decode(token.rsplit(".", 1)[1] + "==")
    return int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")


def too_high(s: int) -> int:
    """s + n when it fits in 32 bytes (the same s modulo n), else the largest 32-byte number."""
    return s + N if s + N < 2**256 else 2**256 - 1


def encode_rs(r: int, s: int, size: int = 32) -> str:
    return b64url(r.to_bytes(size, "big") + s.to_bytes(size, "big"))


def sign_text(private: Any, head: str, body: str, size: int = 32) -> str:
    """``head.body`` signed with ``private`` (SHA-256, any curve) as r||s of ``size`` bytes each."""
    h, p = b64url(head.encode()), b64url(body.encode())
    r, s = decode_dss_signature(private.sign(f"{h}.{p}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{h}.{p}.{encode_rs(r, s, size)}"


# -- the oracle: PyJWT by the book, then the service's rules -------------------------------


class _Issuers:
    """The issuers PyJWT accepts, a trailing slash allowed (the service's tokens may have one)."""

    def __init__(self, issuers: set[str]) -> None:
        self.issuers = issuers

    def __contains__(self, iss: object) -> bool:
        return isinstance(iss, str) and iss.rstrip("/") in self.issuers


def kinds(config: AuthConfig) -> dict[str, tuple[str, set[str]]]:
    """audience -> (kind, its issuers) of the kinds the app accepts, from token_kinds.json."""
    accepted = {"user": True, "restricted": config.allow_restricted or config.allow_anonymous,
                "anonymous": config.allow_anonymous}
    found = {}
    for name, spec in _TABLE["kinds"].items():
        if accepted[name]:
            issuers = {API + spec["issuer_path"].format(project_id=PID)}
            if not spec["audience_suffix"]:
                issuers.add(LEGACY_ISSUER)
            found[PID + spec["audience_suffix"]] = (name, issuers)
    return found


class _Clock:
    """Stands in for PyJWT's ``datetime``: ``now()`` is the test's clock."""

    def __init__(self, now: float) -> None:
        self._now = now

    def now(self, tz: Any = None) -> _dt.datetime:
        return _dt.datetime.fromtimestamp(self._now, tz=tz)


def oracle(config: AuthConfig, token: str, now: float) -> dict[str, Any] | None:
    """The claims PyJWT accepts ``token`` with, under the service's rules; None: refused."""
    try:
        kid = jwt.get_unverified_header(token).get("kid")
        key = jwt.PyJWKSet.from_dict(JWKS)[kid]
        accepted = kinds(config)
        issuers = set().union(*(issuers for _, issuers in accepted.values()))
        with mock.patch.object(jwt.api_jwt, "datetime", _Clock(now)):
            claims = jwt.decode(
                token,
                key,
                algorithms=["ES256"],
                audience=list(accepted),
                issuer=_Issuers(issuers),
                leeway=LEEWAY,
                options={"require": ["exp", "sub"], "strict_aud": False},
            )
    except (jwt.PyJWTError, KeyError, ValueError, TypeError):
        return None
    # The service's rules: the issuer of the token's own kind, the main branch, a user id.
    aud = claims["aud"]
    if not isinstance(aud, str) or claims["iss"].rstrip("/") not in accepted[aud][1]:
        return None
    if claims.get("branch_id", claims.get("branchId")) not in (None, "main") or not claims["sub"]:
        return None
    return claims


def verdict(config: AuthConfig, token: str, now: float) -> dict[str, Any] | None:
    """The claims TokenVerifier accepts ``token`` with at ``now``; None: refused."""
    recorder = Recorder(lambda request: httpx.Response(200, json=JWKS))
    try:
        return dict(run(TokenVerifier(config, clock=lambda: now), recorder, token).raw)
    except (InvalidAccessToken, AnonymousAuthenticationNotAllowed, RestrictedUserNotAllowed):
        return None


# -- hostile tokens ----------------------------------------------------------------------------

_kind_names = list(_TABLE["kinds"])
ISSUERS = [
    LEGACY_ISSUER,
    *(API + _TABLE["kinds"][k]["issuer_path"].format(project_id=PID) for k in _kind_names),
    API + _TABLE["kinds"]["user"]["issuer_path"].format(project_id=PID) + "/",
    "https://evil.example" + _TABLE["kinds"]["user"]["issuer_path"].format(project_id=PID),
    API + "/api/v1/projects/00000000-0000-0000-0000-000000000000",
    5,
]
AUDIENCES = [
    *(PID + _TABLE["kinds"][k]["audience_suffix"] for k in _kind_names),
    PID + ":admin",
    "00000000-0000-0000-0000-000000000000",
    [PID],
    5,
    "",
]
#: Seconds from the clock, around each boundary (leeway 30 s), in whole and half seconds.
OFFSETS = [-600, -31, -30.5, -30, -29.5, -1, 0, 0.5, 1, 29, 29.5, 30, 30.5, 31, 600]
#: Time claims PyJWT reads through int() and authmw refuses.
ODD_TIMES = ["1800000600", True, None, 1e300, 10**20, -5, [1]]
absent = object()


def often(usual: Any, *others: Any) -> st.SearchStrategy[Any]:
    """``usual`` nine times in ten, else one of ``others``: most tokens are off in one or two
    ways, so accepted tokens and each single fault are both drawn often."""
    return st.integers(0, 9).flatmap(lambda i: st.just(usual) if i else st.sampled_from(others))


def time_claim(usual: Any, anchor: float) -> st.SearchStrategy[Any]:
    """``usual`` six times in ten, else near the boundary ``anchor`` (or absent, or not a time)."""
    edges = [*(anchor + offset for offset in OFFSETS), *(int(anchor + offset) for offset in OFFSETS)]
    return st.integers(0, 9).flatmap(
        lambda i: st.just(usual) if i < 6 else st.sampled_from(edges) if i < 9 else st.sampled_from([absent, *ODD_TIMES])
    )


@st.composite
def claims(draw: st.DrawFn, now: float) -> dict[str, Any]:
    kind = draw(st.sampled_from(_kind_names))
    spec = _TABLE["kinds"][kind]
    own_issuers = [API + spec["issuer_path"].format(project_id=PID)] + ([LEGACY_ISSUER] if kind == "user" else [])
    chosen = {
        "sub": draw(often("user-1", "", 5, absent)),
        "aud": draw(often(PID + spec["audience_suffix"], *AUDIENCES, absent)),
        "iss": draw(often(draw(st.sampled_from(own_issuers)), *ISSUERS, absent)),
        "exp": draw(time_claim(now + 600, now - LEEWAY)),
        "nbf": draw(time_claim(absent, now + LEEWAY)),
        "iat": draw(time_claim(now, now + LEEWAY)),
        draw(st.sampled_from(["branch_id", "branchId"])): draw(often("main", "dev", absent)),
        "jti": draw(often(absent, "token-1", 5, None)),
    }
    return {name: value for name, value in chosen.items() if value is not absent}


def json_text(obj: dict[str, Any], duplicate: tuple[str, Any] | None) -> str:
    """``obj`` as JSON; with ``duplicate``, that key written once more in front (the later wins)."""
    text = json.dumps(obj)
    if duplicate is None:
        return text
    name, value = duplicate
    return "{" + json.dumps(name) + ": " + json.dumps(value) + (", " + text[1:] if obj else "}")


@st.composite
def tokens(draw: st.DrawFn, now: float) -> str:
    header: dict[str, Any] = {"alg": draw(often("ES256", "ES384", "RS256", "HS256", "none", "None", "", 5))}
    kid = draw(often("key-1", P384_KID, "unknown", "", 5, absent))
    if kid is not absent:
        header["kid"] = kid
    header.update(draw(often({}, {"typ": "JWT"}, {"crit": ["b64"], "b64": True}, {"crit": []}, {"b64": False})))
    payload = draw(claims(now))
    dup_header = draw(often(None, ("alg", "none"), ("kid", "unknown")))
    dup_payload = draw(often(None, ("aud", "other"), ("exp", 1), ("sub", "someone-else")))
    signer = draw(often("key", "stranger", "p384"))
    private, size = {"key": (KEY.private, 32), "stranger": (STRANGER.private, 32), "p384": (P384, 48)}[signer]
    token = sign_text(private, json_text(header, dup_header), json_text(payload, dup_payload), size)
    head, body, sig = token.split(".")
    r, s = raw_signature(token) if size == 32 else (1, 1)
    edit = draw(
        often(
            "none",
            *["high-s", "s+n", "r=0", "der", "trailing bits", "pad", "bad pad", "truncated", "empty sig",
               "extra segment", "two segments", "bad b64 header", "bad b64 payload", "std alphabet", "undefined"]
        )
    )
    return {
        "none": token,
        "high-s": with_signature(token, encode_rs(r, N - s)),  # the malleated twin: valid ECDSA
        "s+n": with_signature(token, encode_rs(r, too_high(s))),
        "r=0": with_signature(token, encode_rs(0, s)),
        "der": with_signature(token, b64url(encode_dss_signature(r, s))),
        "trailing bits": with_signature(token, sig[:-1] + chr(ord(sig[-1]) ^ 1)),
        "pad": with_signature(token, sig + "=="),
        "bad pad": with_signature(token, sig + "="),
        "truncated": with_signature(token, sig[:-2]),
        "empty sig": with_signature(token, ""),
        "extra segment": token + ".e30",
        "two segments": f"{head}.{body}",
        "bad b64 header": f"{head[:3]}*{head[3:]}.{body}.{sig}",
        "bad b64 payload": f"{head}.{body[:5]}*{body[5:]}.{sig}",
        "std alphabet": with_signature(token, sig.replace("-", "+").replace("_", "/")),
        "undefined": "undefined",
    }[edit]


def times_are_numbers(token: str) -> bool:
    """Whether every time claim of ``token`` (read as PyJWT reads it) is a number of seconds."""
    try:
        payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    except (ValueError, IndexError):
        return True
    return not isinstance(payload, dict) or all(is_time(payload[c]) for c in ("exp", "nbf", "iat") if c in payload)


CONFIG = AuthConfig(project_id=PID, api_url=API, publishable_client_key="pck_" + "a" * 45)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), allow_anonymous=st.booleans(), now=st.sampled_from([NOW, NOW + 0.25, NOW + 0.5]))
def test_the_verifier_answers_as_pyjwt_does(data, allow_anonymous, now):
    config = CONFIG.with_(allow_anonymous=allow_anonymous)
    token = data.draw(tokens(now))
    ours, theirs = verdict(config, token, now), oracle(config, token, now)
    event("accepted" if ours is not None else "refused")
    if times_are_numbers(token):
        assert ours == theirs
    else:
        assert ours is None  # stricter than PyJWT: "123", true, 1e300 are not times


def test_the_generated_tokens_include_accepted_ones():
    """The property above is not vacuous: a token drawn as the service signs it is accepted by
    both, and its high-s twin too (OpenSSL and PyJWT accept it; the service does not normalise s)."""
    payload = {"sub": "user-1", "aud": PID, "iss": LEGACY_ISSUER, "exp": NOW + 600, "iat": NOW, "branchId": "main"}
    token = sign_text(KEY.private, json.dumps({"alg": "ES256", "kid": "key-1"}), json.dumps(payload))
    r, s = raw_signature(token)
    for variant in (token, with_signature(token, encode_rs(r, N - s))):
        assert verdict(CONFIG, variant, NOW) == oracle(CONFIG, variant, NOW) == payload
    late = NOW + 600 + LEEWAY
    assert verdict(CONFIG, token, late) is None and oracle(CONFIG, token, late) is None  # the clock is injected


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_every_time_boundary_is_pyjwts(claim):
    """Each time claim at each whole and half second around its boundary, against clocks on
    and between whole seconds: the grid the property above samples, walked in full."""
    anchor = {"exp": -LEEWAY, "nbf": LEEWAY, "iat": LEEWAY}[claim]
    header = json.dumps({"alg": "ES256", "kid": "key-1"})
    accepted = refused = 0
    for now in (NOW, NOW + 0.25, NOW + 0.5, NOW + 0.75):
        for value in {v for offset in OFFSETS for v in (now + anchor + offset, int(now + anchor + offset))}:
            payload = {"sub": "user-1", "aud": PID, "iss": LEGACY_ISSUER, "exp": now + 600, claim: value}
            token = sign_text(KEY.private, header, json.dumps(payload))
            ours = verdict(CONFIG, token, now)
            assert ours == oracle(CONFIG, token, now), (claim, value, now)
            accepted, refused = accepted + (ours is not None), refused + (ours is None)
    assert accepted and refused


@pytest.mark.parametrize("exp", ["1900000000", True, 1e300])
def test_time_claims_pyjwt_reads_through_int_are_refused(exp):
    payload = {"sub": "user-1", "aud": PID, "iss": LEGACY_ISSUER, "exp": exp}
    token = sign_text(KEY.private, json.dumps({"alg": "ES256", "kid": "key-1"}), json.dumps(payload))
    assert oracle(CONFIG, token, NOW) is not None or exp is True  # PyJWT takes it (True is 1: expired)
    assert verdict(CONFIG, token, NOW) is None


def _segment_answer(decode, segment: bytes) -> object:
    try:
        return decode(segment, "payload")
    except jwt.DecodeError as exc:
        return ("DecodeError", str(exc))


@settings(max_examples=2000, deadline=None)
@given(
    segment=st.one_of(
        st.binary(max_size=12).map(lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=")),  # canonical
        st.binary(max_size=12).map(base64.urlsafe_b64encode),  # with its padding
        st.text("AQgw-_=+/*. \n\x00é", max_size=14).map(lambda text: text.encode("utf-8")),
        st.binary(max_size=14),
    )
)
def test_the_faster_segment_rule_is_pyjwts(segment):
    """authmw's one re-written PyJWT method (the strict base64url rule of a segment, by a
    regular expression) answers as PyJWT's own on any segment: the same bytes or the same error."""
    assert _segment_answer(_jwt._PyJWS._decode_base64url_segment, segment) == _segment_answer(
        jwt.PyJWS._decode_base64url_segment, segment
    )


def test_the_verifier_uses_the_faster_rule_and_pyjwt_for_the_rest():
    assert type(_jwt._PYJWT._jws) is _jwt._PyJWS
    assert [name for name in vars(_jwt._PyJWS) if not name.startswith("__")] == ["_decode_base64url_segment", "_load"]


def _load_answer(load, token: object) -> object:
    try:
        return load(token)
    except (jwt.DecodeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


#: Header segments: the service's, others PyJWT accepts (memoized or not), and ones it refuses.
_HEADER_SEGMENTS = [
    b64url(b'{"alg":"ES256","kid":"key-1"}'),
    b64url(b'{"alg":"ES256","kid":"key-1","typ":"JWT"}'),
    b64url(b'{"alg":"ES256","kid":5}'),
    b64url(b'{"alg":"ES256","crit":["b64"],"b64":true}'),
    b64url(b'{"alg":"ES256","b64":false}'),
    b64url(b'{"alg":"ES256","jwk":{"kty":"EC"}}'),
    b64url(b"[1]"),
    b64url(b"{bad json"),
    b64url(b'{"alg":"ES256"}') + "=",
    "e30*",
    "",
]


@settings(max_examples=1500, deadline=None)
@given(
    header=st.one_of(st.sampled_from(_HEADER_SEGMENTS), st.text("eyJAQgw-_=*. ", max_size=10)),
    rest=st.lists(
        st.one_of(
            st.sampled_from(["e30", b64url(b'{"sub":"u"}'), b64url(b"x" * 64), "", "e30=", "e3*", "a"]),
            st.text("AQgw-_=+/*. é", max_size=8),
        ),
        max_size=4,
    ),
    as_bytes=st.booleans(),
)
def test_the_remembered_header_reads_as_pyjwts(header, rest, as_bytes):
    """The reader that remembers header segments answers as PyJWT's own reader, the first time
    a header is seen and every time after (the same parts or the same error), and hands out a
    header of the caller's own: changing it changes nothing for the next token."""
    token = ".".join([header, *rest])
    given_token: object = token.encode("utf-8") if as_bytes else token
    theirs = _load_answer(jwt.PyJWS()._load, given_token)
    for _ in range(2):  # the second read takes the remembered header when there is one
        ours = _load_answer(_jwt._PYJWT._jws._load, given_token)
        assert ours == theirs
        if len(ours) == 4:
            ours[2]["alg"] = "none"  # the caller's own copy


def _payload_answer(read, raw: bytes) -> object:
    try:
        return ("ok", read(raw))
    except jwt.DecodeError as exc:
        return ("DecodeError", str(exc))


def _pyjwt_payload(raw: bytes) -> object:
    """PyJWT's own payload read (``PyJWT._decode_payload`` of a decoded token)."""
    return jwt.PyJWT()._decode_payload({"payload": raw})


@settings(max_examples=1500, deadline=None)
@given(
    raw=st.one_of(
        st.dictionaries(st.text(max_size=4), st.one_of(st.integers(), st.floats(), st.text(max_size=4), st.none()))
        .map(json.dumps)
        .flatmap(lambda text: st.sampled_from(["", " ", "\n\t ", " x", "}", "\x0c", " {}"]).map(lambda tail: text + tail))
        .map(lambda text: text.encode("utf-8")),
        st.text('{}[]":,0123456789.eE+-aN ntrufl\\\u00e9\ud800', max_size=16).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=16).map(lambda raw: b"{" + raw),
    )
)
def test_the_payload_reads_as_pyjwts(raw):
    """The payload read by json's scanner directly answers as PyJWT's read: the same object, or
    the same error (blanks after the object, other text after it, NaN, lone surrogates)."""
    # (compared by repr: NaN is not equal to itself)
    assert repr(_payload_answer(_jwt._json_object, raw)) == repr(_payload_answer(_pyjwt_payload, raw))


def test_a_remembered_header_is_a_new_dict_each_time(token):
    first, second = _jwt.parse(token), _jwt.parse(token)
    assert first.header == second.header and first.header is not second.header
    assert token.encode().split(b".")[0] in _jwt._HEADERS  # the service's header is remembered


# -- verify_jwt, the generic function --------------------------------------------------------


@pytest.fixture
def token(mint) -> str:
    return mint()


@pytest.fixture
def public(key: SigningKey):
    return key.private.public_key()


def test_es384_and_es512_are_checked_too():
    for alg, curve in (("ES384", ec.SECP384R1()), ("ES512", ec.SECP521R1())):
        private = ec.generate_private_key(curve)
        token = jwt.encode({"sub": "u", "exp": time.time() + 60}, private, algorithm=alg)
        public = private.public_key()
        assert verify_jwt(token, public, algorithms=(alg,))["sub"] == "u"
        head, payload, sig = token.split(".")
        for bad in (sig[:-4], sig[4:] + "AAAA", "!!!!"):
            with pytest.raises(InvalidJwt):
                verify_jwt(f"{head}.{payload}.{bad}", public, algorithms=(alg,))


def test_a_key_of_another_curve_is_refused(token):
    with pytest.raises(InvalidJwt) as info:
        verify_jwt(token, ec.generate_private_key(ec.SECP384R1()).public_key(), algorithms=("ES256",))
    assert info.value.reason == "key"


def test_alg_none_can_never_be_allowed(token, public):
    with pytest.raises(ValueError, match="never accepted"):
        verify_jwt(token, public, algorithms=("ES256", "none"))


def test_returned_payload_is_the_callers_own(key, public):
    token = key.sign({"sub": "u", "aud": ["a", "b"], "exp": 4102444800})
    first = verify_jwt(token, public, algorithms=("ES256",), audience="a")
    first["aud"].clear()
    first["sub"] = "someone else"
    again = verify_jwt(token, public, algorithms=("ES256",), audience="a")
    assert (again["aud"], again["sub"]) == (["a", "b"], "u")
    assert token_expiry(token) == 4102444800


# -- access tokens: malformed signatures are unparsable ------------------------------------


def malformed_signatures(token: str) -> dict[str, str]:
    sig = token.rsplit(".", 1)[1]
    r, s = raw_signature(token)
    raw = base64.urlsafe_b64decode(sig + "==")
    return {
        "empty": "",
        "63 bytes": b64url(raw[:-1]),
        "65 bytes": b64url(raw + b"\x01"),
        "48 bytes": b64url(raw[:48]),
        "DER instead of raw r||s": b64url(
            encode_dss_signature(r, s)  # what a careless signer sends
        ),
        "s >= n (too high for the curve)": encode_rs(r, too_high(s)),
        "s = n": encode_rs(r, N),
        "r = 0": encode_rs(0, s),
        "s = 0": encode_rs(r, 0),
        "r and s swapped": encode_rs(s, r),
        "not base64url: '!'": "!" * 86,
        "not base64url: '+' and '/'": sig[:5] + "+/" + sig[7:],
        "not base64url: non-ASCII": sig[:5] + "é" + sig[6:],
        "not base64url: a lone surrogate": sig[:5] + "\udc80" + sig[6:],
        "bad padding": sig + "=",
        "non-canonical trailing bits": sig[:-1] + chr(ord(sig[-1]) ^ 1),
    }


@pytest.mark.parametrize("case", list(malformed_signatures("a.b.AAAA")))
def test_malformed_signature_is_unparsable(config, mint, jwks_server, case):
    token = mint()
    bad = with_signature(token, malformed_signatures(token)[case])
    verifier = TokenVerifier(config)
    with pytest.raises(UnparsableAccessToken) as info:
        run(verifier, jwks_server, bad)
    assert info.value.code == "UNPARSABLE_ACCESS_TOKEN"
    assert verifier.verify_cached(bad) is None
    assert run(verifier, jwks_server, token).sub  # the genuine token still verifies


def test_malleated_signature_verifies_as_it_did_with_pyjwt(config, mint, jwks_server, key):
    """(r, n - s) is a valid ECDSA signature of the same claims: OpenSSL and PyJWT accept
    it, and so does the service's own signer, which does not normalise s (about half its
    tokens have a "high" s). Refusing it would refuse those tokens."""
    token = mint()
    r, s = raw_signature(token)
    twin = with_signature(token, encode_rs(r, N - s))
    public = key.private.public_key()
    assert jwt.decode(twin, public, algorithms=["ES256"], options={"verify_aud": False})
    assert run(TokenVerifier(config), jwks_server, twin).sub == run(TokenVerifier(config), jwks_server, token).sub


def test_unparsable_messages_are_unchanged(config, mint, jwks_server):
    token = mint()
    cases = {
        b64url(b"\0" * 63): "Access token is not parsable: The signature does not match.",
        "!!!!": "Access token is not parsable: The token could not be verified: DecodeError.",
        "AAA\udc80": "Access token is not parsable: The token could not be verified: UnicodeEncodeError.",
    }
    for signature, message in cases.items():
        with pytest.raises(UnparsableAccessToken) as info:
            run(TokenVerifier(config), jwks_server, with_signature(token, signature))
        assert info.value.message == message



def test_signature_checks_count_only_uncached_tokens(config, mint, jwks_server):
    verifier = TokenVerifier(config)
    token = mint()
    for _ in range(5):
        run(verifier, jwks_server, token)
    assert verifier.signature_checks == 1
