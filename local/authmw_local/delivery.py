"""Background SMTP delivery of outbox e-mails (see mail.py).

`submit` returns at once: a small thread pool talks to the SMTP server (each socket operation
bounded by smtp.TIMEOUT_SECONDS) and then records the outcome on the outbox row, in a
transaction of its own. Nothing here raises into a request, and nothing logs the password.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage

from .db import Database
from .smtp import UNKNOWN, SmtpSettings, classify, deliver

logger = logging.getLogger("authmw_local.mail")

WORKERS = 4

#: Values of `sent_emails.delivery`.
OUTBOX_ONLY = "outbox-only"
PENDING = "pending"
SENT = "sent"
FAILED_PREFIX = "failed: "
#: A delivery the previous run of the service did not finish before it stopped.
INTERRUPTED = FAILED_PREFIX + "interrupted"

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def submit(db: Database, email_id: str, settings: SmtpSettings, build: Callable[[], EmailMessage]) -> None:
    """Deliver the message `build()` gives through `settings` in the background."""
    try:
        _executor().submit(_deliver, db, email_id, settings, build)
    except Exception as error:  # noqa: BLE001 - e.g. the interpreter shutting down; never fail the request
        logger.warning("e-mail %s not queued for %s (%s)", email_id, settings.address, type(error).__name__)
        _record(db, email_id, FAILED_PREFIX + UNKNOWN[0])


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="authmw-mail")
        return _pool


def _deliver(db: Database, email_id: str, settings: SmtpSettings, build: Callable[[], EmailMessage]) -> None:
    try:
        message = build()
        deliver(settings, message)
    except Exception as error:  # noqa: BLE001 - a delivery failure is recorded, never raised
        failure = classify(error)
        logger.warning(
            "e-mail %s not delivered through %s: %s (%s)", email_id, settings.address, failure.category, failure.cause
        )
        _record(db, email_id, FAILED_PREFIX + failure.category)
        return
    logger.info("e-mail %s to %s delivered through %s", email_id, message["To"], settings.address)
    _record(db, email_id, SENT)


def _record(db: Database, email_id: str, status: str) -> None:
    try:
        with db.tx() as c:
            c.execute("UPDATE sent_emails SET delivery = ? WHERE id = ?", (status, email_id))
    except sqlite3.Error as error:  # e.g. the service stopped (database closed) meanwhile
        logger.debug("e-mail %s: delivery %r not recorded (%s)", email_id, status, type(error).__name__)


def mark_interrupted(db: Database) -> int:
    """On start: deliveries still pending belong to a previous run that stopped first."""
    with db.tx() as c:
        return c.execute("UPDATE sent_emails SET delivery = ? WHERE delivery = ?", (INTERRUPTED, PENDING)).rowcount
