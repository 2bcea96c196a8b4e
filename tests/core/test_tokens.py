from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hypothesis import given, strategies as st

from authmw._jwt import MAX_TOKEN_LENGTH, prepare_key, verify_jwt
from authmw._ops import NetworkError
from authmw._tokens import ACCESS_TOKEN_ISSUER, TokenVerifier, token_expiry
from authmw.errors import (
    AccessTokenExpired,
    AuthmwError,
    HttpStatusError,
    InvalidAccessToken,
    InvalidJwt,
    InvalidProjectForAccessToken,
    InvalidServerResponse,
    UnparsableAccessToken,
)

from .conftest import Recorder, SigningKey, b64url, unsigned_token

# -- token_expiry -----------------------------------------------------------------------


def test_token_expiry_reads_exp_without_verifying():
    assert token_expiry(unsigned_token({"exp": 1700000000})) == 1700000000.0
    assert token_expiry(unsigned_token({"exp": 1700000000.5})) == 1700000000.5


def test_token_without_exp_never_expires():
    assert token_expiry(unsigned_token({"sub": "x"})) is None


@pytest.mark.parametrize(
    "token",
    [
        "undefined",
        "",
        "a.b",
        "a.b.c",
        "....",
        unsigned_token([1, 2]),
        unsigned_token({"exp": "1700000000"}),
        unsigned_token({"exp": True}),
        unsigned_token({"exp": None, "x": 1}).replace(".", "!", 1),
        # No OverflowError from numbers too big for a float or a datetime.
        unsigned_token({"exp": 10**400}),
        unsigned_token({"exp": -(10**400)}),
        unsigned_token({"exp": 253_402_300_800}),
        unsigned_token({"exp": -1}),
        unsigned_token({"exp": 1e308}),
        "eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjFlNDAwfQ.c2ln",  # {"exp":1e400}: JSON's float is inf
    ],
)
def test_token_expiry_rejects_garbage(token):
    with pytest.raises(UnparsableAccessToken):
        token_expiry(token)


@given(st.one_of(st.text(), st.binary().map(lambda b: b.decode("latin-1")), st.none(), st.integers()))
def test_token_expiry_of_anything_is_a_number_none_or_a_typed_error(value):
    try:
        result = token_expiry(value)  # type: ignore[arg-type]
    except UnparsableAccessToken:
        return
    assert result is None or isinstance(result, float)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=10,
)


@given(json_values, json_values)
def test_token_expiry_of_arbitrary_json_parts_never_crashes(header, payload):
    try:
        token_expiry(unsigned_token(payload, header))
    except UnparsableAccessToken:
        pass


# -- verification ---------------------------------------------------------------------------


def run(verifier: TokenVerifier, recorder: Recorder, token: str):
    return recorder.sync_driver().run(verifier.verify(token))


def test_valid_token_verifies_and_gives_claims(config, mint, jwks_server):
    user = str(uuid.uuid4())
    token = mint(sub=user)
    claims = run(TokenVerifier(config), jwks_server, token)
    assert claims.sub == claims.user_id == user
    assert claims.aud == config.project_id
    assert claims.iss == ACCESS_TOKEN_ISSUER
    assert claims.raw["branchId"] == "main"
    # a plain GET without x-stack headers
    (request,) = jwks_server.requests
    assert str(request.url) == config.jwks_url
    assert not [h for h in request.headers if h.startswith("x-stack")]


def test_2_8_claims_are_typed_and_absent_ones_are_none(config, mint, jwks_server):
    session = str(uuid.uuid4())
    token = mint(
        project_id=config.project_id,
        branch_id="main",
        refresh_token_id=session,
        role="authenticated",
        name="Ada",
        email="ada@example.com",
        email_verified=True,
        selected_team_id=None,
        signed_up_at=1_700_000_000_123,
        is_anonymous=False,
        is_restricted=True,
        restricted_reason={"type": "email_not_verified"},
        requires_totp_mfa=False,
    )
    claims = run(TokenVerifier(config), jwks_server, token)
    assert (claims.project_id, claims.branch_id, claims.refresh_token_id) == (config.project_id, "main", session)
    assert (claims.role, claims.name, claims.email, claims.email_verified) == (
        "authenticated",
        "Ada",
        "ada@example.com",
        True,
    )
    assert claims.selected_team_id is None
    assert claims.signed_up_at is not None and claims.signed_up_at.timestamp() == 1_700_000_000.123
    assert (claims.is_anonymous, claims.is_restricted, claims.requires_totp_mfa) == (False, True, False)
    assert claims.restricted_reason == "email_not_verified"

    plain = run(TokenVerifier(config), jwks_server, mint())  # a 2.7 token: none of them
    assert plain.branch_id == "main" and plain.refresh_token_id is None and plain.email is None
    assert plain.email_verified is None and plain.signed_up_at is None and plain.restricted_reason is None

    odd = run(
        TokenVerifier(config),
        jwks_server,
        mint(email_verified=1, name=5, signed_up_at=10**30, is_anonymous="no", restricted_reason="x", email=True),
    )
    assert (odd.email_verified, odd.name, odd.signed_up_at, odd.is_anonymous) == (None, None, None, None)
    assert (odd.restricted_reason, odd.email) == (None, None)


def test_repeated_token_is_served_from_cache_without_io(config, mint, jwks_server):
    verifier = TokenVerifier(config)
    token = mint()
    assert verifier.verify_cached(token) is None
    claims = run(verifier, jwks_server, token)
    assert verifier.verify_cached(token) == claims
    op = verifier.verify(token)
    with pytest.raises(StopIteration) as stop:
        next(op)  # no effect yielded at all
    assert stop.value.value == claims


def test_cached_token_stops_verifying_once_expired(config, mint, jwks_server):
    now = [time.time()]
    verifier = TokenVerifier(config, clock=lambda: now[0])
    exp = int(now[0]) + 100
    token = mint(exp=exp)
    run(verifier, jwks_server, token)
    now[0] = exp + 31  # past exp and the 30 s tolerance
    assert verifier.verify_cached(token) is None
    with pytest.raises(AccessTokenExpired) as info:
        run(verifier, jwks_server, token)
    assert info.value.expired_at_millis == exp * 1000


def test_clock_tolerance_is_30_seconds(config, mint, jwks_server):
    now = time.time()
    verifier = TokenVerifier(config, clock=lambda: now)
    assert run(verifier, jwks_server, mint(exp=int(now) - 20))
    with pytest.raises(AccessTokenExpired):
        run(verifier, jwks_server, mint(exp=int(now) - 31))
    assert run(verifier, jwks_server, mint(nbf=int(now) + 20))
    with pytest.raises(UnparsableAccessToken):
        run(verifier, jwks_server, mint(nbf=int(now) + 31))


def test_cache_is_bounded(config, mint, jwks_server):
    verifier = TokenVerifier(config, cache_size=3)
    tokens = [mint() for _ in range(5)]
    for token in tokens:
        run(verifier, jwks_server, token)
    assert [verifier.verify_cached(t) is not None for t in tokens] == [False, False, True, True, True]


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"aud": "00000000-0000-0000-0000-000000000000"}, InvalidProjectForAccessToken),
        ({"aud": None, "projectId": "x"}, InvalidProjectForAccessToken),  # legacy global token
        ({"iss": "https://evil.example"}, UnparsableAccessToken),
        ({"iss": 5}, UnparsableAccessToken),
        ({"exp": "9999999999"}, UnparsableAccessToken),
        ({"exp": None}, UnparsableAccessToken),
        ({"iat": "yesterday"}, UnparsableAccessToken),
        ({"nbf": [1]}, UnparsableAccessToken),
        ({"aud": 5}, UnparsableAccessToken),
        ({"sub": None}, UnparsableAccessToken),
        ({"exp": 1000}, AccessTokenExpired),
        ({"exp": 10**400}, UnparsableAccessToken),
        ({"iat": 10**400}, UnparsableAccessToken),
        ({"nbf": 10**400}, UnparsableAccessToken),
        ({"exp": 253_402_300_800}, UnparsableAccessToken),  # after the year 9999
        ({"iat": -(10**400)}, UnparsableAccessToken),
    ],
)
def test_claim_checks(config, mint, jwks_server, overrides, error):
    with pytest.raises(error):
        run(TokenVerifier(config), jwks_server, mint(**overrides))


def test_every_rejection_is_an_invalid_access_token(config, mint, jwks_server):
    for token in ["undefined", "x", mint(aud="other"), mint(exp=1)]:
        with pytest.raises(InvalidAccessToken):
            run(TokenVerifier(config), jwks_server, token)


def test_token_signed_by_another_key_with_the_same_kid_is_refused(config, mint, jwks_server):
    forged = mint(signer=SigningKey())  # same kid, different key
    with pytest.raises(UnparsableAccessToken):
        run(TokenVerifier(config), jwks_server, forged)


def test_other_algorithms_are_refused(config, project_id, jwks_server, key):
    claims = {"sub": "u", "aud": project_id, "iss": ACCESS_TOKEN_ISSUER, "exp": int(time.time()) + 60}
    hs = jwt.encode(claims, "secret-secret-secret-secret-secret", algorithm="HS256", headers={"kid": key.kid})
    none = unsigned_token(claims, {"alg": "none", "kid": key.kid})
    for token in (hs, none):
        with pytest.raises(UnparsableAccessToken):
            run(TokenVerifier(config), jwks_server, token)
    assert jwks_server.requests == []  # refused before any key is fetched


@given(st.text(max_size=300))
def test_arbitrary_strings_give_a_typed_error(text):
    from authmw import AuthConfig

    config = AuthConfig(project_id="internal")
    verifier = TokenVerifier(config)
    recorder = Recorder(lambda request: httpx.Response(200, json={"keys": []}))
    try:
        recorder.sync_driver().run(verifier.verify(text))
    except (InvalidAccessToken, InvalidServerResponse):
        pass


# -- key set caching ------------------------------------------------------------------------


def test_key_set_is_fetched_once_and_reused(config, mint, jwks_server):
    verifier = TokenVerifier(config)
    for _ in range(3):
        run(verifier, jwks_server, mint())
    assert len(jwks_server.requests) == 1


def test_key_set_is_refetched_after_its_ttl(config, mint, jwks_server):
    mono = [0.0]
    verifier = TokenVerifier(config, jwks_ttl=600, monotonic=lambda: mono[0])
    run(verifier, jwks_server, mint())
    mono[0] = 601
    run(verifier, jwks_server, mint())
    assert len(jwks_server.requests) == 2


def test_unknown_kid_refetches_once_then_is_rate_limited(config, mint, key):
    rotated = SigningKey(kid="rotated00001")
    served = [key.jwks()]
    recorder = Recorder(lambda request: httpx.Response(200, json=served[0]))
    mono = [0.0]
    verifier = TokenVerifier(config, jwks_min_refetch_interval=10, monotonic=lambda: mono[0])
    run(verifier, recorder, mint())
    # The service rotates its key: the first token with the new kid triggers a refetch.
    served[0] = {"keys": [key.jwk(), rotated.jwk()]}
    mono[0] = 11
    assert run(verifier, recorder, mint(signer=rotated))
    assert len(recorder.requests) == 2
    # A flood of made-up key ids causes no further fetch within the interval.
    for i in range(50):
        with pytest.raises(UnparsableAccessToken):
            run(verifier, recorder, mint(signer=SigningKey(kid=f"bogus{i:07d}")))
    assert len(recorder.requests) == 2
    mono[0] = 22
    with pytest.raises(UnparsableAccessToken):
        run(verifier, recorder, mint(signer=SigningKey(kid="bogus9999999")))
    assert len(recorder.requests) == 3


def test_failed_fetch_keeps_the_last_good_key_set(config, mint, key):
    ok = [True]

    def handler(request):
        if ok[0]:
            return httpx.Response(200, json=key.jwks())
        return httpx.Response(503, text="down")

    recorder = Recorder(handler)
    mono = [0.0]
    verifier = TokenVerifier(config, jwks_ttl=600, monotonic=lambda: mono[0])
    run(verifier, recorder, mint())
    ok[0] = False
    mono[0] = 700  # stale: a refetch is attempted and fails
    assert run(verifier, recorder, mint())
    assert run(verifier, recorder, mint())  # rate limited: no second failing fetch
    assert len(recorder.requests) == 2


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(404, text="Project not found"), HttpStatusError),
        (httpx.Response(200, text="<html>"), InvalidServerResponse),
        (httpx.Response(200, json={"keys": [{"kty": "nope"}]}), InvalidServerResponse),
    ],
)
def test_failed_fetch_without_keys_raises_the_fetch_error(config, mint, response, error):
    recorder = Recorder(lambda request: response)
    verifier = TokenVerifier(config)
    with pytest.raises(error):
        run(verifier, recorder, mint())
    with pytest.raises(error):  # rate limited, but still the same cause
        run(verifier, recorder, mint())
    assert len(recorder.requests) == 1


def test_network_failure_of_the_fetch_is_a_network_error(config, mint):
    def handler(request):
        raise httpx.ConnectError("refused")

    with pytest.raises(NetworkError):
        run(TokenVerifier(config), Recorder(handler), mint())


def test_concurrent_fetches_are_shared_across_threads(config, mint, key):
    gate = threading.Event()

    def handler(request):
        gate.wait(60)
        return httpx.Response(200, json=key.jwks())

    recorder = Recorder(handler)
    driver = recorder.sync_driver()
    verifier = TokenVerifier(config)
    tokens = [mint() for _ in range(8)]
    results = []
    threads = [threading.Thread(target=lambda t=t: results.append(driver.run(verifier.verify(t)))) for t in tokens]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    gate.set()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    assert len(recorder.requests) == 1


async def test_concurrent_fetches_are_shared_across_tasks(config, mint, key):
    recorder = Recorder(lambda request: httpx.Response(200, json=key.jwks()))
    driver = recorder.async_driver()
    verifier = TokenVerifier(config)
    tokens = [mint() for _ in range(8)]
    results = await asyncio.gather(*(driver.run(verifier.verify(t)) for t in tokens))
    assert len(results) == 8
    assert len(recorder.requests) == 1
    await driver.aclose()


def test_repr_holds_no_token_or_key(config):
    assert "ssk_" not in repr(TokenVerifier(config))


# -- the generic helper ----------------------------------------------------------------------


def _rs256(bits: int) -> tuple[str, rsa.RSAPublicKey]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    token = jwt.encode(
        {"sub": "u", "exp": int(time.time()) + 60, "iss": "https://idp", "aud": "app"}, private, algorithm="RS256"
    )
    return token, private.public_key()


def test_verify_jwt_defaults_to_rs256():
    token, public = _rs256(2048)
    assert verify_jwt(token, public, issuer="https://idp", audience="app")["sub"] == "u"
    with pytest.raises(InvalidJwt) as info:
        verify_jwt(token, public, algorithms=("ES256",))
    assert info.value.reason == "algorithm"


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_verify_jwt_refuses_rsa_keys_under_2048_bits():
    token, public = _rs256(1024)
    with pytest.raises(InvalidJwt) as info:
        verify_jwt(token, public)
    assert info.value.reason == "key"


def test_verify_jwt_checks_issuer_audience_and_curve(key):
    token, public = _rs256(2048)
    with pytest.raises(InvalidJwt, match="issued") as info:
        verify_jwt(token, public, issuer="https://other")
    assert info.value.reason == "issuer"
    with pytest.raises(InvalidJwt) as info:
        verify_jwt(token, public, audience="other")
    assert info.value.reason == "audience"
    p384 = ec.generate_private_key(ec.SECP384R1())
    es = jwt.encode({"exp": int(time.time()) + 60}, p384, algorithm="ES384")
    forged = es.split(".")
    forged[0] = unsigned_token({}, {"alg": "ES256"}).split(".")[0]
    with pytest.raises(InvalidJwt) as info:
        verify_jwt(".".join(forged), p384.public_key(), algorithms=("ES256",))
    assert info.value.reason == "key"


def _answer(token: str, key: object, algorithms: tuple[str, ...]) -> object:
    try:
        return verify_jwt(token, key, algorithms=algorithms, require_exp=False)
    except InvalidJwt as exc:
        return exc.reason, str(exc)


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_a_prepared_key_answers_as_the_pyjwk_given_to_pyjwt(key):
    """A key set's keys are prepared once (prepare_key) instead of by PyJWT on every check: the
    same answer, the same reason and message, for usable keys and for keys PyJWT refuses (a
    curve that is not the algorithm's, an RSA key under 2048 bits, an algorithm the token does
    not name), with tokens it accepts and tokens it refuses."""
    p384 = ec.generate_private_key(ec.SECP384R1())
    small_rsa = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    jwks = [
        key.jwk(),
        {**json.loads(jwt.algorithms.ECAlgorithm.to_jwk(p384.public_key())), "alg": "ES256"},  # wrong curve
        {**json.loads(jwt.algorithms.ECAlgorithm.to_jwk(p384.public_key())), "alg": "ES384"},
        {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(small_rsa.public_key())), "alg": "RS256"},
    ]
    good = key.sign({"sub": "u"})
    head, body, sig = good.split(".")
    tokens = [
        good,
        f"{head}.{body}.{key.sign({'sub': 'v'}).rsplit('.', 1)[1]}",  # another token's signature
        f"{head}.{body}.{sig[:-4]}",  # a short one
        jwt.encode({"sub": "u"}, p384, algorithm="ES384"),
        jwt.encode({"sub": "u"}, small_rsa, algorithm="RS256"),
        unsigned_token({"sub": "u"}, {"kid": "k"}),  # no alg
        unsigned_token({"sub": "u"}, {"alg": ""}),
    ]
    answers = set()
    for entry in jwks:
        pyjwk = jwt.PyJWK(entry)
        for token in tokens:
            for algorithms in (("ES256",), ("ES256", "ES384", "RS256")):
                ours, pyjwts = _answer(token, prepare_key(pyjwk), algorithms), _answer(token, pyjwk, algorithms)
                assert ours == pyjwts, (entry.get("crv"), entry["alg"], token, algorithms)
                answers.add(ours["sub"] if isinstance(ours, dict) else ours[0])
    assert answers == {"u", "signature", "algorithm", "key", "malformed"}  # every branch was compared


def test_invalid_jwt_is_an_authmw_error():
    assert issubclass(InvalidJwt, AuthmwError)


def test_absurdly_deep_json_is_unparsable_not_a_crash(config, jwks_server):
    deep = b64url(b"[" * 2500 + b"]" * 2500)  # deeper than the recursion limit, under the size cap
    header = b64url(b'{"alg":"ES256","kid":"k"}')
    for token in (f"{header}.{deep}.c2ln", f"{deep}.{header}.c2ln"):
        assert len(token) < MAX_TOKEN_LENGTH
        with pytest.raises(UnparsableAccessToken):
            token_expiry(token)
        with pytest.raises(UnparsableAccessToken):
            run(TokenVerifier(config), jwks_server, token)
