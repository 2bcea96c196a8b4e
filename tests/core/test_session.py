from __future__ import annotations

import asyncio
import threading
import time
from urllib.parse import parse_qs

import httpx
import pytest

from authmw._ops import NetworkError
from authmw._session import Session, refresh_access_token
from authmw._transport import Transport
from authmw.errors import HttpStatusError, InvalidServerResponse

from .conftest import Recorder, known_error, unsigned_token

RT = "r" * 45


def token(seconds_left: float) -> str:
    return unsigned_token({"sub": "u", "exp": time.time() + seconds_left})


def refresh_service(new_access: str | None = None, *, fail: str | None = None):
    """Answers both refresh endpoints; REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED unless ``new_access``."""

    def handler(request: httpx.Request) -> httpx.Response:
        if fail == "network":
            raise httpx.ConnectError("refused")
        if fail == "5xx":
            return httpx.Response(503, text="maintenance")
        if new_access is None:
            return known_error(request, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401)
        return httpx.Response(200, json={"access_token": new_access})

    return Recorder(handler)


# -- refresh_access_token ------------------------------------------------------------------


def test_refresh_with_a_secret_key_uses_the_server_tier(config):
    new = token(600)
    service = refresh_service(new)
    assert service.sync_driver().run(refresh_access_token(config, RT)) == new
    (request,) = service.requests
    assert request.method == "POST"
    assert str(request.url) == config.api_base + "/auth/sessions/current/refresh"
    assert request.headers["x-stack-refresh-token"] == RT
    assert request.headers["x-stack-access-type"] == "server"
    assert request.headers["x-stack-secret-server-key"] == config.secret_server_key


def test_refresh_without_a_secret_key_uses_the_oauth_grant(config):
    config = config.with_(secret_server_key=None)
    new = token(600)
    service = refresh_service(new)
    assert service.sync_driver().run(refresh_access_token(config, RT)) == new
    (request,) = service.requests
    assert str(request.url) == config.api_base + "/auth/oauth/token"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert not [h for h in request.headers if h.startswith("x-stack")]
    assert parse_qs(request.content.decode()) == {
        "grant_type": ["refresh_token"],
        "refresh_token": [RT],
        "client_id": [config.project_id],
        "client_secret": [config.publishable_client_key],
    }


@pytest.mark.parametrize("server_tier", [True, False])
def test_refused_refresh_token_gives_none(config, server_tier):
    if not server_tier:
        config = config.with_(secret_server_key=None)
    service = refresh_service(None)
    assert service.sync_driver().run(refresh_access_token(config, RT)) is None


@pytest.mark.parametrize(("fail", "error"), [("network", NetworkError), ("5xx", HttpStatusError)])
def test_transient_refresh_failures_raise(config, fail, error):
    with pytest.raises(error):
        refresh_service(fail=fail).sync_driver().run(refresh_access_token(config, RT))


def test_refresh_answer_without_token_is_invalid(config):
    service = Recorder(lambda request: httpx.Response(200, json={"nope": 1}))
    with pytest.raises(InvalidServerResponse):
        service.sync_driver().run(refresh_access_token(config, RT))


async def test_concurrent_refreshes_share_one_call(config):
    release = asyncio.Event()
    new = token(600)
    calls = []

    async def handle(request):
        calls.append(request)
        await release.wait()
        return httpx.Response(200, json={"access_token": new})

    from authmw._ops import AsyncDriver

    driver = AsyncDriver(httpx.AsyncClient(transport=httpx.MockTransport(handle)))
    session = Session(config, refresh_token=RT)
    tasks = [asyncio.ensure_future(driver.run(session.get_access_token())) for _ in range(10)]
    await asyncio.sleep(0.05)
    release.set()
    assert await asyncio.gather(*tasks) == [new] * 10
    assert len(calls) == 1
    await driver.aclose()


def test_concurrent_refreshes_share_one_call_across_threads(config):
    gate = threading.Event()
    new = token(600)

    def handler(request):
        gate.wait(60)
        return httpx.Response(200, json={"access_token": new})

    service = Recorder(handler)
    driver = service.sync_driver()
    session = Session(config, refresh_token=RT)
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(driver.run(session.get_access_token()))) for _ in range(6)
    ]
    for t in threads:
        t.start()
    time.sleep(0.2)
    gate.set()
    for t in threads:
        t.join()
    assert results == [new] * 6
    assert len(service.requests) == 1


# -- Session ----------------------------------------------------------------------------


def test_undefined_is_rejected_as_either_token(config):
    with pytest.raises(ValueError, match="undefined"):
        Session(config, access_token="undefined", refresh_token=RT)
    with pytest.raises(ValueError, match="undefined"):
        Session(config, refresh_token="undefined")


def test_session_without_tokens_is_known_invalid(config):
    session = Session(config)
    assert session.is_known_invalid and not session.is_signed_in
    assert refresh_service().sync_driver().run(session.get_access_token()) is None


def test_fresh_access_token_is_used_without_a_call(config):
    access = token(600)
    service = refresh_service(token(600))
    session = Session(config, access_token=access, refresh_token=RT)
    assert service.sync_driver().run(session.get_access_token()) == access
    assert service.requests == []


def test_access_token_with_less_than_20_seconds_left_is_refreshed(config):
    new = token(600)
    service = refresh_service(new)
    session = Session(config, access_token=token(15), refresh_token=RT)
    assert service.sync_driver().run(session.get_access_token()) == new
    assert session.access_token == new


def test_the_margin_is_inclusive_at_exactly_20_seconds(config):
    """Spec section 4: refreshed when less than 20 s remain; the same rule as the middleware
    and the React store (REQUIRED_VALIDITY_MS, has_validity)."""
    exp = 1_900_000_000
    access = unsigned_token({"sub": "u", "exp": exp})
    new = unsigned_token({"sub": "u", "exp": exp + 600})
    for now, refreshed in ((exp - 20.0, False), (exp - 19.95, True)):
        service = refresh_service(new)
        session = Session(config, access_token=access, refresh_token=RT, clock=lambda now=now: now)
        assert service.sync_driver().run(session.get_access_token()) == (new if refreshed else access)
        assert len(service.requests) == int(refreshed)


@pytest.mark.parametrize("exp", [10**400, -1, 1e308, "soon", 253_402_300_800])
def test_an_access_token_with_an_impossible_exp_is_refreshed_not_an_overflow(config, exp):
    new = token(600)
    service = refresh_service(new)
    session = Session(config, access_token=unsigned_token({"sub": "u", "exp": exp}), refresh_token=RT)
    assert service.sync_driver().run(session.get_access_token()) == new


def test_access_token_without_refresh_token_is_not_used(config):
    session = Session(config, access_token=token(600))
    assert session.access_token is None
    assert refresh_service().sync_driver().run(session.get_access_token()) is None


def test_callers_may_not_require_a_minute(config):
    session = Session(config, access_token=token(600), refresh_token=RT)
    with pytest.raises(ValueError):
        refresh_service().sync_driver().run(session.get_access_token(60_000))
    refresh_service().sync_driver().run(session.get_access_token(59_999))


def test_refused_refresh_invalidates_and_clears_both_tokens(config):
    changes = []
    session = Session(config, access_token=token(5), refresh_token=RT)
    session.on_change(lambda s: changes.append((s.access_token, s.refresh_token)))
    assert refresh_service(None).sync_driver().run(session.get_access_token()) is None
    assert session.is_known_invalid
    assert (session.access_token, session.refresh_token) == (None, None)
    assert changes == [(None, None)]


@pytest.mark.parametrize("fail", ["network", "5xx"])
def test_transient_refresh_failure_keeps_the_tokens(config, fail):
    old = token(5)
    session = Session(config, access_token=old, refresh_token=RT)
    with pytest.raises((NetworkError, HttpStatusError)):
        refresh_service(fail=fail).sync_driver().run(session.get_access_token())
    assert session.refresh_token == RT and session.access_token == old
    assert not session.is_known_invalid


def test_refreshed_token_shorter_lived_than_wanted_is_used_with_one_warning(config, caplog):
    # As in the React package: the fresh token is still the best there is (a short development
    # token lifetime or a skewed clock); a warning says so once.
    short = token(5)
    session = Session(config, refresh_token=RT)
    with caplog.at_level("WARNING", logger="authmw.session"):
        assert refresh_service(short).sync_driver().run(session.get_access_token()) == short
        session.mark_access_token_expired(short)
        refresh_service(token(5)).sync_driver().run(session.get_access_token())
    warnings = [r for r in caplog.records if "clock" in r.getMessage()]
    assert len(warnings) == 1 and short not in warnings[0].getMessage()


def test_marking_expired_forces_a_refresh(config):
    old, new = token(600), token(600)
    service = refresh_service(new)
    session = Session(config, access_token=old, refresh_token=RT)
    session.mark_access_token_expired("some-other-token")  # not ours: ignored
    assert session.access_token == old
    session.mark_access_token_expired(old)
    assert service.sync_driver().run(session.get_access_token()) == new


def test_on_change_reports_and_can_unsubscribe(config):
    seen = []
    session = Session(config)
    unsubscribe = session.on_change(lambda s: seen.append(s.refresh_token))
    session.set_tokens(token(600), RT)
    unsubscribe()
    session.invalidate()
    assert seen == [RT]


def test_sign_out_revokes_then_invalidates(config):
    service = Recorder(lambda request: httpx.Response(200, json={"success": True}))
    session = Session(config, access_token=token(600), refresh_token=RT)
    service.sync_driver().run(session.sign_out(Transport(config, "client")))
    (request,) = service.requests
    assert (request.method, request.url.path) == ("DELETE", "/api/v1/auth/sessions/current")
    assert request.headers["x-stack-refresh-token"] == RT
    assert session.is_known_invalid and session.refresh_token is None


def test_sign_out_names_the_session_by_both_tokens_for_2_8_and_2_7(config):
    """2.8 ends the session of the access token's refresh_token_id, 2.7 reads the refresh token."""
    service = Recorder(lambda request: httpx.Response(200, json={"success": True}))
    access = token(600)
    session = Session(config, access_token=access, refresh_token=RT)
    service.sync_driver().run(session.sign_out(Transport(config, "client")))
    (request,) = service.requests
    assert (request.headers["x-stack-access-token"], request.headers["x-stack-refresh-token"]) == (access, RT)
    assert request.headers["x-stack-allow-anonymous-user"] == "true"  # an anonymous session may end too


def test_sign_out_refreshes_a_stale_access_token_first(config):
    fresh = token(600)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/refresh"):
            return httpx.Response(200, json={"access_token": fresh})
        return httpx.Response(200, json={"success": True})

    service = Recorder(handler)
    session = Session(config, access_token=token(5), refresh_token=RT)
    service.sync_driver().run(session.sign_out(Transport(config, "client")))
    refresh, delete = service.requests
    assert refresh.url.path.endswith("/refresh") and delete.headers["x-stack-access-token"] == fresh


def test_sign_out_of_a_session_the_service_refuses_to_refresh_calls_nothing_more(config):
    service = refresh_service(None)
    session = Session(config, access_token=token(5), refresh_token=RT)
    service.sync_driver().run(session.sign_out(Transport(config, "client")))
    assert [r.url.path for r in service.requests] == ["/api/v1/auth/sessions/current/refresh"]
    assert session.is_known_invalid


@pytest.mark.parametrize("code", ["REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", "CANNOT_DELETE_CURRENT_SESSION"])
def test_sign_out_ignores_a_refresh_token_error(config, code):
    service = Recorder(lambda request: known_error(request, code, 401 if code.startswith("REFRESH") else 400))
    session = Session(config, access_token=token(600), refresh_token=RT)
    service.sync_driver().run(session.sign_out(Transport(config, "client")))
    assert session.is_known_invalid


def test_sign_out_failure_still_signs_out_locally(config):
    service = Recorder(lambda request: httpx.Response(500, text="boom"))
    session = Session(config, access_token=token(600), refresh_token=RT)
    with pytest.raises(HttpStatusError):
        service.sync_driver().run(session.sign_out(Transport(config, "client")))
    assert session.is_known_invalid


def test_session_repr_holds_no_token(config):
    session = Session(config, access_token=token(600), refresh_token=RT)
    assert RT not in repr(session)


def test_network_failure_of_a_refresh_is_reported_without_health_check(config):
    service = refresh_service(fail="network")
    with pytest.raises(NetworkError) as info:
        service.sync_driver().run(refresh_access_token(config, RT))
    assert len(service.requests) == 1  # no retry, no health check
    assert "/auth/sessions/current/refresh" in str(info.value)
    assert config.secret_server_key not in str(info.value)
