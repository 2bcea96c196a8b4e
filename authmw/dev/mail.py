"""E-mail of the local service: nothing leaves the machine.

Mails go to the `sent_emails` table, readable at `GET /dev/outbox` (see routes/outbox.py), and
one log line on the `authmw.dev.mail` logger names the recipient and kind (never the link).
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from .ids import new_uuid, now_millis

logger = logging.getLogger("authmw.dev.mail")


def send_email(
    c: sqlite3.Connection,
    project_id: str,
    recipient: str,
    kind: str,
    subject: str,
    body: str,
    *,
    link: str | None = None,
) -> str:
    email_id = new_uuid()
    c.execute(
        "INSERT INTO sent_emails (id, project_id, recipient, kind, subject, body, link, sent_at_millis)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (email_id, project_id, recipient, kind, subject, body, link, now_millis()),
    )
    logger.info("e-mail %r to %s kept in the outbox (GET /dev/outbox)", kind, recipient)
    return email_id


def outbox(c: sqlite3.Connection, recipient: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM sent_emails"
    args: tuple[str, ...] = ()
    if recipient is not None:
        sql += " WHERE recipient = ?"
        args = (recipient,)
    rows = c.execute(sql + " ORDER BY sent_at_millis DESC, rowid DESC", args).fetchall()
    return [
        {
            "id": row["id"],
            "project_id": row["project_id"],
            "to": row["recipient"],
            "kind": row["kind"],
            "subject": row["subject"],
            "body": row["body"],
            "link": row["link"],
            "sent_at_millis": row["sent_at_millis"],
        }
        for row in rows
    ]
