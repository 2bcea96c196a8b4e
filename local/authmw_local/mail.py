"""E-mail of the local service: every mail goes to the outbox, some also to an SMTP server.

Each mail is a row of `sent_emails`, listed at `GET /dev/outbox` (JSON) and `GET /dev/mailbox`
(HTML). When the project's e-mail config is `standard` (its own SMTP server), the mail is also
handed to delivery.py once the request's transaction commits; the row's `delivery` tells how
that went:

    outbox-only            shared config: the mail stays in the outbox
    pending                waiting for the SMTP server
    sent                   the SMTP server accepted it
    failed: <category>     it did not (categories of smtp.py, e.g. "cannot connect"), or
                           "failed: interrupted" when the service stopped before it finished

One log line on the `authmw_local.mail` logger names the recipient and kind (never the link).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from . import delivery
from .delivery import OUTBOX_ONLY, PENDING
from .endpoint import RequestContext
from .ids import new_uuid, now_millis
from .smtp import SmtpSettings

logger = logging.getLogger("authmw_local.mail")


@dataclass(frozen=True)
class Mail:
    to: str
    kind: str
    subject: str
    text: str
    html: str | None = None
    link: str | None = None

    def message(self, settings: SmtpSettings) -> EmailMessage:
        """The MIME message sent over SMTP: plain text, plus the HTML alternative when there is one.
        Raises ValueError for a subject that would break out of its header line."""
        if breaks_header_line(self.subject):
            raise ValueError("A mail subject must not contain line breaks, plain or RFC 2047-encoded.")
        message = EmailMessage()
        message["Subject"] = self.subject
        message["From"] = settings.sender
        message["To"] = self.to
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=settings.sender_email.rpartition("@")[2] or None)
        message.set_content(self.text)
        if self.html:
            message.add_alternative(self.html, subtype="html")
        return message


def breaks_header_line(value: str) -> bool:
    """Whether a header value holds a CR or LF, as written or once its RFC 2047 encoded words
    (``=?utf-8?q?...=0D=0A...?=``) are decoded, as the mail library does when it writes the
    header: such a value would start a header of its own (a ``Bcc:`` line, say). A value whose
    encoded words cannot be decoded counts as breaking: it is not sent."""
    if "\r" in value or "\n" in value:
        return True
    try:
        decoded = str(make_header(decode_header(value)))
    except (HeaderParseError, UnicodeError, LookupError, ValueError):
        return True
    return "\r" in decoded or "\n" in decoded


def send_email(ctx: RequestContext, mail: Mail) -> str:
    """Keep `mail` in the outbox of the request's project and, with a `standard` e-mail config,
    deliver it through that SMTP server after the transaction commits. Returns the outbox id."""
    settings = SmtpSettings.from_config(ctx.project.config["email_config"])
    email_id = new_uuid()
    ctx.sql.execute(
        "INSERT INTO sent_emails (id, project_id, recipient, kind, subject, body, html, link, sent_at_millis, delivery)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            email_id,
            ctx.project.id,
            mail.to,
            mail.kind,
            mail.subject,
            mail.text,
            mail.html,
            mail.link,
            now_millis(),
            OUTBOX_ONLY if settings is None else PENDING,
        ),
    )
    if settings is None:
        logger.info("e-mail %r to %s kept in the outbox (GET /dev/mailbox)", mail.kind, mail.to)
    else:
        db = ctx.service.db
        ctx.on_commit(lambda: delivery.submit(db, email_id, settings, lambda: mail.message(settings)))
        logger.info("e-mail %r to %s kept in the outbox and queued for %s", mail.kind, mail.to, settings.address)
    return email_id


def outbox(c: sqlite3.Connection, recipient: str | None = None, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The outbox, newest first (optionally only the mails to one address, at most `limit`)."""
    where, args = _where(recipient)
    rows = c.execute(
        f"SELECT * FROM sent_emails{where} ORDER BY sent_at_millis DESC, rowid DESC LIMIT ?",
        (*args, -1 if limit is None else limit),  # LIMIT -1: no limit
    ).fetchall()
    return [_item(row) for row in rows]


def outbox_count(c: sqlite3.Connection, recipient: str | None = None) -> int:
    where, args = _where(recipient)
    count: int = c.execute(f"SELECT COUNT(*) FROM sent_emails{where}", args).fetchone()[0]
    return count


def _where(recipient: str | None) -> tuple[str, tuple[str, ...]]:
    return ("", ()) if recipient is None else (" WHERE recipient = ?", (recipient,))


def outbox_item(c: sqlite3.Connection, email_id: str) -> dict[str, Any] | None:
    row = c.execute("SELECT * FROM sent_emails WHERE id = ?", (email_id,)).fetchone()
    return None if row is None else _item(row)


def _item(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "project_id": row["project_id"],
        "to": row["recipient"],
        "kind": row["kind"],
        "subject": row["subject"],
        "body": row["body"],
        "link": row["link"],
        "sent_at_millis": row["sent_at_millis"],
        "delivery": row["delivery"],
    }
