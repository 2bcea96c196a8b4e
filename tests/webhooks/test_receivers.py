"""The FastAPI router and the Flask blueprint, through each framework's own test client:
handlers run once per message id, only after a valid signature, and a failing handler makes
the sender retry (500, the id forgotten)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from flask import Flask
from support import NOW, OTHER_SECRET, SECRET, delivery

from authmw.webhooks import MAX_BODY_BYTES, MemorySeenIds, UserDeleted, Webhooks
from authmw_fastapi import webhook_router
from authmw_flask import webhook_blueprint

DELETED = {"id": "u1", "teams": []}
Post = Callable[[bytes, dict[str, str]], Any]


def make_webhooks(clock: list[float]) -> Webhooks:
    return Webhooks(SECRET, seen_ids=MemorySeenIds(clock=lambda: clock[0]), clock=lambda: clock[0])


def fastapi_post(webhooks: Webhooks) -> Post:
    app = FastAPI()
    app.include_router(webhook_router(webhooks))
    client = TestClient(app)
    return lambda body, headers: client.post("/webhooks/authmw", content=body, headers=headers)


def flask_post(webhooks: Webhooks) -> Post:
    app = Flask(__name__)
    app.register_blueprint(webhook_blueprint(webhooks))
    client = app.test_client()
    return lambda body, headers: client.post("/webhooks/authmw", data=body, headers=headers)


FRAMEWORKS = {"fastapi": fastapi_post, "flask": flask_post}


@pytest.fixture(params=sorted(FRAMEWORKS))
def receiver(request: pytest.FixtureRequest) -> tuple[Webhooks, list[str], Post, list[float]]:
    clock = [NOW]
    webhooks = make_webhooks(clock)
    ran: list[str] = []

    @webhooks.on("user.deleted")
    def deleted(event: UserDeleted) -> None:
        ran.append(f"{event.id}:{event.data.id}")

    return webhooks, ran, FRAMEWORKS[request.param](webhooks), clock


def status(response: Any) -> int:
    return int(response.status_code)


def test_a_delivery_runs_its_handler_once_and_a_retry_does_not_run_it_again(receiver) -> None:  # type: ignore[no-untyped-def]
    _, ran, post, clock = receiver
    body, headers = delivery("user.deleted", DELETED)
    assert status(post(body, headers)) == 200
    assert ran == ["msg_1:u1"]
    clock[0] = NOW + 60  # the sender retries the same message, signed again a minute later
    body, headers = delivery("user.deleted", DELETED, timestamp=clock[0])
    response = post(body, headers)
    assert status(response) == 200 and ran == ["msg_1:u1"]
    replayed = post(body, headers)  # an attacker sends that signed request again
    assert status(replayed) == 401 and ran == ["msg_1:u1"]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            lambda: (delivery("user.deleted", DELETED)[0].replace(b"u1", b"u2"), delivery("user.deleted", DELETED)[1]),
            401,
        ),
        (lambda: delivery("user.deleted", DELETED, secret=OTHER_SECRET), 401),
        (lambda: delivery("user.deleted", DELETED, timestamp=NOW - 600), 401),
        (lambda: delivery("user.deleted", DELETED, timestamp=NOW + 600), 401),
        (lambda: (delivery("user.deleted", DELETED)[0], {}), 400),
        (lambda: delivery("user.deleted", {"teams": []}), 400),
        (lambda: (delivery("user.deleted", DELETED)[0], {**delivery("user.deleted", DELETED)[1], "svix-timestamp": "9" * 4301}), 400),
    ],
    ids=["tampered", "wrong-secret", "stale", "future", "unsigned", "malformed", "huge-timestamp"],
)
def test_bad_deliveries_are_refused_and_run_nothing(receiver, make, expected) -> None:  # type: ignore[no-untyped-def]
    _, ran, post, _ = receiver
    body, headers = make()
    response = post(body, headers)
    assert status(response) == expected and ran == []
    assert SECRET not in (response.text if hasattr(response, "text") else response.get_data(as_text=True))
    good_body, good_headers = delivery("user.deleted", DELETED)  # control: the real one still runs
    assert status(post(good_body, good_headers)) == 200 and ran == ["msg_1:u1"]


def test_a_failing_handler_answers_500_and_the_retry_runs_it(receiver) -> None:  # type: ignore[no-untyped-def]
    webhooks, ran, post, _ = receiver
    failures = [RuntimeError("database down")]

    @webhooks.on("team.deleted")
    def team_deleted(event: Any) -> None:
        if failures:
            raise failures.pop()
        ran.append(f"team:{event.data.id}")

    body, headers = delivery("team.deleted", {"id": "t1"}, msg_id="msg_t")
    response = post(body, headers)
    assert status(response) == 500 and ran == []
    assert "database down" not in (response.text if hasattr(response, "text") else response.get_data(as_text=True))
    assert status(post(body, headers)) == 200 and ran == ["team:t1"]  # the failed attempt changed nothing
    assert status(post(body, headers)) == 401 and ran == ["team:t1"]  # the same signed request again: a replay
    body, headers = delivery("team.deleted", {"id": "t1"}, msg_id="msg_t", timestamp=NOW + 30)
    assert status(post(body, headers)) == 200 and ran == ["team:t1"]  # a new attempt: acknowledged, not run


def test_types_without_handlers_are_acknowledged_and_star_sees_everything(receiver) -> None:  # type: ignore[no-untyped-def]
    webhooks, ran, post, _ = receiver
    body, headers = delivery("team.created", {"id": "t1", "display_name": "Lab"}, msg_id="msg_a")
    assert status(post(body, headers)) == 200 and ran == []

    @webhooks.on("*")
    def everything(event: Any) -> None:
        ran.append(event.type)

    body, headers = delivery("api_key.created", {"id": "k"}, msg_id="msg_b")
    assert status(post(body, headers)) == 200 and ran == ["api_key.created"]


def test_fastapi_awaits_async_handlers() -> None:
    clock = [NOW]
    webhooks = make_webhooks(clock)
    seen: list[str] = []

    @webhooks.on("team_membership.deleted")
    async def removed(event: Any) -> None:
        seen.append(event.data.team_id)

    post = fastapi_post(webhooks)
    body, headers = delivery("team_membership.deleted", {"team_id": "t1", "user_id": "u1"})
    assert status(post(body, headers)) == 200 and seen == ["t1"]


def test_flask_refuses_an_async_handler_with_500_and_keeps_the_message_for_a_retry() -> None:
    clock = [NOW]
    webhooks = make_webhooks(clock)

    @webhooks.on("team.deleted")
    async def deleted(event: Any) -> None:
        raise AssertionError("never awaited")

    post = flask_post(webhooks)
    body, headers = delivery("team.deleted", {"id": "t1"})
    assert status(post(body, headers)) == 500
    assert webhooks.seen_ids.add("msg_1", 1)  # forgotten, so a retry would be handled


def test_on_refuses_an_unknown_type_and_the_repr_hides_the_secret() -> None:
    webhooks = Webhooks(SECRET)
    with pytest.raises(ValueError, match="user.deleted"):
        webhooks.on("user.removed")
    assert SECRET not in repr(webhooks)


def padded(size: int, msg_id: str = "msg_big") -> tuple[bytes, dict[str, str]]:
    """A validly signed user.deleted of exactly `size` bytes (extra data is ignored by the event)."""
    bare = len(delivery("user.deleted", {**DELETED, "pad": ""}, msg_id=msg_id)[0])
    return delivery("user.deleted", {**DELETED, "pad": "x" * (size - bare)}, msg_id=msg_id)


def test_a_body_over_the_limit_is_refused_with_413_even_when_signed(receiver) -> None:  # type: ignore[no-untyped-def]
    """Attack: an unauthenticated sender streams a huge body to fill the receiver's memory.
    The limit holds even for a correctly signed one, so no signature can make it grow."""
    _, ran, post, _ = receiver
    body, headers = padded(MAX_BODY_BYTES + 1)
    response = post(body, headers)
    assert status(response) == 413 and ran == []
    answer = response.get_json() if hasattr(response, "get_json") else response.json()
    assert answer["error"] == "too_large"
    body, headers = padded(MAX_BODY_BYTES)  # control: a body of exactly the limit is handled
    assert len(body) == MAX_BODY_BYTES
    assert status(post(body, headers)) == 200 and ran == ["msg_big:u1"]


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_max_body_bytes_is_the_receivers_limit(framework: str) -> None:
    clock = [NOW]
    webhooks = Webhooks(SECRET, seen_ids=MemorySeenIds(clock=lambda: clock[0]), clock=lambda: clock[0], max_body_bytes=4096)
    post = FRAMEWORKS[framework](webhooks)
    assert status(post(*padded(4097))) == 413
    assert status(post(*padded(4096))) == 200
    webhooks = Webhooks(SECRET, clock=lambda: NOW, max_body_bytes=3 * MAX_BODY_BYTES)
    assert status(FRAMEWORKS[framework](webhooks)(*padded(2 * MAX_BODY_BYTES))) == 200
    with pytest.raises(ValueError, match="max_body_bytes"):
        Webhooks(SECRET, max_body_bytes=0)


class Endless:
    """A request stream of `total` bytes produced on demand, counting what the app read."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.read_bytes = 0

    def chunk(self, size: int) -> bytes:
        size = min(size if size >= 0 else self.left, self.left, 1 << 20)
        self.left -= size
        self.read_bytes += size
        return b"x" * size

    def read(self, size: int = -1) -> bytes:
        return self.chunk(size)

    def readline(self, size: int = -1) -> bytes:  # a body without newlines is one line
        return self.chunk(size)


HUGE = 64 * MAX_BODY_BYTES


def test_flask_stops_reading_a_chunked_body_at_the_limit() -> None:
    """Chunked (no Content-Length), so only counting while reading can stop it."""
    webhooks = make_webhooks([NOW])
    app = Flask(__name__)
    app.register_blueprint(webhook_blueprint(webhooks))
    stream = Endless(HUGE)
    body, headers = delivery("user.deleted", DELETED)
    response = app.test_client().post(
        "/webhooks/authmw", headers=headers, environ_overrides={"wsgi.input": stream, "wsgi.input_terminated": True}
    )
    assert response.status_code == 413
    assert stream.read_bytes <= MAX_BODY_BYTES + (1 << 20)
    assert flask_post(webhooks)(body, headers).status_code == 200  # control


def test_fastapi_stops_reading_a_streamed_body_at_the_limit() -> None:
    """The router's ASGI app, called as a server calls it, with a body of many chunks."""
    import asyncio

    webhooks = make_webhooks([NOW])
    app = FastAPI()
    app.include_router(webhook_router(webhooks))
    chunk = b"x" * (64 * 1024)
    asked = [0]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        asked[0] += 1
        return {"type": "http.request", "body": chunk, "more_body": asked[0] * len(chunk) < HUGE}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/webhooks/authmw", "raw_path": b"/webhooks/authmw", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"app.example"), (b"transfer-encoding", b"chunked")],
        "client": ("127.0.0.1", 5000), "server": ("app.example", 80),
    }
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    assert asked[0] * len(chunk) <= MAX_BODY_BYTES + len(chunk)
    body, headers = delivery("user.deleted", DELETED)
    assert status(fastapi_post(webhooks)(body, headers)) == 200  # control
