from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


_TOKEN_CHARS = "abcxyzABZ0129._~-"
_tokens = st.text(_TOKEN_CHARS + '"\\%,[] é', max_size=12)


@given(
    refresh=_tokens,
    access=_tokens,
    encode=st.sampled_from(["component", "lower hex", "raw", "json of other shapes"]),
    edit=st.one_of(st.none(), st.tuples(st.integers(0, 60), st.text('%25BbCcDd2,[]"', min_size=1, max_size=3))),
    ask_for=st.sampled_from(["same", "other", None]),
)
def test_the_encoded_access_cookie_reads_as_decoding_and_parsing_it(refresh, access, encode, edit, ask_for) -> None:
    """The fast path for the usual encodeURIComponent(JSON) value answers what unquote and
    json.loads answer, for every value: usual, hex in lower case, edited or of another shape."""
    import json
    from urllib.parse import quote, unquote

    text = json.dumps([refresh, access], separators=(",", ":"))
    if encode == "json of other shapes":
        text = json.dumps([refresh, access, 1] if len(access) % 2 else {"r": refresh})
    raw = text if encode == "raw" else quote(text, safe="")
    if encode == "lower hex":
        raw = re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), raw)
    if edit is not None:
        raw = raw[: edit[0]] + edit[1] + raw[edit[0] :]
    wanted = {"same": refresh, "other": refresh + "x", None: None}[ask_for]
    assert c._encoded_access(raw, wanted) == c.access_from_cookie(unquote(raw), wanted)


def test_the_usual_access_cookie_takes_the_fast_path() -> None:
    raw = "%5B%22r1%22%2C%22eyJ.a-b_c.d%22%5D"
    assert c._ENCODED_PAIR.fullmatch(raw) is not None
    assert c._encoded_access(raw, "r1") == "eyJ.a-b_c.d"
    assert c._encoded_access(raw, "r2") is None
    assert c._encoded_access(raw, None) is None


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
