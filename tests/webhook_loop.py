"""The whole webhook loop, shared by the FastAPI, Flask (tests/webhooks) and Django
(tests/django) tests: a local service whose server-tier changes are POSTed, signed, to an app
served on a real socket, whose authmw receiver runs handlers.

Nothing here sleeps: tests wait on what the app received (a condition with a generous
timeout that only bounds a failure), and retries come from moving the service's clock.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from werkzeug.serving import make_server

from authmw.dev import Clock, LocalService
from authmw.webhooks import WebhookEvent, Webhooks, sign

SECRET = "whsec_" + "bG9jYWwtbG9vcC10ZXN0LXNlY3JldC0yNC1i"  # base64 of 27 bytes; a test value
OTHER_SECRET = "whsec_" + "b3RoZXItc2VjcmV0LW9mLXRoZS1sb29wLXRlc3Q="
WAIT_SECONDS = 60  # bounds a failure only; a passing run returns as soon as the event arrives


@dataclass
class Received:
    """What the app saw: every raw request, and the events its handlers finished."""

    requests: list[tuple[bytes, dict[str, str], int]] = field(default_factory=list)
    handled: list[WebhookEvent] = field(default_factory=list)
    #: Event types whose next handler run fails (raises), once each.
    fail: set[str] = field(default_factory=set)
    failed: list[str] = field(default_factory=list)
    #: Event types whose next 200 answer is replaced by a 500 (the app's answer lost on the way).
    lose_answer: set[str] = field(default_factory=set)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def handler(self, event: WebhookEvent) -> None:
        with self.changed:
            if event.type in self.fail:
                self.fail.discard(event.type)
                self.failed.append(event.id)
                self.changed.notify_all()
                raise RuntimeError("the app's database is down")
            self.handled.append(event)
            self.changed.notify_all()

    def record(self, body: bytes, headers: dict[str, str], status: int) -> int:
        """Called by the wrapper with the app's answer; returns the status to send."""
        with self.changed:
            try:
                event_type = json.loads(body).get("type")
            except (ValueError, AttributeError):
                event_type = None
            if status == 200 and event_type in self.lose_answer:
                self.lose_answer.discard(event_type)
                status = 500
            self.requests.append((body, headers, status))
            self.changed.notify_all()
            return status

    def wait(self, what: Callable[[], Any], description: str) -> Any:
        deadline = time.monotonic() + WAIT_SECONDS
        with self.changed:
            while not (result := what()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the app never saw {description}; it saw {self.summary()}")
                self.changed.wait(left)
            return result

    def wait_for_types(self, *types: str) -> list[WebhookEvent]:
        """The next handled events, once they are `types` (in order)."""
        self.wait(lambda: len(self.handled) - self._taken >= len(types), f"{types}")
        taken = self.handled[self._taken : self._taken + len(types)]
        self._taken += len(types)
        assert [event.type for event in taken] == list(types), self.summary()
        return taken

    _taken: int = 0

    def body_of(self, event: WebhookEvent) -> Any:
        """The JSON the app received for `event` (once its answer went out)."""
        found = self.wait(
            lambda: [r for r in self.requests if r[1].get("svix-id") == event.id], f"the answer to {event.id}"
        )
        return json.loads(found[0][0])

    def summary(self) -> str:
        return (
            f"handled {[e.type for e in self.handled]}, failed {self.failed}, answers {[r[2] for r in self.requests]}"
        )

    def make_webhooks(self, clock: Callable[[], float]) -> Webhooks:
        webhooks = Webhooks(SECRET, clock=clock)
        webhooks.on("*")(self.handler)
        return webhooks


def wsgi_recording(app: Any, received: Received) -> Any:
    """A WSGI app that records each request and may lose the app's answer."""

    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = __import__("io").BytesIO(body)
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        answer: dict[str, Any] = {}

        def capture(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answer["status"], answer["headers"] = status, response_headers
            return lambda data: None

        chunks = b"".join(app(environ, capture))
        code = received.record(body, headers, int(answer["status"].split()[0]))
        start_response(f"{code} {'OK' if code == 200 else 'Error'}", answer["headers"])
        return [chunks]

    return wrapped


def asgi_recording(app: Any, received: Received) -> Any:
    """An ASGI app that records each request and may lose the app's answer."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        parts = []
        while True:
            message = await receive()
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(parts)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def answer(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "status": received.record(body, headers, message["status"])}
            await send(message)

        await app(scope, replay, answer)

    return wrapped


def _free_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    sock = _free_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the ASGI app did not start"
            time.sleep(0.01)  # start-up of a server thread, not a test's synchronisation
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def serve_wsgi(app: Any) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


class Loop:
    """A local service (API 2.8) on a clock the app's receiver shares."""

    def __init__(self, data_dir: Path) -> None:
        self.clock = Clock()
        self.clock.freeze()
        self.service = LocalService(data_dir, quiet=True, clock=self.clock, api="2.8").start()
        keys = self.service.bootstrap.project
        self.http = httpx.Client(
            base_url=self.service.url + "/api/v1",
            timeout=30,
            headers={
                "x-stack-project-id": keys.project_id,
                "x-stack-access-type": "server",
                "x-stack-secret-server-key": keys.secret_server_key,
            },
        )
        self.admin = {"x-stack-access-type": "admin", "x-stack-super-secret-admin-key": keys.super_secret_admin_key}

    def close(self) -> None:
        self.http.close()
        self.service.stop()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        assert response.is_success, (response.status_code, response.text)
        return response.json()

    def messages(self) -> list[dict[str, Any]]:
        return list(httpx.get(self.service.url + "/dev/webhook-messages", timeout=30).json()["items"])

    def messages_once(self, check: Callable[[list[dict[str, Any]]], bool], description: str) -> list[dict[str, Any]]:
        """The service's messages once `check` holds (the sender records an answer just after
        the app sent it); polls, bounded by WAIT_SECONDS, never relying on a delay."""
        deadline = time.monotonic() + WAIT_SECONDS
        while not check(items := self.messages()):
            assert time.monotonic() < deadline, f"the service never recorded {description}: {items}"
            time.sleep(0.02)  # between polls only: the outcome does not depend on it
        return items


def run_the_loop(loop: Loop, app_url: str, received: Received) -> None:
    """Every step of the loop against one app at `app_url` (its receiver at /webhooks/authmw)."""
    endpoint = loop.call(
        "POST",
        "/internal/webhook-endpoints",
        headers=loop.admin,
        json={"url": app_url + "/webhooks/authmw", "secret": SECRET},
    )
    assert endpoint["secret"] == SECRET

    # user.created: exactly the server view the API answers
    ada = loop.call("POST", "/users", json={"primary_email": "ada@example.com", "display_name": "Ada"})
    (created,) = received.wait_for_types("user.created")
    assert received.body_of(created) == {"type": "user.created", "data": loop.call("GET", f"/users/{ada['id']}")}

    # The handler fails: 500, the service retries once its clock says so, the handler runs once
    received.fail.add("user.updated")
    loop.call("PATCH", f"/users/{ada['id']}", json={"display_name": "Ada L."})
    received.wait(lambda: received.failed, "the failing attempt")
    loop.messages_once(
        lambda items: [(m["status"], m["attempts"]) for m in items if m["type"] == "user.updated"] == [("pending", 1)],
        "user.updated pending after one attempt",
    )
    loop.clock.advance(5)
    (updated,) = received.wait_for_types("user.updated")
    assert updated.data.display_name == "Ada L." and updated.id == received.failed[0]

    # The app's answer is lost after the handler ran: the retry is answered 200, not run again
    received.lose_answer.add("team.created")
    team = loop.call("POST", "/teams", json={"display_name": "Lab"})
    (team_created,) = received.wait_for_types("team.created")
    assert team_created.data.id == team["id"]
    loop.messages_once(
        lambda items: [(m["status"], m["attempts"]) for m in items if m["type"] == "team.created"] == [("pending", 1)],
        "team.created pending after its lost answer",
    )
    loop.clock.advance(5)
    received.wait(
        lambda: [r for r in received.requests if r[1]["svix-id"] == team_created.id and r[2] == 200],
        "the retried team.created",
    )
    assert [e.id for e in received.handled].count(team_created.id) == 1
    loop.messages_once(
        lambda items: (
            [(m["status"], m["attempts"]) for m in items if m["type"] == "team.created"] == [("delivered", 2)]
        ),
        "team.created delivered on the 2nd attempt",
    )

    # Attacks over HTTP with the service's own request: nothing runs
    body, headers, _ = next(r for r in received.requests if r[1].get("svix-id") == team_created.id)
    signed = {k: v for k, v in headers.items() if k.startswith("svix-")}
    count = len(received.handled)
    with httpx.Client(base_url=app_url, timeout=30) as app:
        assert app.post("/webhooks/authmw", content=body, headers=signed).status_code == 401  # a replay
        tampered = body.replace(b'"Lab"', b'"Pwned"')
        assert app.post("/webhooks/authmw", content=tampered, headers=signed).status_code == 401
        now = loop.clock()
        wrong = sign(body, OTHER_SECRET, msg_id="msg_forged", timestamp=now)
        assert app.post("/webhooks/authmw", content=body, headers=wrong).status_code == 401
        stale = sign(body, SECRET, msg_id="msg_stale", timestamp=now - 301)
        assert app.post("/webhooks/authmw", content=body, headers=stale).status_code == 401
        assert app.post("/webhooks/authmw", content=body, headers={}).status_code == 400
    assert len(received.handled) == count

    # Membership (and 2.8's default permission), permissions, deletion order, team deletion
    grace = loop.call("POST", "/users", json={"primary_email": "grace@example.com"})
    received.wait_for_types("user.created")
    loop.call("POST", f"/team-memberships/{team['id']}/{grace['id']}", json={})
    joined, default = received.wait_for_types("team_membership.created", "team_permission.created")
    assert joined.data.model_dump() == {"team_id": team["id"], "user_id": grace["id"]}
    held = loop.call("GET", "/team-permissions", params={"team_id": team["id"], "user_id": grace["id"]})["items"]
    assert [default.data.model_dump()] == [{"id": p["id"], "team_id": team["id"], "user_id": grace["id"]} for p in held]
    loop.call("POST", f"/team-permissions/{team['id']}/{grace['id']}/$invite_members", json={})
    (granted,) = received.wait_for_types("team_permission.created")
    assert granted.data.id == "$invite_members"
    loop.call("DELETE", f"/team-permissions/{team['id']}/{grace['id']}/$invite_members")
    (revoked,) = received.wait_for_types("team_permission.deleted")
    assert revoked.data.id == "$invite_members"
    loop.call("DELETE", f"/users/{grace['id']}")
    left, deleted = received.wait_for_types("team_membership.deleted", "user.deleted")
    assert left.data.model_dump() == {"team_id": team["id"], "user_id": grace["id"]}
    assert received.body_of(deleted) == {
        "type": "user.deleted",
        "data": {"id": grace["id"], "teams": [{"id": team["id"]}]},
    }
    loop.call("PATCH", f"/teams/{team['id']}", json={"display_name": "Lab 2"})
    (renamed,) = received.wait_for_types("team.updated")
    assert renamed.data.display_name == "Lab 2"
    loop.call("DELETE", f"/teams/{team['id']}")
    (gone,) = received.wait_for_types("team.deleted")
    assert gone.data.id == team["id"]
    loop.messages_once(lambda items: {m["status"] for m in items} == {"delivered"}, "every message delivered")
