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

from authmw.webhooks import MemorySeenIds, UserDeleted, Webhooks
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
