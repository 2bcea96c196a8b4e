"""Webhooks of the local service: endpoints per project, events, signed delivery with retries.

Each change the real service announces (service-api B13.2) is recorded by one call in the
code that makes it (`user_created(c, ...)`, `membership_deleted(c, ...)`, ...): one row of
`webhook_messages` per endpoint of the project, in the request's own transaction, so an
event exists exactly when its change was committed. A background `Sender` per service posts
each message to its endpoint as the service would through Svix: body `{"type", "data"}`,
headers `svix-id` (the message id, the same on every attempt), `svix-timestamp` and
`svix-signature` (signed again on each attempt, `authmw.webhooks.sign`). A 2xx answer marks
the message `delivered`; anything else (or no answer) is retried after `BACKOFF_SECONDS`,
then marked `failed`. Times follow the service's clock, so a test moves the clock instead of
waiting.

Endpoints: the admin routes of routes/webhooks.py, or `authmw dev --webhook URL`. Messages:
`GET /dev/webhooks` (a page beside the mailbox) and `GET /dev/webhook-messages` (JSON).
Nothing is sent for a project without endpoints; a receiver's body is never logged.
"""

from __future__ import annotations

import base64
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from authmw.webhooks import sign

from .api_version import current_api
from .db import BEFORE_COMMIT, Database, dump, load
from .ids import new_uuid, now_millis

logger = logging.getLogger("authmw_local.webhooks")

PENDING = "pending"
DELIVERED = "delivered"
FAILED = "failed"

#: Waits after the 1st, 2nd, ... failed attempt (shorter than Svix's hours: this is a dev
#: service); after the last, the message is `failed`.
BACKOFF_SECONDS = (5.0, 30.0, 120.0, 600.0)
TIMEOUT_SECONDS = 10.0

_changes = threading.Condition()
_generation = [0]


def _wake_senders() -> None:
    with _changes:
        _generation[0] += 1
        _changes.notify_all()


# --- Endpoints -----------------------------------------------------------------------------


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(24)).decode()


def add_endpoint(c: sqlite3.Connection, project_id: str, url: str, secret: str | None = None) -> dict[str, Any]:
    endpoint = {"id": new_uuid(), "url": url, "secret": secret or new_secret(), "created_at_millis": now_millis()}
    c.execute(
        "INSERT INTO webhook_endpoints (id, project_id, url, secret, created_at_millis) VALUES (?, ?, ?, ?, ?)",
        (endpoint["id"], project_id, url, endpoint["secret"], endpoint["created_at_millis"]),
    )
    return endpoint


def list_endpoints(c: sqlite3.Connection, project_id: str) -> list[dict[str, Any]]:
    rows = c.execute(
        "SELECT id, url, secret, created_at_millis FROM webhook_endpoints WHERE project_id = ? ORDER BY created_at_millis, id",
        (project_id,),
    ).fetchall()
    return [dict(row) for row in rows]


def delete_endpoint(c: sqlite3.Connection, project_id: str, endpoint_id: str) -> bool:
    cursor = c.execute("DELETE FROM webhook_endpoints WHERE project_id = ? AND id = ?", (project_id, endpoint_id))
    return cursor.rowcount > 0


def ensure_endpoint(db: Database, project_id: str, url: str, secret: str | None = None) -> dict[str, Any]:
    """An endpoint of the project for `url`: the one already there (with its secret, e.g. when
    `authmw dev --webhook URL` ran before), else a new one."""
    with db.tx() as c:
        for endpoint in list_endpoints(c, project_id):
            if endpoint["url"] == url and secret in (None, endpoint["secret"]):
                return endpoint
        return add_endpoint(c, project_id, url, secret)


# --- Events (service-api B13.2) -----------------------------------------------------------


def emit(
    c: sqlite3.Connection, project_id: str, event_type: str, data: Any = None, *, subject: str | None = None
) -> None:
    """Queue `{"type", "data"}` for every endpoint of the project, in the caller's transaction.

    With `subject` (a user or team id) instead of `data`, the data is the server view of that
    user or team as the transaction leaves it (rendered just before it commits), so a sign-up
    that goes on to add an OAuth account or a personal team announces the finished user."""
    endpoints = c.execute("SELECT id FROM webhook_endpoints WHERE project_id = ?", (project_id,)).fetchall()
    if not endpoints:
        return
    if (
        subject is not None
        and c.execute(
            "SELECT 1 FROM webhook_messages WHERE project_id = ? AND payload IS NULL AND subject = ? AND type = ?",
            (project_id, subject, event_type),
        ).fetchone()
    ):
        return  # already announced by this transaction, with the state it leaves
    message_id = "msg_" + secrets.token_hex(12)
    payload = None if subject is not None else dump({"type": event_type, "data": data})
    if subject is not None:
        _unrendered.add(id(c))
    for endpoint in endpoints:
        c.execute(
            "INSERT INTO webhook_messages (id, endpoint_id, project_id, type, payload, subject, created_at_millis,"
            " status, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (message_id, endpoint["id"], project_id, event_type, payload, subject, now_millis(), PENDING),
        )
    _wake_senders()  # the sender reads the rows once this transaction commits (one connection, one lock)


#: The server view of an event's subject, by kind ("user", "team"), rendered at commit; None when
#: the subject is gone. users.py and teams.py register theirs: they emit the events and import
#: this module, so this module imports neither of them.
SUBJECT_VIEWS: dict[str, Callable[[sqlite3.Connection, str, str], dict[str, Any] | None]] = {}

#: The connections (one per service) whose transaction queued events to render at commit; any
#: other commit skips the query.
_unrendered: set[int] = set()


def _render(c: sqlite3.Connection) -> None:
    """Before a commit: the data of the transaction's user.*/team.* events (db.BEFORE_COMMIT)."""
    if id(c) not in _unrendered:
        return
    _unrendered.discard(id(c))
    rows = c.execute(
        "SELECT DISTINCT id, project_id, type, subject FROM webhook_messages WHERE payload IS NULL"
    ).fetchall()
    for row in rows:
        kind = row["type"].partition(".")[0]
        data = SUBJECT_VIEWS[kind](c, row["project_id"], row["subject"])
        if data is None:  # created and deleted in one transaction: its deletion is announced
            c.execute("DELETE FROM webhook_messages WHERE project_id = ? AND id = ?", (row["project_id"], row["id"]))
        else:
            payload = dump({"type": row["type"], "data": data})
            c.execute(
                "UPDATE webhook_messages SET payload = ? WHERE project_id = ? AND id = ?",
                (payload, row["project_id"], row["id"]),
            )


BEFORE_COMMIT.append(_render)


def user_created(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    emit(c, project_id, "user.created", subject=user_id)


def user_updated(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    emit(c, project_id, "user.updated", subject=user_id)


def user_deleted(c: sqlite3.Connection, project_id: str, user_id: str) -> None:
    """Call before the user's rows go: one `team_membership.deleted` per team, then `user.deleted`."""
    teams = [
        row["team_id"]
        for row in c.execute(
            "SELECT team_id FROM team_members WHERE project_id = ? AND user_id = ? ORDER BY created_at_millis, team_id",
            (project_id, user_id),
        )
    ]
    for team_id in teams:
        membership_deleted(c, project_id, team_id, user_id)
    emit(c, project_id, "user.deleted", {"id": user_id, "teams": [{"id": team_id} for team_id in teams]})


def team_created(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    emit(c, project_id, "team.created", subject=team_id)


def team_updated(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    emit(c, project_id, "team.updated", subject=team_id)


def team_deleted(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    emit(c, project_id, "team.deleted", {"id": team_id})


def membership_created(
    c: sqlite3.Connection, project_id: str, team_id: str, user_id: str, permission_ids: list[str]
) -> None:
    """A member added (not a team's creator): the membership, then (2.8) each default permission."""
    emit(c, project_id, "team_membership.created", {"team_id": team_id, "user_id": user_id})
    for permission_id in permission_ids:
        team_permission_created(c, project_id, team_id, user_id, permission_id)


def membership_deleted(c: sqlite3.Connection, project_id: str, team_id: str, user_id: str) -> None:
    emit(c, project_id, "team_membership.deleted", {"team_id": team_id, "user_id": user_id})


def team_permission_created(
    c: sqlite3.Connection, project_id: str, team_id: str, user_id: str, permission_id: str
) -> None:
    if current_api().name != "2.7":  # team_permission.* are new in 2.8
        emit(c, project_id, "team_permission.created", {"id": permission_id, "team_id": team_id, "user_id": user_id})


def team_permission_deleted(
    c: sqlite3.Connection, project_id: str, team_id: str, user_id: str, permission_id: str
) -> None:
    if current_api().name != "2.7":
        emit(c, project_id, "team_permission.deleted", {"id": permission_id, "team_id": team_id, "user_id": user_id})


def project_permission_created(c: sqlite3.Connection, project_id: str, user_id: str, permission_id: str) -> None:
    """2.8: a project permission granted through the API (not the defaults of a new user)."""
    emit(c, project_id, "project_permission.created", {"id": permission_id, "user_id": user_id})


def project_permission_deleted(c: sqlite3.Connection, project_id: str, user_id: str, permission_id: str) -> None:
    emit(c, project_id, "project_permission.deleted", {"id": permission_id, "user_id": user_id})


# --- Messages ------------------------------------------------------------------------------


def messages(c: sqlite3.Connection, project_id: str | None = None, *, limit: int = 200) -> list[dict[str, Any]]:
    """Messages, newest first, with their endpoint's URL (never its secret)."""
    if project_id is None:  # the developer's page of every project on this machine, like the mailbox
        rows = c.execute(
            "SELECT m.*, e.url FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id"
            " ORDER BY m.created_at_millis DESC, m.rowid DESC LIMIT ?",
            (limit,),
        ).fetchall()
    else:
        rows = c.execute(
            "SELECT m.*, e.url FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id"
            " WHERE m.project_id = ? ORDER BY m.created_at_millis DESC, m.rowid DESC LIMIT ?",
            (project_id, limit),
        ).fetchall()
    return [
        {
            "id": row["id"],
            "project_id": row["project_id"],
            "endpoint_id": row["endpoint_id"],
            "url": row["url"],
            "type": row["type"],
            "payload": load(row["payload"]),
            "created_at_millis": row["created_at_millis"],
            "status": row["status"],
            "attempts": row["attempts"],
            "next_attempt_at": row["next_attempt_at"] if row["status"] == PENDING else None,
            "last_result": row["last_result"],
        }
        for row in rows
    ]


# --- Delivery ------------------------------------------------------------------------------


class Sender:
    """Posts due messages of one service's database, one at a time, in a daemon thread."""

    #: Longest real wait between looks at the table (a moved clock is noticed by then).
    POLL_SECONDS = 0.2

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock
        self._stopped = False
        self._client = httpx.Client(timeout=TIMEOUT_SECONDS, follow_redirects=False, trust_env=False)
        self._thread = threading.Thread(target=self._run, name="authmw-dev-webhooks", daemon=True)

    def start(self) -> Sender:
        self._thread.start()
        return self

    def wake(self) -> None:
        _wake_senders()

    def stop(self) -> None:
        with _changes:
            self._stopped = True
            _changes.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=TIMEOUT_SECONDS + 5)
        self._client.close()

    def _run(self) -> None:
        seen = -1
        while True:
            with _changes:
                if self._stopped:
                    return
                seen = _generation[0]
            waiting = True
            try:
                while self._send_one():
                    if self._stopped:
                        return
                waiting = self._any_pending()
            except sqlite3.ProgrammingError:  # the database was closed: the service stopped
                return
            except Exception:  # the sender must outlive any one message
                logger.exception("webhook sender: unexpected error")
            # Retries wait on the service's clock, which a test may move: look again soon while
            # any are pending; otherwise sleep until a new message is queued.
            with _changes:
                _changes.wait_for(partial(self._woken, seen), timeout=self.POLL_SECONDS if waiting else None)

    def _woken(self, seen: int) -> bool:
        return self._stopped or _generation[0] != seen

    def _any_pending(self) -> bool:
        with self.db.tx() as c:
            return (
                c.execute("SELECT 1 FROM webhook_messages WHERE status = ? LIMIT 1", (PENDING,)).fetchone() is not None
            )

    def _send_one(self) -> bool:
        """Attempt the oldest due message; False when none is due."""
        now = self.clock()
        with self.db.tx() as c:
            row = c.execute(
                "SELECT m.rowid AS n, m.project_id, m.id, m.endpoint_id, m.type, m.payload, m.attempts, e.url, e.secret"
                " FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id"
                " WHERE m.status = ? AND m.next_attempt_at <= ? AND m.payload IS NOT NULL"
                " ORDER BY m.next_attempt_at, m.rowid LIMIT 1",
                (PENDING, now),
            ).fetchone()
        if row is None:
            return False
        body = row["payload"].encode()
        headers = {**sign(body, row["secret"], msg_id=row["id"], timestamp=now), "content-type": "application/json"}
        try:
            response = self._client.post(row["url"], content=body, headers=headers)
            ok, result = response.is_success, f"HTTP {response.status_code}"
        except httpx.HTTPError as error:
            ok, result = False, f"no answer ({type(error).__name__})"
        attempts = row["attempts"] + 1
        if ok:
            status, next_at = DELIVERED, None
        elif attempts > len(BACKOFF_SECONDS):
            status, next_at = FAILED, None
        else:
            status, next_at = PENDING, now + BACKOFF_SECONDS[attempts - 1]
        logger.info(
            "webhook %s %s to %s: %s (attempt %d, %s)", row["id"], row["type"], row["url"], result, attempts, status
        )
        with self.db.tx() as c:
            c.execute(
                "UPDATE webhook_messages SET status = ?, attempts = ?, next_attempt_at = ?, last_result = ?"
                " WHERE project_id = ? AND rowid = ?",
                (status, attempts, next_at, result, row["project_id"], row["n"]),
            )
        return True
