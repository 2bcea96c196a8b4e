"""The kinds of access token API 2.7 and 2.8 sign, checked by one rule (authmw/token_kinds.json).

Pure code over keys generated here: a JWKS answered by a recorder, a refresher that is a
function. The same rule against the local service is in tests/middleware/test_api_versions.py.
"""

from __future__ import annotations

import base64
import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from authmw import AuthConfig
from authmw._ops import Op
from authmw._tokens import LEGACY_ISSUER, TokenVerifier
from authmw._transport import Transport
from authmw.errors import (
    AnonymousAuthenticationNotAllowed,
    ConfigurationError,
    InvalidProjectForAccessToken,
    RestrictedUserNotAllowed,
    UnparsableAccessToken,
)
from authmw.middleware import AuthUser
from authmw.middleware._core import MALFORMED_AUTHORIZATION, NO_SESSION, Authenticator, Outcome, Refusal, Tokens

from .conftest import Recorder, SigningKey

API = "http://auth.test"
KIND_PATHS = {"": "projects", ":restricted": "projects-restricted-users", ":anon": "projects-anonymous-users"}


def claims_of(project_id: str, suffix: str = "", **overrides: Any) -> dict[str, Any]:
    """A 2.8 access token's claims for the kind with audience suffix ``suffix``."""
    now = int(time.time())
    anonymous, restricted = suffix == ":anon", suffix != ""
    claims = {
        "sub": str(uuid.uuid4()),
        "aud": project_id + suffix,
        "iss": f"{API}/api/v1/{KIND_PATHS[suffix]}/{project_id}",
        "iat": now,
        "exp": now + 600,
        "project_id": project_id,
        "branch_id": "main",
        "refresh_token_id": str(uuid.uuid4()),
        "role": "authenticated",
        "is_anonymous": anonymous,
        "is_restricted": restricted,
        "restricted_reason": {"type": "anonymous" if anonymous else "email_not_verified"} if restricted else None,
    }
    claims.update(overrides)
    return {k: v for k, v in claims.items() if v is not None}


class KeySet:
    """Two keys per audience as API 2.8 publishes them; the second of each is listed second
    and does not sign (the service will swap them one day: a verifier selects by kid)."""

    def __init__(self) -> None:
        self.keys = {suffix: (SigningKey(f"first{i:07d}"), SigningKey(f"second{i:06d}")) for i, suffix in enumerate(KIND_PATHS)}
        self.requests: list[httpx.Request] = []

    def jwks(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        wanted = [""]
        if request.url.params.get("include_restricted") == "true":
            wanted.append(":restricted")
        if request.url.params.get("include_anonymous") == "true":
            wanted += [":restricted", ":anon"]
        keys = [key.jwk() for suffix in dict.fromkeys(wanted) for key in self.keys[suffix]]
        return httpx.Response(200, json={"keys": keys})

    def sign(self, project_id: str, suffix: str = "", *, second: bool = False, **overrides: Any) -> str:
        return self.keys[suffix][1 if second else 0].sign(claims_of(project_id, suffix, **overrides))


@pytest.fixture
def keys() -> KeySet:
    return KeySet()


def verify(config: AuthConfig, keys: KeySet, token: str):
    return Recorder(keys.jwks).sync_driver().run(TokenVerifier(config).verify(token))


# -- which tokens a project accepts ----------------------------------------------------------


@pytest.mark.parametrize("api_url", [API, API + "/", API + "/api/v1", API + "/api/v1/"])
def test_a_2_8_token_is_accepted_with_the_issuer_of_the_configured_url(config, keys, project_id, api_url):
    claims = verify(config.with_(api_url=api_url), keys, keys.sign(project_id))
    assert (claims.kind, claims.aud, claims.project_id, claims.branch_id) == ("user", project_id, project_id, "main")


def test_a_trailing_slash_on_the_issuer_is_the_same_issuer(config, keys, project_id):
    token = keys.sign(project_id, iss=f"{API}/api/v1/projects/{project_id}/")
    assert verify(config, keys, token).kind == "user"


def test_a_2_7_token_is_accepted_with_the_fixed_issuer(config, project_id, key):
    token = key.sign({"sub": "u1", "aud": project_id, "iss": LEGACY_ISSUER, "exp": int(time.time()) + 600, "branchId": "main"})
    claims = Recorder(lambda r: httpx.Response(200, json=key.jwks())).sync_driver().run(TokenVerifier(config).verify(token))
    assert (claims.sub, claims.kind, claims.branch_id) == ("u1", "user", "main")


def test_the_key_listed_second_is_used_when_it_signed(config, keys, project_id):
    assert verify(config, keys, keys.sign(project_id, second=True)).kind == "user"


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"iss": "https://evil.example/api/v1/projects/{pid}"}, UnparsableAccessToken),  # another service
        ({"iss": API + "/api/v1/projects-anonymous-users/{pid}"}, UnparsableAccessToken),  # another kind's issuer
        ({"iss": API + "/api/v1/projects/00000000-0000-0000-0000-000000000000"}, UnparsableAccessToken),
        ({"iss": API + "/api/v1/projects/{pid}/x"}, UnparsableAccessToken),
        ({"iss": None}, UnparsableAccessToken),
        ({"branch_id": "dev"}, UnparsableAccessToken),
        ({"branch_id": None, "branchId": "preview"}, UnparsableAccessToken),
        ({"aud": "{pid}:admin"}, InvalidProjectForAccessToken),
        ({"aud": ["{pid}"]}, InvalidProjectForAccessToken),
        ({"aud": "00000000-0000-0000-0000-000000000000"}, InvalidProjectForAccessToken),
    ],
)
def test_tokens_of_another_issuer_branch_or_audience_are_refused(config, keys, project_id, overrides, error):
    filled = {k: json.loads(json.dumps(v).replace("{pid}", project_id)) for k, v in overrides.items()}
    with pytest.raises(error):
        verify(config, keys, keys.sign(project_id, **filled))


def test_the_legacy_issuer_goes_with_the_plain_audience_only(config, keys, project_id):
    config = config.with_(allow_anonymous=True)
    with pytest.raises(UnparsableAccessToken):
        verify(config, keys, keys.sign(project_id, ":anon", iss=LEGACY_ISSUER))


def test_a_2_7_branch_id_in_camel_case_is_read_and_main_accepted(config, keys, project_id):
    claims = verify(config, keys, keys.sign(project_id, branch_id=None, branchId="main"))
    assert claims.branch_id == "main"


@pytest.mark.parametrize(("value", "iso"), [(1_700_000_000, "2023-11-14T22:13:20"), (1_700_000_000_123, "2023-11-14T22:13:20.123000")])
def test_signed_up_at_is_seconds_in_2_8_and_milliseconds_from_older_local_services(config, keys, project_id, value, iso):
    signed_up_at = verify(config, keys, keys.sign(project_id, signed_up_at=value)).signed_up_at
    assert signed_up_at is not None and signed_up_at.isoformat().startswith(iso)


def test_refused_project_error_names_both_projects(config, keys, project_id):
    other = str(uuid.uuid4())
    with pytest.raises(InvalidProjectForAccessToken) as info:
        verify(config, keys, keys.keys[""][0].sign(claims_of(other)))
    assert info.value.details == {"expected_project_id": project_id, "actual_project_id": other}


def test_a_service_reached_by_an_internal_url_needs_its_public_url(config, keys, project_id, caplog):
    public = "https://auth.example.com"
    token = keys.sign(project_id, iss=f"{public}/api/v1/projects/{project_id}")
    internal = config.with_(api_url="http://stack-backend:8102")
    with caplog.at_level(logging.WARNING, "authmw"), pytest.raises(UnparsableAccessToken) as info:
        verify(internal, keys, token)
    assert "public_api_url" in caplog.text and "AUTHMW_PUBLIC_API_URL" in caplog.text and public in caplog.text
    assert "stack-backend" not in info.value.message  # the reply to the client names no URL
    claims = verify(internal.with_(public_api_url=public + "/"), keys, token)
    assert claims.kind == "user" and internal.with_(public_api_url=public).jwks_url.startswith("http://stack-backend")


# -- anonymous and restricted users ----------------------------------------------------------


@pytest.mark.parametrize(("suffix", "error"), [(":anon", AnonymousAuthenticationNotAllowed), (":restricted", RestrictedUserNotAllowed)])
def test_anonymous_and_restricted_tokens_are_refused_before_any_io_by_default(config, keys, project_id, suffix, error):
    recorder = Recorder(keys.jwks)
    with pytest.raises(error):
        recorder.sync_driver().run(TokenVerifier(config).verify(keys.sign(project_id, suffix)))
    assert recorder.requests == []  # decided from the audience: no key set fetched
    # even a forged one with a junk signature: it means "not signed in", nothing more
    assert TokenVerifier(config).refused_kind(keys.sign(project_id, suffix)[:-4] + "AAAA") is not None


def test_restricted_refusal_says_why(config, keys, project_id):
    error = TokenVerifier(config).refused_kind(keys.sign(project_id, ":restricted"))
    assert isinstance(error, RestrictedUserNotAllowed)
    assert error.details == {"restricted_reason": {"type": "email_not_verified"}}


@pytest.mark.parametrize(
    ("options", "query", "accepted"),
    [
        ({"allow_anonymous": True}, "include_anonymous=true", {":anon", ":restricted"}),
        ({"allow_restricted": True}, "include_restricted=true", {":restricted"}),
    ],
)
def test_an_app_that_opts_in_verifies_them_with_the_extended_key_set(config, keys, project_id, options, query, accepted):
    config = config.with_(**options)
    assert config.jwks_url.endswith("/.well-known/jwks.json?" + query)
    for suffix in (":anon", ":restricted"):
        token = keys.sign(project_id, suffix, second=suffix == ":anon")
        if suffix in accepted:
            claims = verify(config, keys, token)
            assert claims.kind == {":anon": "anonymous", ":restricted": "restricted"}[suffix]
            assert claims.aud == project_id + suffix
        else:
            with pytest.raises(AnonymousAuthenticationNotAllowed):
                verify(config, keys, token)
    assert all(query in str(r.url) for r in keys.requests)


def test_an_opted_in_kind_must_still_carry_its_own_issuer(config, keys, project_id):
    config = config.with_(allow_anonymous=True)
    with pytest.raises(UnparsableAccessToken):
        verify(config, keys, keys.sign(project_id, ":anon", iss=f"{API}/api/v1/projects/{project_id}"))


def test_the_user_says_what_kind_it_is(config, keys, project_id):
    config = config.with_(allow_anonymous=True)
    users = {s: AuthUser(verify(config, keys, keys.sign(project_id, s)), "t", None) for s in KIND_PATHS}
    got = {s: (u.is_anonymous, u.is_restricted, u.restricted_reason) for s, u in users.items()}
    assert got == {
        "": (False, False, None),
        ":restricted": (False, True, "email_not_verified"),
        ":anon": (True, True, "anonymous"),
    }


@pytest.mark.parametrize(("text", "value"), [("true", True), ("1", True), ("False", False), ("", False)])
def test_opt_ins_read_from_the_environment(project_id, text, value):
    env = {"AUTHMW_PROJECT_ID": project_id, "AUTHMW_ALLOW_ANONYMOUS": text, "AUTHMW_ALLOW_RESTRICTED": text}
    config = AuthConfig.from_env(env)
    assert (config.allow_anonymous, config.allow_restricted) == (value, value)


def test_a_bad_opt_in_value_names_the_setting(project_id):
    with pytest.raises(ConfigurationError, match="AUTHMW_ALLOW_ANONYMOUS"):
        AuthConfig.from_env({"AUTHMW_PROJECT_ID": project_id, "AUTHMW_ALLOW_ANONYMOUS": "maybe"})


@pytest.mark.parametrize("options", [{}, {"allow_anonymous": True}, {"allow_restricted": True}])
def test_the_allow_header_goes_only_with_an_opt_in(config, options):
    headers = Transport(config.with_(**options), "server").headers(access_token="t")
    assert headers.get("x-stack-allow-anonymous-user") == ("true" if options else None)


# -- the middleware's decisions --------------------------------------------------------------


class Refresher:
    """The service's refresh, as a function: hands out ``tokens`` in turn, counting calls."""

    def __init__(self, *tokens: str | None) -> None:
        self.tokens = list(tokens)
        self.calls = 0

    def __call__(self, config: AuthConfig, refresh_token: str) -> Op[str | None]:
        self.calls += 1
        return self.tokens.pop(0) if len(self.tokens) > 1 else self.tokens[0]
        yield  # (a generator: an operation without effects)


def authenticator(config: AuthConfig, refresher: Refresher, clock: Callable[[], float] = time.time) -> Authenticator:
    return Authenticator(config, refresher=refresher, startup_check=False, clock=clock)


def settle(core: Authenticator, keys: KeySet, decided: Any):
    if not isinstance(decided, Tokens):
        return decided
    return Recorder(keys.jwks).sync_driver().run(core.settle(decided))


def cookie_of(project_id: str, refresh: str, access: str | None) -> str:
    from urllib.parse import quote

    cookie = f"stack-refresh-{project_id}={refresh}"
    if access is not None:
        cookie += "; stack-access=" + quote(json.dumps([refresh, access]))
    return cookie


def test_an_anonymous_cookie_session_is_not_signed_in_and_left_alone(config, keys, project_id):
    refresher = Refresher(keys.sign(project_id))
    core = authenticator(config, refresher)
    expired = keys.sign(project_id, ":anon", exp=int(time.time()) - 60)  # no refresh even so
    for access in (keys.sign(project_id, ":anon"), expired):
        cookie = cookie_of(project_id, "r" * 45, access)
        decided = core.decide(cookie, None)
        # not signed in, no I/O, nothing written or deleted; the guards learn why (an anonymous user)
        assert decided == Outcome(refused=decided.refused) and decided.cookies == ()
        assert isinstance(decided.refused, AnonymousAuthenticationNotAllowed)
        again = core.decide(cookie, None)  # (a lookup the second time)
        assert again == Outcome(refused=again.refused) and isinstance(again.refused, AnonymousAuthenticationNotAllowed)
    assert refresher.calls == 0


def test_a_refresh_that_gives_an_anonymous_token_is_not_repeated(config, keys, project_id):
    anon = keys.sign(project_id, ":anon")
    refresher = Refresher(anon)
    core = authenticator(config, refresher)
    for _ in range(5):
        outcome = settle(core, keys, core.decide(cookie_of(project_id, "r" * 45, None), None))
        assert outcome.claims is None and outcome.cookies == ()  # not signed in, cookies kept
    assert refresher.calls == 1


def test_a_refreshed_token_refused_by_the_verifier_is_not_fetched_again(config, keys, project_id, caplog):
    """A service reached by another URL than the one it signs with: every refreshed token is
    refused (issuer). One refresh per session, not one per request; the cookies stay."""
    public = keys.sign(project_id, iss=f"https://auth.example.com/api/v1/projects/{project_id}")
    refresher = Refresher(public)
    core = authenticator(config, refresher)
    with caplog.at_level(logging.WARNING, "authmw"):
        for _ in range(5):
            outcome = settle(core, keys, core.decide(cookie_of(project_id, "r" * 45, None), None))
            assert outcome.claims is None and outcome.cookies == ()
    assert refresher.calls == 1 and "public_api_url" in caplog.text


def test_a_refreshed_kind_is_retried_once_the_token_it_gave_has_expired(config, keys, project_id):
    now = [time.time()]
    restricted = keys.sign(project_id, ":restricted", exp=int(now[0]) + 600)
    refresher = Refresher(restricted, keys.sign(project_id, exp=int(now[0]) + 1800))  # e-mail verified since
    core = authenticator(config, refresher, clock=lambda: now[0])
    cookie = cookie_of(project_id, "r" * 45, None)
    assert settle(core, keys, core.decide(cookie, None)).claims is None
    assert settle(core, keys, core.decide(cookie, None)).claims is None and refresher.calls == 1
    now[0] += 601
    assert settle(core, keys, core.decide(cookie, None)).claims is not None and refresher.calls == 2


def test_a_refreshed_token_of_a_key_added_since_the_key_set_was_fetched_is_asked_again_soon(config, keys, project_id):
    """The service adds a signing key a few seconds after the verifier fetched the key set: a
    refreshed token signed with it is refused while the key set may not be fetched again (a
    flood of made-up key ids fetches nothing), and asked for again once it may, not only when
    that token expires (the user was not signed in for a whole token's lifetime)."""
    now, mono = [time.time()], [0.0]
    verifier = TokenVerifier(config, clock=lambda: now[0], monotonic=lambda: mono[0], jwks_min_refetch_interval=10)
    added = SigningKey("added000001")
    refresher = Refresher(added.sign(claims_of(project_id, exp=int(now[0]) + 600)))
    core = Authenticator(config, verifier=verifier, refresher=refresher, startup_check=False, clock=lambda: now[0])
    # A session with a token of the key set's own key: the key set is fetched.
    assert settle(core, keys, core.decide(cookie_of(project_id, "a" * 45, keys.sign(project_id)), None)).claims
    fetches = len(keys.requests)
    keys.keys[""] = (added, *keys.keys[""])  # the service adds a key, 3 s after the fetch
    mono[0], now[0] = 3.0, now[0] + 3
    cookie = cookie_of(project_id, "r" * 45, None)
    refused = settle(core, keys, core.decide(cookie, None))
    assert refused.claims is None and refused.cookies == ()  # not signed in; the cookies stay
    assert settle(core, keys, core.decide(cookie, None)).claims is None  # within the interval: no refetch
    assert refresher.calls == 1 and len(keys.requests) == fetches
    mono[0], now[0] = 10.5, now[0] + 7.5  # the key set may be fetched again
    signed_in = settle(core, keys, core.decide(cookie, None))
    assert signed_in.claims is not None and signed_in.claims.sub
    assert refresher.calls == 2 and len(keys.requests) == fetches + 1


def test_a_refreshed_token_of_a_key_the_service_does_not_have_is_asked_again_once_per_interval(config, keys, project_id):
    """The control: a key the service never publishes is refused each time, with one refresh
    and one key-set fetch per refetch interval at most, and the cookies kept."""
    now, mono = [time.time()], [0.0]
    verifier = TokenVerifier(config, clock=lambda: now[0], monotonic=lambda: mono[0], jwks_min_refetch_interval=10)
    stranger = SigningKey("stranger0001")
    refresher = Refresher(stranger.sign(claims_of(project_id, exp=int(now[0]) + 600)))
    core = Authenticator(config, verifier=verifier, refresher=refresher, startup_check=False, clock=lambda: now[0])
    cookie = cookie_of(project_id, "r" * 45, None)
    for step in range(30):  # 30 requests over 15 s
        mono[0], now[0] = mono[0] + 0.5, now[0] + 0.5
        outcome = settle(core, keys, core.decide(cookie, None))
        assert outcome.claims is None and outcome.cookies == (), step
    assert refresher.calls <= 2 and len(keys.requests) <= 2


def test_an_opted_in_app_signs_the_anonymous_session_in(config, keys, project_id):
    core = authenticator(config.with_(allow_anonymous=True), Refresher(None))
    outcome = settle(core, keys, core.decide(cookie_of(project_id, "r" * 45, keys.sign(project_id, ":anon")), None))
    assert outcome.claims is not None and outcome.claims.kind == "anonymous"


def test_an_anonymous_bearer_token_is_not_signed_in_nor_refused(config, keys, project_id):
    core = authenticator(config, Refresher(None))
    outcome = settle(core, keys, core.decide(None, None, keys.sign(project_id, ":anon")))
    assert outcome == Outcome(refused=outcome.refused)  # not signed in, no cookies, no refusal of the request
    assert isinstance(outcome.refused, AnonymousAuthenticationNotAllowed)


# -- Authorization: Bearer stackauth_<base64 JSON> -------------------------------------------


def sdk_header(prefix: str = "stackauth_", **tokens: Any) -> str:
    return prefix + base64.b64encode(json.dumps(tokens).encode()).decode()


@pytest.mark.parametrize("prefix", ["stackauth_", "hexclave_"])
def test_the_sdk_session_header_signs_in_and_refreshes_without_writing_cookies(config, keys, project_id, prefix):
    fresh = keys.sign(project_id)
    refresher = Refresher(fresh)
    core = authenticator(config, refresher)
    valid = keys.sign(project_id)
    outcome = settle(core, keys, core.decide(None, None, sdk_header(prefix, accessToken=valid, refreshToken="r" * 45)))
    assert outcome.access_token == valid and refresher.calls == 0
    expired = keys.sign(project_id, exp=int(time.time()) - 60)
    header = sdk_header(prefix, accessToken=expired, refreshToken="q" * 45)
    outcome = settle(core, keys, core.decide(None, None, header))
    assert outcome.access_token == fresh and outcome.cookies == () and refresher.calls == 1


def test_the_sdk_session_header_wins_over_the_cookies(config, keys, project_id):
    core = authenticator(config, Refresher(None))
    cookie_user, header_user = keys.sign(project_id), keys.sign(project_id)
    cookie = cookie_of(project_id, "c" * 45, cookie_user)
    settle(core, keys, core.decide(cookie, None))  # the cookie decided and remembered
    outcome = settle(core, keys, core.decide(cookie, None, sdk_header(accessToken=header_user, refreshToken=None)))
    assert outcome.access_token == header_user


def test_a_raw_jwt_is_told_apart_without_io(config, keys, project_id):
    core = authenticator(config, Refresher(None))
    decided = core.decide(None, None, keys.sign(project_id))
    assert isinstance(decided, Tokens) and decided.bearer


@pytest.mark.parametrize(
    "value",
    [
        "stackauth_",
        "stackauth_   ",
        "stackauth_%%%not-base64",
        "stackauth_" + base64.b64encode(b"\xff\xfe").decode(),
        "stackauth_" + base64.b64encode(b"not json").decode(),
        sdk_header(),  # {} is an object: both tokens absent, which is fine (see below)
        "stackauth_" + base64.b64encode(b'["a", "b"]').decode(),
        "stackauth_" + base64.b64encode(b'"text"').decode(),
        sdk_header(accessToken=5),
        sdk_header(refreshToken={"a": 1}),
        "hexclave_" + base64.b64encode(b"null").decode(),
    ],
)
def test_a_malformed_sdk_session_header_is_a_401_with_a_fixed_description(config, project_id, value):
    core = authenticator(config, Refresher(None))
    if value == sdk_header():
        assert core.decide(None, None, value) == NO_SESSION
        return
    with pytest.raises(Refusal) as info:
        core.decide(None, None, value)
    refusal = info.value
    assert refusal.status == 401 and refusal.message == MALFORMED_AUTHORIZATION
    assert refusal.www_authenticate is not None and 'error="invalid_token"' in refusal.www_authenticate
    assert value.partition("_")[2] == "" or value.partition("_")[2] not in refusal.body.decode()
