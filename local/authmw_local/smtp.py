"""Talking to a project's own SMTP server (e-mail config `standard`, service-api A5.2 and A5.12).

    settings = SmtpSettings.from_config(project.config["email_config"])   # None for `shared`
    try:
        deliver(settings, message)
    except SmtpFailure as failure:
        failure.category, failure.message   # short label, sentence for people

Port 465 uses implicit TLS; any other port upgrades with STARTTLS when the server offers it.
The client logs in when a username is set. The password never appears in a repr, a failure or
a log line.
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr
from typing import Any

IMPLICIT_TLS_PORT = 465
TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    username: str
    password: str = field(repr=False)
    sender_name: str
    sender_email: str

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SmtpSettings | None:
        """The settings of a `standard` e-mail config; None for `shared` (no server of its own)."""
        return cls.of(config) if config.get("type") == "standard" else None

    @classmethod
    def of(cls, fields: Mapping[str, Any]) -> SmtpSettings:
        """From the six fields (host, port, username, password, sender_name, sender_email)."""
        return cls(
            host=str(fields["host"]),
            port=int(fields["port"]),
            username=str(fields.get("username") or ""),
            password=str(fields.get("password") or ""),
            sender_name=str(fields.get("sender_name") or ""),
            sender_email=str(fields["sender_email"]),
        )

    @property
    def sender(self) -> str:
        return formataddr((self.sender_name, self.sender_email))

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


class SmtpFailure(Exception):
    """A delivery that did not happen: `category` for records, `message` for people, `cause` the
    name of the underlying exception class (for logs; it carries no server text)."""

    def __init__(self, category: str, message: str, cause: str = "") -> None:
        super().__init__(f"{category}: {message}")
        self.category = category
        self.message = message
        self.cause = cause


def deliver(settings: SmtpSettings, message: EmailMessage, *, timeout: float = TIMEOUT_SECONDS) -> None:
    """Send `message` (From defaults to the configured sender) or raise SmtpFailure."""
    if "From" not in message:
        message["From"] = settings.sender
    try:
        with _connect(settings, timeout) as smtp:
            if settings.port != IMPLICIT_TLS_PORT:
                smtp.ehlo_or_helo_if_needed()
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
            if settings.username:
                smtp.login(settings.username, settings.password)
            smtp.send_message(message)
    except Exception as error:  # noqa: BLE001 - every failure becomes one of the categories
        raise classify(error) from None


def _connect(settings: SmtpSettings, timeout: float) -> smtplib.SMTP:
    if settings.port == IMPLICIT_TLS_PORT:
        return smtplib.SMTP_SSL(settings.host, settings.port, timeout=timeout, context=ssl.create_default_context())
    return smtplib.SMTP(settings.host, settings.port, timeout=timeout)


#: (category, message) of each kind of failure; the messages are the test e-mail's `error_message`.
AUTHENTICATION = ("authentication failed", "Authentication failed: check the username and password.")
RECIPIENT_REFUSED = ("invalid address", "The recipient address was rejected.")
SENDER_REFUSED = ("invalid address", "The sender address was rejected.")
CONNECTION_LOST = ("connection lost", "The connection to the server was lost.")
TEMPORARY = ("temporary server error", "Temporary error on the e-mail server; try again later.")
REJECTED = ("rejected", "The e-mail server rejected the message.")
TIMEOUT = ("timeout", "Timed out while talking to the e-mail server.")
CANNOT_CONNECT = ("cannot connect", "Could not connect to the e-mail server: check the host and port.")
UNKNOWN = ("unknown", "Unknown error while sending the e-mail.")


def classify(error: BaseException) -> SmtpFailure:
    """The failure category of an exception raised while talking to the server."""
    if isinstance(error, SmtpFailure):
        return error
    if isinstance(error, smtplib.SMTPAuthenticationError):
        kind = AUTHENTICATION
    elif isinstance(error, smtplib.SMTPRecipientsRefused):
        kind = RECIPIENT_REFUSED
    elif isinstance(error, smtplib.SMTPSenderRefused):
        kind = SENDER_REFUSED
    elif isinstance(error, smtplib.SMTPServerDisconnected):
        # smtplib reports a reply that never came as a disconnection; the timeout is its context.
        kind = TIMEOUT if isinstance(error.__context__, TimeoutError) else CONNECTION_LOST
    elif isinstance(error, smtplib.SMTPNotSupportedError):
        kind = AUTHENTICATION  # login asked for, but the server offers no AUTH
    elif isinstance(error, smtplib.SMTPResponseException):
        kind = TEMPORARY if 400 <= error.smtp_code < 500 else REJECTED
    elif isinstance(error, TimeoutError):
        kind = TIMEOUT
    elif isinstance(error, (OSError, smtplib.SMTPException)):
        kind = CANNOT_CONNECT
    else:
        kind = UNKNOWN
    return SmtpFailure(*kind, cause=type(error).__name__)
