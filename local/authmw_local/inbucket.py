"""The outbox through Inbucket's read API, for tools written against a Stack development backend.

Stack Auth's development set-up catches mail in Inbucket, and its end-to-end suite reads it with

    GET /api/v1/mailbox/<name>          the messages of a mailbox, oldest first (no bodies)
    GET /api/v1/mailbox/<name>/<id>     one message, with `header`, `body` {text, html}, `attachments`

`<name>` is the local part of the address, lower-case, without a `+tag` (Inbucket's "local"
naming). The suite builds these URLs from the root of its base URL, so this API is served on a
port of its own (`LocalService(mail_api_port=...)`, `authmw dev --mail-api-port`), not under the
service's `/api`. It reads the outbox of every project (as Inbucket holds every mail) and only
reads: nothing is deleted or marked seen.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from email.utils import formataddr
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from .projects import get_project
from .responses import json_response
from .service import Service
from .smtp import SmtpSettings

#: The sender of a project on the shared e-mail config (Stack's development default).
SHARED_SENDER_EMAIL = "noreply@example.com"
#: Bounds a mailbox listing (the suite's mailboxes hold a handful of mails each).
MAILBOX_LIMIT = 1000


def mailbox_name(address: str) -> str:
    """`Alice+news@Example.com` -> `alice` (Inbucket's "local" mailbox naming)."""
    local = address.rpartition("@")[0] or address
    return local.split("+", 1)[0].strip().lower()


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _rows(c: sqlite3.Connection, name: str) -> list[sqlite3.Row]:
    prefix = _like_escape(name)
    candidates = c.execute(
        "SELECT * FROM sent_emails WHERE recipient LIKE ? ESCAPE '\\' OR recipient LIKE ? ESCAPE '\\'"
        " ORDER BY sent_at_millis, rowid LIMIT ?",
        (prefix + "@%", prefix + "+%", MAILBOX_LIMIT),
    ).fetchall()
    return [row for row in candidates if mailbox_name(row["recipient"]) == name]


def _sender(c: sqlite3.Connection, project_id: str) -> str:
    project = get_project(c, project_id)
    if project is None:
        return f"<{SHARED_SENDER_EMAIL}>"
    settings = SmtpSettings.from_config(project.config["email_config"])
    if settings is not None:
        return settings.sender
    return formataddr((project.display_name, SHARED_SENDER_EMAIL))


def _summary(c: sqlite3.Connection, name: str, row: sqlite3.Row) -> dict[str, Any]:
    sent = datetime.fromtimestamp(row["sent_at_millis"] / 1000, timezone.utc)
    return {
        "mailbox": name,
        "id": row["id"],
        "from": _sender(c, row["project_id"]),
        "to": [f"<{row['recipient']}>"],
        "subject": row["subject"],
        "date": sent.isoformat(),
        "posix-millis": row["sent_at_millis"],
        "size": len(row["body"].encode()) + len((row["html"] or "").encode()),
        "seen": False,
    }


def _message(c: sqlite3.Connection, name: str, row: sqlite3.Row) -> dict[str, Any]:
    summary = _summary(c, name, row)
    header = {
        "From": [summary["from"]],
        "To": [row["recipient"]],
        "Subject": [row["subject"]],
        "Date": [summary["date"]],
    }
    body = {"text": row["body"], "html": row["html"] or ""}
    return {**summary, "header": header, "body": body, "attachments": []}


async def list_mailbox(request: Request) -> Response:
    service: Service = request.app.state.service
    name = mailbox_name(request.path_params["name"] + "@")

    def read() -> list[dict[str, Any]]:
        with service.db.tx() as c:
            return [_summary(c, name, row) for row in _rows(c, name)]

    return json_response(await run_in_threadpool(read))


async def read_message(request: Request) -> Response:
    service: Service = request.app.state.service
    name = mailbox_name(request.path_params["name"] + "@")
    email_id = request.path_params["email_id"]

    def read() -> dict[str, Any] | None:
        with service.db.tx() as c:
            row = c.execute("SELECT * FROM sent_emails WHERE id = ?", (email_id,)).fetchone()
            if row is None or mailbox_name(row["recipient"]) != name:
                return None
            return _message(c, name, row)

    message = await run_in_threadpool(read)
    if message is None:
        return PlainTextResponse(f"No message {email_id} in mailbox {name}", 404)
    return json_response(message)


async def _not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("Not found: this port serves only GET /api/v1/mailbox/<name>[/<id>]", 404)


def create_mail_api(service: Service) -> Starlette:
    """The read API over `service`'s outbox (an app of its own, for a port of its own)."""
    app = Starlette(
        routes=[
            Route("/api/v1/mailbox/{name}", list_mailbox, methods=["GET"]),
            Route("/api/v1/mailbox/{name}/{email_id}", read_message, methods=["GET"]),
        ],
        exception_handlers={404: _not_found},
    )
    app.state.service = service
    return app
