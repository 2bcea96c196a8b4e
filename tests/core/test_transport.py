from __future__ import annotations

import email.utils
import json
import re
import time

import httpx
import pytest
from hypothesis import given, strategies as st

from authmw import AuthConfig
from authmw._session import Session
from authmw._transport import CLIENT_VERSION, MAX_WAIT_SECONDS, Transport, random_nonce
from authmw.errors import (
    AuthmwError,
    ConfigurationError,
    EmailPasswordMismatch,
    HttpStatusError,
    InvalidServerResponse,
    KnownError,
    ServiceUnreachable,
    UnsupportedError,
    UserNotFound,
    error_from_response,
)

from .conftest import Recorder, known_error, unsigned_token

NONCE = re.compile(r"^[0-9a-hjkmnp-tv-z]{45}$")


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


def script(*responses):
    """A handler answering the given responses (or raising them) in order."""
    queue = list(responses)

    def handler(request):
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, Exception):
            raise item
        return item(request) if callable(item) else item

    return handler


def transport(config, tier="client", **kwargs) -> Transport:
    return Transport(config, tier, uniform=lambda a, b: 1.0, **kwargs)


# -- headers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tier", "header", "field"),
    [
        ("client", "x-stack-publishable-client-key", "publishable_client_key"),
        ("server", "x-stack-secret-server-key", "secret_server_key"),
        ("admin", "x-stack-super-secret-admin-key", "super_secret_admin_key"),
    ],
)
def test_every_call_carries_the_contract_headers(config, tier, header, field):
    service = Recorder(ok)
    service.sync_driver().run(transport(config, tier).call("GET", "/users/me"))
    (request,) = service.requests
    assert str(request.url) == config.api_base + "/users/me"
    assert request.headers["x-stack-project-id"] == config.project_id
    assert request.headers["x-stack-access-type"] == tier
    assert request.headers["x-stack-client-version"] == CLIENT_VERSION
    assert re.fullmatch(r"python @authmw/python@\d+(\.\d+)*", CLIENT_VERSION)
    assert NONCE.match(request.headers["x-stack-random-nonce"])
    assert request.headers["x-stack-override-error-status"] == "true"
    assert request.headers[header] == getattr(config, field)
    assert "x-stack-access-token" not in request.headers
    assert "content-type" not in request.headers


def test_nonce_is_45_crockford_characters_of_224_bits():
    nonces = {random_nonce() for _ in range(2000)}
    assert len(nonces) == 2000
    assert all(NONCE.match(n) for n in nonces)
    assert all(n[0] in "0123456789abcdef" for n in nonces)  # 225 - 224: the top character holds 4 bits
    assert {c for n in nonces for c in n[1:]} == set("0123456789abcdefghjkmnpqrstvwxyz")


def test_json_body_and_query(config):
    service = Recorder(ok)
    op = transport(config).call("PATCH", "users/me", json={"display_name": "é"}, query={"desc": True, "x": None})
    service.sync_driver().run(op)
    (request,) = service.requests
    assert request.url.query == b"desc=true"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.content) == {"display_name": "é"}


def test_session_tokens_are_sent(config):
    access = unsigned_token({"exp": time.time() + 600})
    session = Session(config, access_token=access, refresh_token="r" * 45)
    service = Recorder(ok)
    service.sync_driver().run(transport(config).call("GET", "/users/me", session=session))
    service.sync_driver().run(transport(config).call("POST", "/x", session=session, send_refresh_token=True))
    first, second = service.requests
    assert first.headers["x-stack-access-token"] == access
    assert "x-stack-refresh-token" not in first.headers
    assert second.headers["x-stack-refresh-token"] == "r" * 45


@pytest.mark.parametrize(
    ("tier", "setting", "variable"),
    [
        ("client", "publishable_client_key", "AUTHMW_PUBLISHABLE_CLIENT_KEY"),
        ("server", "secret_server_key", "AUTHMW_SECRET_SERVER_KEY"),
        ("admin", "super_secret_admin_key", "AUTHMW_SUPER_SECRET_ADMIN_KEY"),
    ],
)
def test_missing_key_names_the_setting(project_id, tier, setting, variable):
    with pytest.raises(ConfigurationError) as info:
        Transport(AuthConfig(project_id=project_id, **{setting: ""}), tier)
    assert setting in str(info.value) and variable in str(info.value)


def test_missing_key_message_is_grammatical(project_id):
    with pytest.raises(ConfigurationError, match="^An admin app needs the super secret admin key"):
        Transport(AuthConfig(project_id=project_id), "admin")
    with pytest.raises(ConfigurationError, match="^A server app needs the secret server key"):
        Transport(AuthConfig(project_id=project_id), "server")


def test_repr_holds_no_key(config):
    assert "pck_" not in repr(transport(config))


# -- responses ------------------------------------------------------------------------------


def test_known_error_becomes_its_class(config):
    service = Recorder(lambda r: known_error(r, "EMAIL_PASSWORD_MISMATCH", 400, "Wrong e-mail or password."))
    with pytest.raises(EmailPasswordMismatch) as info:
        service.sync_driver().run(transport(config).call("POST", "/auth/password/sign-in", json={}))
    assert info.value.message == "Wrong e-mail or password."
    assert info.value.status == 400


def test_actual_status_header_replaces_the_status(config):
    service = Recorder(lambda r: httpx.Response(200, text="gone", headers={"x-stack-actual-status": "404"}))
    with pytest.raises(HttpStatusError) as info:
        service.sync_driver().run(transport(config).call("GET", "/nothing"))
    assert (info.value.status, info.value.reason, info.value.body) == (404, "Not Found", "gone")
    assert "404 Not Found" in str(info.value)


def test_success_response_has_the_effective_status(config):
    service = Recorder(lambda r: httpx.Response(201, json={"id": "x"}))
    response = service.sync_driver().run(transport(config).call("POST", "/users", json={}))
    assert response.status_code == 201 and response.json() == {"id": "x"}


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            400, json={"code": "USER_NOT_FOUND", "error": "x"}, headers={"x-stack-known-error": "TEAM_NOT_FOUND"}
        ),
        httpx.Response(400, text="not json", headers={"x-stack-known-error": "USER_NOT_FOUND"}),
        httpx.Response(400, json=["USER_NOT_FOUND"], headers={"x-stack-known-error": "USER_NOT_FOUND"}),
    ],
)
def test_known_error_header_must_match_a_json_body(config, response):
    service = Recorder(lambda r: response)
    with pytest.raises(InvalidServerResponse):
        service.sync_driver().run(transport(config).call("GET", "/users/me"))


def test_unknown_code_is_unsupported_and_keeps_the_code(config):
    service = Recorder(lambda r: known_error(r, "BRAND_NEW_ERROR", 418, "teapot", {"a": 1}))
    with pytest.raises(UnsupportedError) as info:
        service.sync_driver().run(transport(config).call("GET", "/users/me"))
    assert info.value.original_code == "BRAND_NEW_ERROR"
    assert info.value.details["a"] == 1
    assert "BRAND_NEW_ERROR" in str(info.value)


@given(
    status=st.integers(100, 599),
    headers=st.dictionaries(st.sampled_from(["x-stack-known-error", "content-type", "x"]), st.text(max_size=30)),
    content=st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda v: json.dumps(v).encode(),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda c: (
                    st.lists(c, max_size=3)
                    | st.dictionaries(st.sampled_from(["code", "error", "details", "x"]), c, max_size=4)
                ),
                max_leaves=8,
            ),
        ),
    ),
)
def test_any_response_parses_to_none_or_a_typed_error(status, headers, content):
    result = error_from_response(status, headers, content, method="GET", url="http://x")
    assert result is None or isinstance(result, AuthmwError)
    if result is None:
        assert 200 <= status < 300 and "x-stack-known-error" not in headers


@given(
    st.dictionaries(
        st.text(max_size=10),
        st.one_of(st.none(), st.text(max_size=10), st.integers(), st.dictionaries(st.text(max_size=5), st.integers())),
    )
)
def test_any_body_dict_parses_to_a_known_error_or_invalid_response(body):
    try:
        error = KnownError.from_body(body)
    except InvalidServerResponse:
        assert not isinstance(body.get("code"), str)
    else:
        assert isinstance(error, KnownError)


# -- retries -------------------------------------------------------------------------------


def test_network_failure_on_get_is_retried_with_backoff_then_diagnosed(config):
    jitter = iter([0.5, 1.5, 1.0, 0.75])
    service = Recorder(script(httpx.ConnectError("refused")))
    t = Transport(config, "client", uniform=lambda a, b: next(jitter))
    with pytest.raises(ServiceUnreachable) as info:
        service.sync_driver().run(t.call("GET", "/users/me"))
    assert service.sleeps == [0.5, 3.0, 4.0, 6.0]  # 1 s * 2**i * jitter
    assert [r.url.path for r in service.requests] == ["/api/v1/users/me"] * 5 + ["/health"]
    error = info.value
    assert error.attempts == 5 and "GET" in str(error) and "/health" in str(error)
    for secret in ("pck_", "ssk_", "sak_"):
        assert secret not in str(error)


def test_network_failure_then_success(config):
    service = Recorder(script(httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), ok))
    response = service.sync_driver().run(transport(config).call("DELETE", "/users/me"))
    assert response.status_code == 200 and service.sleeps == [1.0, 2.0]


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_network_failure_on_non_idempotent_method_fails_at_once(config, method):
    service = Recorder(script(httpx.ConnectError("refused"), httpx.Response(200, json={"status": "ok"})))
    with pytest.raises(ServiceUnreachable) as info:
        service.sync_driver().run(transport(config).call(method, "/auth/password/sign-in", json={}))
    assert service.sleeps == []
    assert info.value.attempts == 1 and "HTTP 200" in info.value.health


def test_429_waits_retry_after_seconds(config):
    service = Recorder(script(httpx.Response(429, headers={"retry-after": "7"}), ok))
    service.sync_driver().run(transport(config).call("POST", "/x", json={}))
    assert service.sleeps == [7.0]


def test_429_waits_until_an_http_date(config):
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 42, usegmt=True)
    service = Recorder(script(httpx.Response(429, headers={"retry-after": date}), ok))
    service.sync_driver().run(transport(config, clock=lambda: now).call("GET", "/x"))
    assert service.sleeps == [42.0]


def test_429_without_retry_after_backs_off(config):
    service = Recorder(
        script(
            httpx.Response(429),
            httpx.Response(429, headers={"retry-after": "soon"}),
            httpx.Response(429, headers={"retry-after": "nan"}),
            ok,
        )
    )
    service.sync_driver().run(transport(config).call("GET", "/x"))
    assert service.sleeps == [1.0, 2.0, 4.0]


def test_waits_are_capped(config):
    service = Recorder(script(httpx.Response(429, headers={"retry-after": "99999999999"}), ok))
    service.sync_driver().run(transport(config).call("GET", "/x"))
    assert service.sleeps == [MAX_WAIT_SECONDS] and MAX_WAIT_SECONDS == 2147483.647


def test_429_gives_up_after_five_attempts(config):
    service = Recorder(script(httpx.Response(429, headers={"retry-after": "1"})))
    with pytest.raises(HttpStatusError) as info:
        service.sync_driver().run(transport(config).call("GET", "/x"))
    assert info.value.status == 429 and len(service.requests) == 5 and len(service.sleeps) == 4


def test_max_attempts_1_sends_once(config):
    service = Recorder(script(httpx.Response(429, headers={"retry-after": "1"})))
    one = transport(config)
    one.max_attempts = 1
    with pytest.raises(HttpStatusError):
        service.sync_driver().run(one.call("GET", "/x"))
    assert len(service.requests) == 1 and service.sleeps == []
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ConfigurationError, match="max_attempts must be a whole number of 1 or more"):
            one.max_attempts = bad  # type: ignore[assignment]


def test_429_under_override_status_is_retried(config):
    service = Recorder(script(httpx.Response(200, headers={"x-stack-actual-status": "429", "retry-after": "2"}), ok))
    service.sync_driver().run(transport(config).call("GET", "/x"))
    assert service.sleeps == [2.0]


def test_508_with_loop_marker_is_retried(config):
    service = Recorder(script(httpx.Response(508, text="INFINITE_LOOP_DETECTED"), ok))
    service.sync_driver().run(transport(config).call("POST", "/x", json={}))
    assert service.sleeps == [1.0]


def test_508_without_marker_is_an_error(config):
    service = Recorder(script(httpx.Response(508, text="loop"), ok))
    with pytest.raises(HttpStatusError):
        service.sync_driver().run(transport(config).call("GET", "/x"))
    assert service.sleeps == []


def test_other_statuses_are_not_retried(config):
    service = Recorder(script(httpx.Response(503, text="down"), ok))
    with pytest.raises(HttpStatusError) as info:
        service.sync_driver().run(transport(config).call("GET", "/x"))
    assert info.value.status == 503 and len(service.requests) == 1


# -- refresh and retry -----------------------------------------------------------------------


def test_invalid_access_token_refreshes_and_retries_once(config):
    stale, fresh = unsigned_token({"exp": time.time() + 600}), unsigned_token({"exp": time.time() + 600, "n": 2})

    def handler(request):
        if request.url.path.endswith("/refresh"):
            return httpx.Response(200, json={"access_token": fresh})
        if request.headers.get("x-stack-access-token") == stale:
            return known_error(request, "ACCESS_TOKEN_EXPIRED", 401)
        return httpx.Response(200, json={"id": "me"})

    service = Recorder(handler)
    session = Session(config, access_token=stale, refresh_token="r" * 45)
    response = service.sync_driver().run(transport(config).call("GET", "/users/me", session=session))
    assert response.json() == {"id": "me"}
    assert [r.url.path.rsplit("/", 1)[-1] for r in service.requests] == ["me", "refresh", "me"]
    assert session.access_token == fresh


def test_invalid_access_token_twice_is_raised(config):
    from authmw.errors import UnparsableAccessToken

    def handler(request):
        if request.url.path.endswith("/refresh"):
            return httpx.Response(200, json={"access_token": unsigned_token({"exp": time.time() + 600})})
        return known_error(request, "UNPARSABLE_ACCESS_TOKEN", 401)

    service = Recorder(handler)
    session = Session(config, access_token=unsigned_token({"exp": time.time() + 600}), refresh_token="r" * 45)
    with pytest.raises(UnparsableAccessToken):
        service.sync_driver().run(transport(config).call("GET", "/users/me", session=session))
    assert len(service.requests) == 3


def test_invalid_access_token_without_session_is_raised(config):
    from authmw.errors import InvalidAccessToken

    service = Recorder(lambda r: known_error(r, "ACCESS_TOKEN_EXPIRED", 401))
    with pytest.raises(InvalidAccessToken):
        service.sync_driver().run(transport(config).call("GET", "/users/me"))


@pytest.mark.parametrize("code", ["ADMIN_ACCESS_TOKEN_EXPIRED", "API_KEY_NOT_FOUND"])
def test_owner_session_refreshes_on_admin_token_errors(config, code):
    stale = unsigned_token({"exp": time.time() + 600})
    fresh = unsigned_token({"exp": time.time() + 600, "n": 2})

    def handler(request):
        if request.url.path.endswith("/refresh"):
            return httpx.Response(200, json={"access_token": fresh})
        if request.headers.get("x-stack-admin-access-token") == stale:
            return known_error(request, code, 401)
        return httpx.Response(200, json={"ok": True})

    service = Recorder(handler)
    owner = Session(config, access_token=stale, refresh_token="r" * 45)
    t = Transport(config.with_(super_secret_admin_key=None), "admin", require_key=False)
    service.sync_driver().run(t.call("GET", "/internal/api-keys", admin_session=owner))
    assert owner.access_token == fresh
    assert "x-stack-super-secret-admin-key" not in service.requests[0].headers


async def test_async_driver_runs_the_same_operation(config):
    service = Recorder(
        script(
            httpx.ConnectError("refused"),
            httpx.Response(429, headers={"retry-after": "3"}),
            lambda r: known_error(r, "USER_NOT_FOUND", 404),
        )
    )
    driver = service.async_driver()
    with pytest.raises(UserNotFound):
        await driver.run(transport(config, "server").call("GET", "/users/x"))
    assert service.sleeps == [1.0, 3.0]
    await driver.aclose()


def test_absurdly_deep_json_bodies_are_invalid_responses(config):
    deep = b"[" * 100000 + b"]" * 100000
    assert isinstance(error_from_response(400, {"x-stack-known-error": "X"}, deep), InvalidServerResponse)
    service = Recorder(lambda r: httpx.Response(200, content=deep))
    with pytest.raises(InvalidServerResponse):
        service.sync_driver().run(transport(config).call_json("GET", "/users/me"))


@given(st.text(max_size=60))
def test_any_retry_after_value_gives_a_bounded_wait(value):
    from authmw._ops import Response

    t = Transport(AuthConfig(project_id="internal", publishable_client_key="pck_x"), "client", uniform=lambda a, b: 1.0)
    try:
        headers = {"retry-after": value}
        wait = t.retry_after(Response(429, headers, b""), 0)
    except Exception as exc:  # pragma: no cover - the property under test
        raise AssertionError(f"retry_after({value!r}) raised {exc!r}") from exc
    assert 0 <= wait <= MAX_WAIT_SECONDS
