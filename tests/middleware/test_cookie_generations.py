"""Every generation of session cookie the official SDK writes is read; authmw's writes keep other sessions."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, strategies as st

from authmw import AuthConfig
from authmw.errors import ConfigurationError
from authmw.middleware import _cookies as c
from authmw.middleware._core import Authenticator

PID = "2c4a3e8e-9b57-4a43-9d39-1e4a6b0f6b1a"
OTHER = "7d1f0c55-3c1e-4f0b-8f43-5f7b8b3b9a11"
reader = c.SessionCookieReader(PID)


def structured(token: object, updated: object = 1_700_000_000_000) -> str:
    return quote(json.dumps({"refresh_token": token, "updated_at_millis": updated}), safe="")


def pair(refresh: str, access: str) -> str:
    return quote(json.dumps([refresh, access]), safe="")


def custom(domain: str) -> str:
    return "custom-" + base64.b32encode(domain.encode()).decode().rstrip("=").lower()


def test_2_7_raw_cookie_and_access_pair() -> None:
    got = reader.read(f"stack-refresh-{PID}=r1; stack-access={pair('r1', 'a1')}")
    assert (got.refresh_token, got.access_token) == ("r1", "a1")
    assert got.refresh_cookies == ((f"stack-refresh-{PID}", "r1"),)


def test_legacy_stack_refresh_is_read_after_the_per_project_cookie() -> None:
    assert reader.read("stack-refresh=old").refresh_token == "old"
    assert reader.read(f"stack-refresh=old; stack-refresh-{PID}=new").refresh_token == "new"


@pytest.mark.parametrize(
    "name",
    [
        f"stack-refresh-{PID}--default",
        f"__Host-stack-refresh-{PID}--default",
        f"stack-refresh-{PID}--{custom('example.com')}",
        f"hexclave-refresh-{PID}--default",
        f"__Host-hexclave-refresh-{PID}--default",
    ],
)
def test_each_structured_name_is_read(name: str) -> None:
    got = reader.read(f"{name}={structured('r8')}; stack-access={pair('r8', 'a8')}")
    assert (got.refresh_token, got.access_token) == ("r8", "a8")


def test_the_newest_structured_cookie_wins_and_null_is_oldest() -> None:
    header = "; ".join(
        [
            f"stack-refresh-{PID}--default={structured('old', 1)}",
            f"__Host-stack-refresh-{PID}--default={structured('newest', 3)}",
            f"stack-refresh-{PID}--{custom('example.com')}={structured('middle', 2)}",
            f"stack-refresh-{PID}--x={structured('never', None)}",
        ]
    )
    got = reader.read(header)
    assert got.refresh_token == "newest"
    assert [token for _, token in got.refresh_cookies] == ["newest", "middle", "old", "never"]
    assert reader.read(f"stack-refresh-{PID}--x={structured('only', None)}").refresh_token == "only"


def test_precedence_across_generations_is_the_newest_sdks() -> None:
    hexclave = f"hexclave-refresh-{PID}--default={structured('hex', 1)}"
    raw = f"stack-refresh-{PID}=raw"
    legacy = "stack-refresh=legacy"
    stack = f"stack-refresh-{PID}--default={structured('stack', 99)}"
    assert reader.read("; ".join([stack, legacy, raw, hexclave])).refresh_token == "hex"
    assert reader.read("; ".join([stack, legacy, raw])).refresh_token == "raw"
    assert reader.read("; ".join([stack, legacy])).refresh_token == "legacy"
    assert reader.read(stack).refresh_token == "stack"


def test_hexclave_access_cookie_is_read_when_its_pair_matches() -> None:
    header = f"hexclave-refresh-{PID}--default={structured('h')}; hexclave-access={pair('h', 'ha')}"
    assert reader.read(header).access_token == "ha"
    header += f"; stack-access={pair('h', 'sa')}"
    assert reader.read(header).access_token == "sa"
    assert reader.read(f"stack-refresh-{PID}=r; hexclave-access={pair('other', 'x')}").access_token is None


@pytest.mark.parametrize(
    "value",
    [
        "not-json",
        quote("{"),
        quote('{"refresh_token": 5, "updated_at_millis": 1}'),
        quote('{"updated_at_millis": 1}'),
        quote('{"refresh_token": "", "updated_at_millis": 1}'),
        quote('{"refresh_token": "undefined", "updated_at_millis": 1}'),
        quote('{"refresh_token": "r", "updated_at_millis": "soon"}'),
        quote('{"refresh_token": "r", "updated_at_millis": true}'),
        quote('["r", 1]'),
        quote("{" * 50_000),
    ],
)
def test_malformed_structured_values_are_skipped_not_fatal(value: str) -> None:
    header = f"stack-refresh-{PID}--bad={value}; stack-refresh-{PID}--good={structured('ok', 0)}"
    assert reader.read(header).refresh_token == "ok"
    assert reader.read(f"stack-refresh-{PID}--bad={value}").refresh_token is None


def test_other_projects_cookies_are_not_read() -> None:
    header = f"stack-refresh-{OTHER}--default={structured('theirs')}; hexclave-refresh-{OTHER}--d={structured('x')}"
    assert reader.read(header).refresh_token is None
    assert reader.read(f"stack-refresh-{PID}-default={structured('typo')}").refresh_token is None


@given(st.text(max_size=300))
def test_any_cookie_header_reads_without_error(header: str) -> None:
    got = reader.read(header)
    assert got.refresh_token is None or isinstance(got.refresh_token, str)


def test_is_https_helper_cookie() -> None:
    assert reader.read("stack-is-https=true").https is True
    assert reader.read("stack-is-https=false").https is False


# -- writing ------------------------------------------------------------------------------


def names(values: tuple[str, ...]) -> dict[str, str]:
    return {value.split("=", 1)[0]: value for value in values}


def test_2_7_format_writes_the_raw_cookie_and_leaves_structured_sessions_alone() -> None:
    stored = ((f"hexclave-refresh-{PID}--default", "newer"), (f"stack-refresh-{PID}", "r"))
    written = names(c.session_cookie_writes(PID, "r", "a", now=1_700_000_000, secure=False, stored=stored))
    assert set(written) == {f"stack-refresh-{PID}", "stack-access", "stack-refresh"}
    assert "Max-Age=0" in written["stack-refresh"]


def test_2_8_format_writes_the_structured_cookie_host_prefixed_over_https() -> None:
    stored = ((f"stack-refresh-{PID}", "r"),)
    plain = names(c.session_cookie_writes(PID, "r", "a", now=1_700_000_000, secure=False, cookie_format="2.8"))
    value = plain[f"stack-refresh-{PID}--default"].split(";")[0].split("=", 1)[1]
    from urllib.parse import unquote

    assert json.loads(unquote(value)) == {"refresh_token": "r", "updated_at_millis": 1_700_000_000_000}
    secure = names(
        c.session_cookie_writes(PID, "r", "a", now=1_700_000_000, secure=True, cookie_format="2.8", stored=stored)
    )
    host = secure[f"__Host-stack-refresh-{PID}--default"]
    assert "; Secure" in host and "; Path=/" in host and "Domain" not in host
    # the raw 2.7 cookie of the same session is retired, as the 2.8 SDK does
    assert "Max-Age=0" in secure[f"stack-refresh-{PID}"]


def test_2_8_format_never_deletes_a_raw_cookie_of_another_session() -> None:
    stored = ((f"hexclave-refresh-{PID}--d", "r"), (f"stack-refresh-{PID}", "someone-else"))
    written = names(c.session_cookie_writes(PID, "r", "a", now=0, secure=False, cookie_format="2.8", stored=stored))
    assert f"stack-refresh-{PID}" not in written


def test_a_refused_session_deletes_every_cookie_that_held_it_and_nothing_else() -> None:
    domain_cookie = f"stack-refresh-{PID}--{custom('example.com')}"
    stored = (
        (f"__Host-stack-refresh-{PID}--default", "dead"),
        (domain_cookie, "dead"),
        (f"stack-refresh-{PID}", "alive"),
    )
    deleted = names(c.session_cookie_deletions(PID, "dead", secure=False, stored=stored))
    # both access cookies: stack-access and the 2.8.108 SDK's hexclave-access (its unexpired
    # token would otherwise stay in the browser after the session ended)
    assert set(deleted) == {
        f"__Host-stack-refresh-{PID}--default",
        domain_cookie,
        "stack-access",
        "hexclave-access",
        "stack-refresh",
    }
    assert "; Secure" in deleted[f"__Host-stack-refresh-{PID}--default"]
    assert "; Domain=example.com" in deleted[domain_cookie]
    assert all("Max-Age=0" in value for value in deleted.values())


def test_custom_domain_names_decode_and_junk_gives_no_domain() -> None:
    assert c.cookie_domain(f"stack-refresh-{PID}--{custom('app.example.com')}") == "app.example.com"
    assert c.cookie_domain(f"stack-refresh-{PID}--default") is None
    assert c.cookie_domain(f"stack-refresh-{PID}--custom-!!!") is None
    assert c.cookie_domain(f"stack-refresh-{PID}--{custom('evil.com; Path=/x')}") is None


# -- through the middleware core ------------------------------------------------------------


def test_the_middleware_core_reads_a_2_8_cookie_and_rejects_an_unknown_format() -> None:
    core = Authenticator(AuthConfig(project_id=PID, api_url="http://127.0.0.1:9", publishable_client_key="pck_x"))
    tokens = core.read(
        cookie=f"__Host-stack-refresh-{PID}--default={structured('r')}; stack-access={pair('r', 'a')}",
        auth_header=None,
        secure=True,
    )
    assert (tokens.refresh_token, tokens.access_token, tokens.from_cookies) == ("r", "a", True)
    assert tokens.stored == ((f"__Host-stack-refresh-{PID}--default", "r"),)
    with pytest.raises(ConfigurationError, match="AUTHMW_COOKIE_FORMAT"):
        AuthConfig(project_id=PID, cookie_format="2.9")
    assert AuthConfig.from_env({"AUTHMW_PROJECT_ID": PID, "AUTHMW_COOKIE_FORMAT": "2.8"}).cookie_format == "2.8"


# -- live: the ASGI middleware over the local service --------------------------------------


def live_get(config: AuthConfig, cookie: str) -> Any:
    from starlette.testclient import TestClient

    from .support import make_app

    with TestClient(make_app(config)) as client:
        return client.get("/me", headers={"cookie": cookie})


def test_a_2_8_session_signs_in_and_is_rewritten_in_the_configured_format(local_service) -> None:
    from .support import cookie_value, set_cookies

    s = local_service.sign_up()
    pid = local_service.project_id
    cookie = f"stack-refresh-{pid}--default={structured(s.refresh_token)}"  # no access cookie: a refresh
    r = live_get(local_service.config, cookie)
    assert r.json()["id"] == s.user_id
    written = set_cookies(r)
    assert cookie_value(written[f"stack-refresh-{pid}"]) == s.refresh_token  # 2.7 names by default...
    assert f"stack-refresh-{pid}--default" not in written  # ...and the 2.8 cookie is left alone

    r = live_get(local_service.config.with_(cookie_format="2.8"), cookie)
    written = set_cookies(r)
    value = json.loads(cookie_value(written[f"stack-refresh-{pid}--default"]))
    assert value["refresh_token"] == s.refresh_token and isinstance(value["updated_at_millis"], int)
    assert json.loads(cookie_value(written["stack-access"]))[0] == s.refresh_token


def test_a_refused_2_8_session_is_deleted_and_a_2_7_session_beside_it_survives(local_service) -> None:
    from .support import set_cookies

    s = local_service.sign_up()
    pid = local_service.project_id
    dead = f"hexclave-refresh-{pid}--default={structured('made-up-token')}"
    r = live_get(local_service.config, f"{dead}; stack-refresh-{pid}={s.refresh_token}")
    assert r.status_code == 401, r.text  # the hexclave cookie wins, and its session is refused
    written = set_cookies(r)
    assert "Max-Age=0" in written[f"hexclave-refresh-{pid}--default"]
    assert f"stack-refresh-{pid}" not in written
    # the next request reads the surviving 2.7 session
    assert live_get(local_service.config, f"stack-refresh-{pid}={s.refresh_token}").json()["id"] == s.user_id
