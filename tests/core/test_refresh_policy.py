"""The refresh policy (``authmw/refresh_policy.json``, docs/architecture.md "Refresh policy"):
the Python session and the middleware's refresh follow the table the React package follows
(``js/test/refresh-policy.test.ts`` reads the same file): when to refresh, what is retried,
what signs a user out. The table is read here as a file, not through the package's constants.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import httpx
import pytest

from authmw import _refresh_policy, _session, _tokens
from authmw._session import Session, refresh_access_token
from authmw._transport import MAX_ATTEMPTS
from authmw.errors import HttpStatusError, KnownError, NetworkError

from .conftest import Recorder, known_error, unsigned_token

POLICY = json.loads((Path(__file__).resolve().parents[2] / "authmw" / "refresh_policy.json").read_text("utf-8"))
RT = "r" * 45


def token(seconds_left: float) -> str:
    return unsigned_token({"sub": "u", "exp": time.time() + seconds_left})


class Service:
    """Answers refresh calls from a script of outcomes, the last one repeated."""

    def __init__(self, *outcomes: str) -> None:
        self.outcomes = list(outcomes)
        self.recorder = Recorder(self.answer)

    def answer(self, request: httpx.Request) -> httpx.Response:
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if outcome == "network":
            raise httpx.ConnectError("refused")
        if outcome == "5xx":
            return httpx.Response(503, text="maintenance")
        if outcome.startswith("known:"):
            return known_error(request, outcome.removeprefix("known:"), 401)
        return httpx.Response(200, json={"access_token": outcome})

    def run(self, op):
        return self.recorder.sync_driver().run(op)


def test_the_constants_are_the_tables():
    assert _tokens.REQUIRED_VALIDITY_MS == _session.REQUIRED_VALIDITY_MS == POLICY["required_validity_ms"]
    assert _session.MAX_MIN_VALIDITY_MS == POLICY["max_min_validity_ms"]


@pytest.mark.parametrize("tier", ["server", "client"])
def test_the_refresh_endpoint_is_the_tables(config, tier):
    config = config if tier == "server" else config.with_(secret_server_key=None)
    service = Service(token(600))
    assert service.run(refresh_access_token(config, RT))
    (request,) = service.recorder.requests
    assert str(request.url) == config.api_base + POLICY["endpoints"][tier]["path"]
    assert _refresh_policy.refresh_endpoint(config) == (tier, POLICY["endpoints"][tier]["path"])


def test_a_session_refreshes_when_less_than_the_required_validity_is_left(config):
    margin = POLICY["required_validity_ms"] / 1000
    enough = token(margin + 5)
    session = Session(config, access_token=enough, refresh_token=RT)
    service = Service(token(600))
    assert service.run(session.get_access_token()) == enough
    assert service.recorder.requests == []
    session.set_tokens(token(margin - 5), RT)
    assert service.run(session.get_access_token()) != enough
    assert len(service.recorder.requests) == 1
    with pytest.raises(ValueError, match="below"):
        service.run(session.get_access_token(POLICY["max_min_validity_ms"]))


@pytest.mark.parametrize("tier", ["server", "client"])
def test_a_sessions_refresh_retries_a_network_failure_as_the_table_says(config, tier):
    config = config if tier == "server" else config.with_(secret_server_key=None)
    fresh = token(600)
    session = Session(config, refresh_token=RT)
    service = Service("network", fresh)
    if POLICY["retry_network_failure"]["session"]:
        assert service.run(session.get_access_token()) == fresh
        assert len(service.recorder.requests) == 2
    else:
        with pytest.raises(NetworkError):
            service.run(session.get_access_token())


def test_a_session_keeps_its_tokens_when_the_service_cannot_be_reached(config):
    session = Session(config, access_token=token(1), refresh_token=RT)
    service = Service("network")
    with pytest.raises(NetworkError):
        service.run(session.get_access_token())
    attempts = MAX_ATTEMPTS if POLICY["retry_network_failure"]["session"] else 1
    assert len(service.recorder.requests) == attempts
    assert session.is_signed_in and session.refresh_token == RT  # not signed out


def test_a_refresh_inside_a_request_answers_at_once(config):
    """The middleware's refresher (holder "request") does not hold a request up for backoff."""
    service = Service("network", token(600))
    if POLICY["retry_network_failure"]["request"]:
        assert service.run(refresh_access_token(config, RT))
    else:
        with pytest.raises(NetworkError):
            service.run(refresh_access_token(config, RT))
        assert len(service.recorder.requests) == 1 and service.recorder.sleeps == []


@pytest.mark.parametrize(
    ("answer", "signed_out"),
    [
        ("known:REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", True),  # of the REFRESH_TOKEN_ERROR family
        ("known:PROVIDER_REJECTED", True),
        ("known:INVALID_OAUTH_CLIENT_ID_OR_SECRET", False),
        ("5xx", False),
    ],
)
def test_only_the_tables_refusals_sign_a_user_out(config, answer, signed_out):
    assert POLICY["signs_out"] == ["REFRESH_TOKEN_ERROR"]
    session = Session(config, access_token=token(1), refresh_token=RT)
    service = Service(answer)
    if signed_out:
        assert service.run(session.get_access_token()) is None
        assert session.is_known_invalid and session.refresh_token is None
    else:
        with pytest.raises((HttpStatusError, KnownError)):
            service.run(session.get_access_token())
        assert session.is_signed_in and session.refresh_token == RT


def test_a_short_lived_token_is_used_with_one_warning_in_the_tables_words(config, caplog):
    session = Session(config, refresh_token=RT)
    short = token(10)
    service = Service(short)
    with caplog.at_level(logging.WARNING):
        assert service.run(session.get_access_token()) == short
        assert service.run(session.get_access_token()) == short
    wanted = f"{POLICY['required_validity_ms'] / 1000:.1f}"
    head = POLICY["short_lived_warning"].split("{remaining_s}")[0]
    (message,) = [m for m in caplog.messages if m.startswith(head)]
    assert message.endswith(POLICY["short_lived_warning"].split("{wanted_s}")[1])
    assert f"(wanted {wanted} s)" in message
