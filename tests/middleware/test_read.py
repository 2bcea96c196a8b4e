"""Reading the session from a request: the x-stack-auth header and the cookies (service-api A4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from authmw import AuthConfig
from authmw.errors import ConfigurationError
from authmw.middleware._core import Authenticator, Refusal, Tokens, is_secure

from .support import cookie_header

PID = "2c4a3e8e-9b57-4a43-9d39-1e4a6b0f6b1a"
OTHER = "7d1f0c55-3c1e-4f0b-8f43-5f7b8b3b9a11"


@pytest.fixture
def core() -> Authenticator:
    return Authenticator(AuthConfig(project_id=PID, api_url="http://127.0.0.1:9", publishable_client_key="pck_x"))


def test_a_middleware_that_cannot_refresh_is_refused_at_once() -> None:
    with pytest.raises(ConfigurationError, match="AUTHMW_SECRET_SERVER_KEY"):
        Authenticator(AuthConfig(project_id=PID))


def read(core: Authenticator, cookie: str | None = None, header: str | None = None) -> Tokens:
    tokens = core.read(cookie=cookie, auth_header=header, secure=False)
    assert tokens.cookie == (cookie if tokens.from_cookies else None)  # the key its outcome is kept under
    return tokens._replace(cookie=None)


def test_cookies(core: Authenticator) -> None:
    tokens = read(core, cookie_header(PID, "r1", "a1"))
    assert (tokens.refresh_token, tokens.access_token, tokens.from_cookies) == ("r1", "a1", True)


def test_legacy_refresh_cookie_is_a_fallback(core: Authenticator) -> None:
    assert read(core, cookie_header(PID, "old", "a", legacy=True)).refresh_token == "old"
    both = cookie_header(PID, "new") + "; stack-refresh=old"
    assert read(core, both).refresh_token == "new"


def test_access_cookie_of_another_refresh_token_is_ignored(core: Authenticator) -> None:
    cookie = cookie_header(PID, "mine") + "; " + cookie_header(OTHER, "theirs", "their-access").split("; ")[1]
    tokens = read(core, cookie)
    assert (tokens.refresh_token, tokens.access_token) == ("mine", None)


def test_access_cookie_without_refresh_token_is_ignored(core: Authenticator) -> None:
    assert read(core, 'stack-access=["r","a"]') == Tokens(None, None, True, False)


def test_undefined_is_not_a_token(core: Authenticator) -> None:
    tokens = read(core, cookie_header(PID, "undefined", "a"))
    assert (tokens.refresh_token, tokens.access_token) == (None, None)
    tokens = read(core, cookie_header(PID, "r", "undefined"))
    assert (tokens.refresh_token, tokens.access_token) == ("r", None)


def test_header_wins_over_cookies(core: Authenticator) -> None:
    header = json.dumps({"accessToken": "ha", "refreshToken": "hr"})
    tokens = read(core, cookie_header(PID, "cr", "ca"), header)
    assert (tokens.access_token, tokens.refresh_token, tokens.from_cookies) == ("ha", "hr", False)


def test_header_missing_keys_are_null(core: Authenticator) -> None:
    assert read(core, cookie_header(PID, "cr", "ca"), "{}") == Tokens(None, None, False, False)
    assert read(core, None, '{"refreshToken": "r"}').refresh_token == "r"


@pytest.mark.parametrize(
    "value",
    ["", "not json", "null", "[]", '"text"', "1", '{"accessToken": 5}', '{"refreshToken": {}}', '{"a":' + "[" * 50_000],
)
def test_invalid_header_is_rejected_with_400_without_echoing(core: Authenticator, value: str) -> None:
    with pytest.raises(Refusal) as caught:
        read(core, None, value)
    assert caught.value.status == 400
    assert caught.value.message.startswith("Invalid x-stack-auth header: ")
    assert json.loads(caught.value.body) == {"error": caught.value.message}


def test_invalid_header_message_never_contains_the_value(core: Authenticator) -> None:
    secret = "eyJhbGciOiJFUzI1NiJ9.secret.part"
    with pytest.raises(Refusal) as caught:
        read(core, None, '{"accessToken": "' + secret + '", oops}')
    assert secret not in caught.value.message


def test_secure_detection(core: Authenticator) -> None:
    assert is_secure("https", None)
    assert is_secure("http", "https")
    assert is_secure("http", "https, http")
    assert not is_secure("http", "http")
    assert not is_secure("http", None)
    assert core.read(cookie="stack-is-https=true", auth_header=None, secure=False).secure


_PIECES = [
    f"stack-refresh-{PID}=",
    "stack-refresh=",
    "stack-access=",
    '["',
    '",',
    "%",
    "%5B%22",
    '"',
    ";",
    "=",
    "undefined",
]
cookies = st.lists(st.sampled_from(_PIECES) | st.text(max_size=5)).map("".join)
json_values = st.recursive(
    st.none() | st.text() | st.integers(),
    lambda inner: st.lists(inner) | st.dictionaries(st.sampled_from(["accessToken", "refreshToken", "x"]), inner),
)


@settings(max_examples=300, deadline=None)
@given(
    cookie=st.none() | st.text() | cookies,
    header=st.none() | st.text() | json_values.map(json.dumps),
)
def test_reading_any_input_gives_tokens_or_a_400(cookie: str | None, header: str | None) -> None:
    core = Authenticator(AuthConfig(project_id=PID, api_url="http://127.0.0.1:9", publishable_client_key="pck_x"))
    try:
        tokens = core.read(cookie=cookie, auth_header=header, secure=False)
    except Refusal as reject:
        assert reject.status == 400 and header is not None
    else:
        for token in (tokens.access_token, tokens.refresh_token):
            assert token is None or (isinstance(token, str) and token and token != "undefined")


def test_repeated_values_are_read_once_and_the_memo_stays_bounded(core: Authenticator, monkeypatch) -> None:
    core.credentials.cookie_memo.size = core.credentials.header_memo.size = 3
    cookie = cookie_header(PID, "r1", "a1")
    first = core.read(cookie=cookie, auth_header=None, secure=False)
    assert core.read(cookie=cookie, auth_header=None, secure=True) == first._replace(secure=True)
    for i in range(10):
        core.read(cookie=cookie_header(PID, f"r{i}"), auth_header=None, secure=False)
        core.read(cookie=None, auth_header=json.dumps({"refreshToken": f"r{i}"}), secure=False)
    assert len(core.credentials.cookie_memo) <= 3 and len(core.credentials.header_memo) <= 3
    huge = cookie_header(PID, "r") + "; other=" + "x" * 5000
    assert core.read(cookie=huge, auth_header=None, secure=False).refresh_token == "r"
    assert huge not in core.credentials.cookie_memo
    for _ in range(2):  # a refusal is not remembered
        with pytest.raises(Refusal):
            core.read(cookie=None, auth_header="nope", secure=False)


def test_only_plain_signed_in_outcomes_are_remembered_and_the_map_is_bounded(core: Authenticator, monkeypatch) -> None:
    import dataclasses
    import time

    import authmw.middleware._core as core_module
    from authmw._tokens import Claims
    from authmw.middleware._core import Outcome, Tokens

    core._decided.size = 2
    claims = Claims(sub="u", aud=PID, iss="i", iat=None, exp=time.time() + 600, raw={})
    signed_in = Outcome(claims, "a", "r")

    def finish(cookie: str, outcome: Outcome) -> Outcome:  # as decide() and settle() end
        return core._finished(Tokens("a", "r", from_cookies=True, cookie=cookie), outcome)

    def decided(cookie: str) -> Outcome | Tokens:  # these Cookie values hold no session
        return core.decide(cookie, None)

    kept = finish("c1", signed_in)
    assert kept.from_cookies and kept._replace(from_cookies=False) == signed_in
    assert decided("c1") is kept
    finish("c2", Outcome())  # anonymous
    finish("c3", signed_in._replace(cookies=("stack-access=...",)))  # cookies to write
    finish("x" * 5000, signed_in)  # too long to keep
    assert [decided(k) for k in ("c2", "c3", "x" * 5000)] == [core_module.NO_SESSION] * 3
    finish("c4", signed_in)
    finish("c5", signed_in)
    assert len(core._decided) <= 2
    finish("c6", Outcome(dataclasses.replace(claims, exp=time.time() + 19), "a", "r"))
    assert decided("c6") == core_module.NO_SESSION  # under the 20 s margin: decided again (refreshed)
