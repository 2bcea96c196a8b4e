from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

import pytest
from hypothesis import given, strategies as st

from authmw.errors import ConfigurationError
from authmw.middleware import _cookies as c

PID = "2c4a3e8e-9b57-4a43-9d39-1e4a6b0f6b1a"


def test_parse_reads_only_wanted_names_and_percent_decodes() -> None:
    header = f"other=1; stack-refresh-{PID}=abc%2Fdef; stack-access=%5B%22r%22%2C%22a%22%5D"
    found = c.parse_cookie_header(header, frozenset({f"stack-refresh-{PID}", "stack-access"}))
    assert found == {f"stack-refresh-{PID}": "abc/def", "stack-access": '["r","a"]'}


def test_parse_accepts_raw_values_and_first_occurrence_wins() -> None:
    found = c.parse_cookie_header('stack-access=["r","a"]; stack-access=later', frozenset({"stack-access"}))
    assert found == {"stack-access": '["r","a"]'}


def test_parse_survives_garbage() -> None:
    for header in ["", ";;;", "=", "stack-access", "stack-access=%zz%", "a=b=c; stack-access=\x00"]:
        c.parse_cookie_header(header, frozenset({"stack-access"}))


@given(st.text(alphabet=st.sampled_from(list('%2Fa5BzC"é\x00 ')) | st.characters(), max_size=40))
def test_a_cookie_value_is_percent_decoded_as_unquote_does(value: str) -> None:
    from urllib.parse import unquote

    assert c._cookie_value(value) == unquote(c._unwrapped(value))


_PIECES = st.text(alphabet=st.sampled_from(list('aZ09-_.%2Cc5BbD"\\é\x00 ,[]')), max_size=12)


@given(
    st.one_of(
        st.tuples(_PIECES, _PIECES).map(lambda p: f"%5B%22{p[0]}%22%2C%22{p[1]}%22%5D"),
        st.tuples(_PIECES, _PIECES).map(lambda p: f'"%5B%22{p[0]}%22%2C%22{p[1]}%22%5D" '),
        _PIECES.map(lambda p: f"%5B%22{p}%22%5D"),
        st.text(max_size=40),
    ),
    st.one_of(_PIECES, st.just("r1")),
    st.booleans(),
)
def test_the_access_cookie_read_by_slicing_answers_as_decoding_and_json(raw: str, refresh: str, own: bool) -> None:
    """The shortcut for the value every SDK writes gives what percent-decoding and JSON give,
    on that shape with arbitrary halves (quotes, backslashes, escapes, non-ASCII) and on
    arbitrary text; ``own``: the refresh token is the value's own first half."""
    if own and raw.startswith("%5B%22") and "%22%2C%22" in raw:
        refresh = raw[6:].partition("%22%2C%22")[0]
    assert c._access_of(raw, refresh) == c.access_from_cookie(c._cookie_value(raw), refresh)


def test_the_access_cookie_read_by_slicing_keeps_to_its_refresh_token() -> None:
    jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln-_"
    assert c._access_of(f"%5B%22r1%22%2C%22{jwt}%22%5D", "r1") == jwt
    assert c._access_of(f"%5B%22r1%22%2C%22{jwt}%22%5D", "r2") is None
    # A half that needs decoding takes the general way, with the same answer.
    assert c._access_of("%5B%22r%2F1%22%2C%22a%22%5D", "r/1") == "a"
    assert c._access_of("%5B%22r1%22%2C%22a\\u0062%22%5D", "r1") == "ab"  # (JSON decodes the escape)


def test_access_cookie_value_is_compact_json_like_the_browser() -> None:
    assert c.access_cookie_value("r", "a") == '["r","a"]'


def test_access_only_when_element_zero_is_the_refresh_token() -> None:
    assert c.access_from_cookie('["r","a"]', "r") == "a"
    assert c.access_from_cookie('["other","a"]', "r") is None
    assert c.access_from_cookie('["r","a"]', None) is None
    assert c.access_from_cookie(' ["r","a"]', "r") is None  # must start with ["
    assert c.access_from_cookie('["r"', "r") is None
    assert c.access_from_cookie('["r",1]', "r") is None
    assert c.access_from_cookie('["r","a","x"]', "r") is None
    assert c.access_from_cookie('["r",' + "[" * 50_000, "r") is None


def test_the_access_cookie_is_read_percent_decoded() -> None:
    """As every SDK writes it (encodeURIComponent of the JSON pair), with hex digits in either
    case, or not encoded at all; its access token only goes with its own refresh token."""
    reader = c.SessionCookieReader("p")
    for raw in ("%5B%22r1%22%2C%22eyJ.a-b_c.d%22%5D", "%5b%22r1%22%2c%22eyJ.a-b_c.d%22%5d", '["r1","eyJ.a-b_c.d"]'):
        assert reader.read(f"stack-refresh-p=r1; stack-access={raw}").access_token == "eyJ.a-b_c.d"
    assert reader.read("stack-refresh-p=r2; stack-access=%5B%22r1%22%2C%22eyJ.a%22%5D").access_token is None


def test_set_cookie_format() -> None:
    header = c.set_cookie("stack-access", '["r","a"]', c.ACCESS_COOKIE_MAX_AGE, now=1_700_000_000, secure=False)
    m = re.fullmatch(r"stack-access=(\S+); Path=/; Max-Age=86400; Expires=(.+ GMT); SameSite=Lax", header)
    assert m, header
    assert m.group(1) == "%5B%22r%22%2C%22a%22%5D"
    assert parsedate_to_datetime(m.group(2)).timestamp() == 1_700_000_000 + 86_400
    assert "HttpOnly" not in header  # the browser SDKs read the cookies in the page
    secure = c.set_cookie("x", "v", 1, now=0, secure=True)
    assert secure.endswith("; SameSite=Lax; Secure")


def test_delete_cookie_format() -> None:
    assert c.delete_cookie("stack-refresh", secure=False) == (
        "stack-refresh=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax"
    )


@pytest.mark.parametrize("given", ["lax", "Lax", "LAX"])
def test_same_site_is_written_as_browsers_spell_it(given: str) -> None:
    assert c.CookieAttributes(given).suffix(False) == "; SameSite=Lax"


def test_strict_and_secure_always() -> None:
    attributes = c.CookieAttributes("strict", True)
    assert c.delete_cookie("x", secure=False, attributes=attributes).endswith("; SameSite=Strict; Secure")
    assert c.set_cookie("x", "v", 1, now=0, secure=True, attributes=attributes).endswith("; SameSite=Strict; Secure")


def test_same_site_none_needs_secure() -> None:
    with pytest.raises(ConfigurationError, match=r'cookie_same_site "None" needs Secure cookies.*cookie_secure'):
        c.CookieAttributes("None")
    assert c.CookieAttributes("none", True).suffix(False) == "; SameSite=None; Secure"


@pytest.mark.parametrize(
    ("same_site", "secure", "named"),
    [("sometimes", None, "cookie_same_site"), ("Lax", False, "cookie_secure"), (None, None, "cookie_same_site")],
)
def test_bad_cookie_settings_name_the_setting(same_site, secure, named) -> None:
    with pytest.raises(ConfigurationError, match=named):
        c.CookieAttributes(same_site, secure)


def test_settings_are_named_as_the_adapter_names_them() -> None:
    with pytest.raises(ConfigurationError, match=r'AUTHMW\["COOKIE_SECURE"\]'):
        c.CookieAttributes("None", name=lambda key: f'AUTHMW["{key}"]')


def test_session_cookies_join_the_response_headers() -> None:
    ours = ("stack-access=new; Path=/", "stack-refresh=; Max-Age=0")
    headers = [("Content-Type", "text/plain"), ("Cache-Control", "public, max-age=60")]
    assert c.with_session_cookies(headers, ours) == [
        ("Content-Type", "text/plain"),
        ("cache-control", "no-store"),
        ("set-cookie", "stack-access=new; Path=/"),
        ("set-cookie", "stack-refresh=; Max-Age=0"),
    ]


def test_a_cookie_the_app_sets_itself_wins() -> None:
    ours = ("stack-access=new; Path=/",)
    headers = [("Set-Cookie", "stack-access=; Max-Age=0"), ("cache-control", "max-age=5")]
    assert c.with_session_cookies(headers, ours) == headers
