"""ES256 verification with ``cryptography`` directly: the same answers as PyJWT, one parse.

``verify_jwt`` checks ECDSA signatures itself (the token parsed once, the raw r||s
signature converted to DER); every other algorithm still goes through PyJWT. The
reference below is the same ``verify_jwt`` with its ECDSA path switched off, so PyJWT
decodes the token as it did before; so the two must agree on every input: accepted, or refused with the
same reason and message.
"""

from __future__ import annotations

import base64
import json
import time
from unittest import mock

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from hypothesis import given, settings
from hypothesis import strategies as st

import authmw._jwt as tokens
from authmw._tokens import ACCESS_TOKEN_ISSUER, TokenVerifier, token_expiry, verify_jwt
from authmw.errors import InvalidJwt, UnparsableAccessToken

from .conftest import Recorder, SigningKey, b64url

#: Order of the P-256 group.
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def run(verifier: TokenVerifier, recorder: Recorder, token: str):
    return recorder.sync_driver().run(verifier.verify(token))


def fast(token: str, key) -> object:
    try:
        return verify_jwt(token, key, algorithms=("ES256",), require_exp=False)
    except InvalidJwt as exc:
        return (exc.reason, str(exc))


def reference(token: str, key) -> object:
    """What verify_jwt answers when PyJWT decodes the token, as it did before for ECDSA."""
    with mock.patch.dict(tokens._ECDSA, clear=True):
        return fast(token, key)


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


def signed(key: SigningKey, header: dict, payload: dict) -> str:
    """A token with exactly this header, signed with ``key`` (PyJWS adds nothing we do not say)."""
    h = b64url(json.dumps(header).encode())
    p = b64url(json.dumps(payload).encode())
    der = key.private.sign(f"{h}.{p}".encode(), ec.ECDSA(tokens.hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return f"{h}.{p}.{encode_rs(r, s)}"


@pytest.fixture
def token(mint) -> str:
    return mint()


@pytest.fixture
def public(key: SigningKey):
    return key.private.public_key()


# -- the same answers as PyJWT ---------------------------------------------------------------


def variants(token: str, key: SigningKey) -> list[str]:
    head, payload, sig = token.split(".")
    r, s = raw_signature(token)
    raw = base64.urlsafe_b64decode(sig + "==")
    claims = {"sub": "u", "aud": "a", "iss": ACCESS_TOKEN_ISSUER}
    return [
        token,
        with_signature(token, ""),
        with_signature(token, sig[:-1]),  # 63.25 bytes: a length PyJWT refuses as padding
        with_signature(token, sig[:-2]),  # 63 bytes
        with_signature(token, sig + "AA"),  # 65 bytes
        with_signature(token, b64url(raw[:-1])),
        with_signature(token, b64url(raw + b"\0")),
        with_signature(token, sig + "="),  # 86 chars + "=": bad padding
        with_signature(token, sig + "=="),  # 88 chars: allowed padding
        with_signature(token, sig + "==="),
        with_signature(token, "!" + sig[1:]),
        with_signature(token, sig[:10] + "+" + sig[11:]),  # standard, not URL-safe, alphabet
        with_signature(token, sig[:10] + "/" + sig[11:]),
        with_signature(token, sig[:10] + "é" + sig[11:]),
        with_signature(token, sig[:10] + "\ud800" + sig[11:]),
        with_signature(token, sig[:10] + " " + sig[11:]),
        with_signature(token, sig[:10] + "\n" + sig[11:]),
        with_signature(token, sig[:-1] + chr(ord(sig[-1]) ^ 1)),  # non-canonical trailing bits
        with_signature(token, encode_rs(r, N - s)),  # the malleated twin: valid ECDSA
        with_signature(token, encode_rs(r, too_high(s))),  # s out of range (>= n)
        with_signature(token, encode_rs(r, N)),
        with_signature(token, encode_rs(0, s)),
        with_signature(token, encode_rs(r, 0)),
        with_signature(token, encode_rs(N + r, s, 33)),
        with_signature(token, encode_rs(s, r)),
        with_signature(token, b64url(key.private.sign(b"x", ec.ECDSA(tokens.hashes.SHA256())))),  # DER
        head + "=." + payload + "." + sig,  # padding where none is due
        head[:-1] + chr(ord(head[-1]) ^ 1) + "." + payload + "." + sig,
        head + "." + payload + "==" + "." + sig,
        head + "." + payload[:5] + "*" + payload[5:] + "." + sig,  # lenient decoding ignores '*'
        signed(key, {"alg": "ES256", "kid": key.kid}, claims),
        signed(key, {"alg": "ES256", "kid": 5}, claims),
        signed(key, {"alg": "ES256", "b64": False, "crit": ["b64"]}, claims),
        signed(key, {"alg": "ES256", "b64": False}, claims),
        signed(key, {"alg": "ES256", "b64": True, "crit": ["b64"]}, claims),
        signed(key, {"alg": "ES256", "crit": ["b64"]}, claims),
        signed(key, {"alg": "ES256", "crit": []}, claims),
        signed(key, {"alg": "ES256", "crit": "b64"}, claims),
        signed(key, {"alg": "ES256", "crit": ["exp"], "exp": 1}, claims),
        signed(key, {"alg": "ES256", "crit": [1]}, claims),
        signed(key, {"alg": "ES256", "b64": 0}, claims),
        signed(SigningKey(), {"alg": "ES256", "kid": key.kid}, claims),  # another key
        "undefined",
        "a.b",
        token + ".x",
    ]


def test_every_variant_gets_pyjwts_answer(token, key, public):
    answers = []
    for variant in variants(token, key):
        expected, got = reference(variant, public), fast(variant, public)
        assert got == expected, variant
        answers.append(got)
    assert answers[0] == jwt.decode(token, public, algorithms=["ES256"], options={"verify_aud": False})
    assert sum(isinstance(a, dict) for a in answers) >= 4  # some variants are genuinely valid


def test_a_private_key_verifies_like_its_public_key(token, key, public):
    for variant in variants(token, key)[:8]:
        assert fast(variant, key.private) == reference(variant, key.private) == fast(variant, public)


EDIT_KEY = SigningKey()
EDIT_TOKEN = signed(EDIT_KEY, {"alg": "ES256", "kid": EDIT_KEY.kid}, {"sub": "u", "exp": 4102444800})


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_edits_get_pyjwts_answer(data):
    public, token = EDIT_KEY.private.public_key(), EDIT_TOKEN
    position = data.draw(st.integers(0, len(token)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(st.text(alphabet="AZaz09-_=.+/!é \x00", max_size=3))
    variant = token[:position] + insert + token[position + cut :]
    assert fast(variant, public) == reference(variant, public)


def test_es384_and_es512_are_checked_directly_too():
    for alg, curve in (("ES384", ec.SECP384R1()), ("ES512", ec.SECP521R1())):
        private = ec.generate_private_key(curve)
        token = jwt.encode({"sub": "u", "exp": time.time() + 60}, private, algorithm=alg)
        public = private.public_key()
        assert verify_jwt(token, public, algorithms=(alg,))["sub"] == "u"
        head, payload, sig = token.split(".")
        for bad in (sig[:-4], sig[4:] + "AAAA", "!!!!"):
            with pytest.raises(InvalidJwt):
                verify_jwt(f"{head}.{payload}.{bad}", public, algorithms=(alg,))


def test_returned_payload_is_the_callers_own(token, public):
    first = verify_jwt(token, public, algorithms=("ES256",), require_exp=False)
    first["sub"] = "someone else"
    first["exp"] = 0
    assert verify_jwt(token, public, algorithms=("ES256",), require_exp=False)["sub"] != "someone else"
    assert token_expiry(token) != 0


def test_nested_claims_changed_by_a_caller_do_not_leak_into_the_next_call(key, public):
    token = signed(key, {"alg": "ES256"}, {"sub": "u", "aud": ["a", "b"], "exp": 4102444800})
    token_expiry(token)
    first = verify_jwt(token, public, algorithms=("ES256",), audience="a")
    first["aud"].clear()
    assert verify_jwt(token, public, algorithms=("ES256",), audience="a")["aud"] == ["a", "b"]


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
            tokens.encode_dss_signature(r, s)  # what a careless signer sends
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


# -- one parse per token ----------------------------------------------------------------------


def test_expiry_then_verification_parse_the_token_once(config, mint, jwks_server, monkeypatch):
    verifier = TokenVerifier(config)
    run(verifier, jwks_server, mint())  # key set fetched
    parses = []
    real = tokens._b64url_json
    monkeypatch.setattr(tokens, "_b64url_json", lambda segment: parses.append(segment) or real(segment))
    token = mint()
    exp = verifier.expiry(token)  # what the middleware reads before verifying
    claims = run(verifier, jwks_server, token)
    # The payload, once; the header is the one of the first token (decoded once per segment).
    assert parses == [token.split(".")[1]]
    assert token_expiry(token) == exp and len(parses) == 2  # the module function has no memo
    assert claims.exp == exp > time.time()
    assert verifier.signature_checks == 2


def test_the_header_is_decoded_once_per_segment(config, mint, jwks_server, monkeypatch):
    """Tokens of one key share their header segment: it is decoded and checked once, and a
    token with another header (another kid here) gets its own."""
    verifier = TokenVerifier(config)
    run(verifier, jwks_server, mint())
    decoded = []
    real = tokens._b64url_json
    monkeypatch.setattr(tokens, "_b64url_json", lambda segment: decoded.append(segment) or real(segment))
    first, second = mint(sub="user-a"), mint(sub="user-b")
    assert first.split(".")[0] == second.split(".")[0]
    assert run(verifier, jwks_server, first).sub == "user-a"
    assert run(verifier, jwks_server, second).sub == "user-b"
    assert decoded == [first.split(".")[1], second.split(".")[1]]  # payloads only
    header = tokens.parse(first).header
    assert header["alg"] == "ES256" and tokens.parse(second).header is header  # one shared dict


def test_the_shared_parse_is_per_token(config, mint, jwks_server):
    verifier = TokenVerifier(config)
    a, b = mint(sub="user-a"), mint(sub="user-b")
    assert verifier.expiry(a)
    assert run(verifier, jwks_server, b).sub == "user-b"
    assert run(verifier, jwks_server, a).sub == "user-a"
    with pytest.raises(UnparsableAccessToken):
        verifier.expiry("not.a.token")
    assert verifier.expiry(a) == run(verifier, jwks_server, a).exp == token_expiry(a)
    assert TokenVerifier(config).expiry(a) == token_expiry(a)  # each verifier has its own parse


def test_signature_checks_count_only_uncached_tokens(config, mint, jwks_server):
    verifier = TokenVerifier(config)
    token = mint()
    for _ in range(5):
        run(verifier, jwks_server, token)
    assert verifier.signature_checks == 1
