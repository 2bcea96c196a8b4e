"""Delivery through the project's own SMTP server (email_config `standard`), to a real local SMTP
server (aiosmtpd) over real sockets, with a local service of this module's own."""

from __future__ import annotations

import asyncio
import datetime as dt
import email
import email.policy
import ipaddress
import logging
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from ports import free_port

from authmw_local import LocalService, smtp
from authmw_local.endpoint import ANY, EndpointGroup, RequestContext
from authmw_local.errors import CatalogueError
from authmw_local.mail import Mail, send_email

from .conftest import Api, unique_email

USERNAME = "mailer"
PASSWORD = "smtp-Pa55word-never-logged"
SENDER = ("Acme Sign-in", "auth@acme.example")
PROJECT_NAME = "authmw local project"


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage


@dataclass
class Inbox:
    """The aiosmtpd handler: keeps what arrives; while `gate` is set to an unset Event, every
    DATA waits for it (a test opens it), so "the call did not wait" needs no stopwatch."""

    received: list[Received] = field(default_factory=list)
    logins: list[tuple[bytes, bytes]] = field(default_factory=list)
    gate: threading.Event | None = None

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.gate is not None:
            await asyncio.to_thread(self.gate.wait, 120)
        content = envelope.original_content or b""
        message = email.message_from_bytes(content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.received.append(Received(envelope.mail_from or "", list(envelope.rcpt_tos), message))
        return "250 OK"

    def authenticate(self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword):
            self.logins.append((data.login, data.password))
            valid = (data.login, data.password) == (USERNAME.encode(), PASSWORD.encode())
            return AuthResult(success=valid, handled=False)  # not handled: aiosmtpd answers 235 / 535
        return AuthResult(success=False, handled=False)

    def wait_for(self, recipient: str, timeout: float = 60.0) -> Received:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for item in self.received:
                if recipient in item.recipients:
                    return item
            time.sleep(0.02)
        raise AssertionError(f"no message to {recipient} reached the SMTP server within {timeout} s")


@pytest.fixture(scope="module")
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, authenticator=inbox.authenticate, auth_require_tls=False
    )
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def mail_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    # Answering as API 2.7, which has the custom e-mail templates one test sends (delivery is the
    # same in both versions).
    with LocalService(tmp_path_factory.mktemp("authmw-smtp"), quiet=True, api="2.7") as service:
        yield Api.of(service)


@pytest.fixture
def inbox(smtp_server: tuple[Inbox, int], mail_api: Api) -> Iterator[Inbox]:
    """The project delivers through the test SMTP server during the test, then shares again."""
    yield from delivering_through(smtp_server, mail_api)


def delivering_through(smtp_server: tuple[Inbox, int], api: Api) -> Iterator[Inbox]:
    """For an ``inbox`` fixture: the project of ``api`` delivers through the test SMTP server
    (its inbox yielded, ungated) until the test ends, then shares again."""
    inbox, port = smtp_server
    inbox.gate = None
    use_smtp(api, port)
    yield inbox
    api.set_config(email_config={"type": "shared"})


@contextmanager
def own_smtp_server(api: Api, **options: Any) -> Iterator[tuple[Inbox, int]]:
    """A test SMTP server of the block alone (``options``: the TLS settings of aiosmtpd's
    ``Controller``) that the project of ``api`` delivers through; yields its inbox and port.
    Afterwards the server stops and the project shares again."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, authenticator=inbox.authenticate, **options)
    controller.start()
    try:
        use_smtp(api, port)
        yield inbox, port
    finally:
        controller.stop()
        api.set_config(email_config={"type": "shared"})


def email_config(port: int, password: str = PASSWORD) -> dict[str, Any]:
    return {
        "type": "standard",
        "host": "127.0.0.1",
        "port": port,
        "username": USERNAME,
        "password": password,
        "sender_name": SENDER[0],
        "sender_email": SENDER[1],
    }


def use_smtp(api: Api, port: int, password: str = PASSWORD) -> None:
    api.set_config(email_config=email_config(port, password))


def outbox_mail(api: Api, email_address: str, kind: str | None = None) -> dict[str, Any]:
    items = api.http.get("/dev/outbox", params={"to": email_address}).json()["items"]
    return next(item for item in items if kind is None or item["kind"] == kind)


def settled(api: Api, email_address: str, kind: str | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """The outbox row once its delivery is no longer pending."""
    deadline = time.monotonic() + timeout
    while True:
        mail = outbox_mail(api, email_address, kind)
        if mail["delivery"] != "pending" or time.monotonic() > deadline:
            return mail
        time.sleep(0.05)


def parts(message: EmailMessage) -> tuple[str, str]:
    text = message.get_body(("plain",))
    markup = message.get_body(("html",))
    assert text is not None and markup is not None
    return text.get_content().replace("\r\n", "\n"), markup.get_content().replace("\r\n", "\n")


def test_a_sign_up_mail_reaches_the_smtp_server(mail_api: Api, inbox: Inbox) -> None:
    address = unique_email()
    mail_api.sign_up(address)
    received = inbox.wait_for(address)
    mail = settled(mail_api, address)
    assert mail["delivery"] == "sent"
    assert received.recipients == [address]
    assert received.sender == SENDER[1]
    message = received.message
    assert message["Subject"] == f"Verify your email at {PROJECT_NAME}"
    assert message["To"] == address
    assert message["From"].addresses[0].display_name == SENDER[0]
    assert message["From"].addresses[0].addr_spec == SENDER[1]
    assert message["Message-ID"] and message["Date"]
    text, markup = parts(message)
    assert mail["link"] in text and text.strip() == mail["body"].strip()
    assert f'href="{mail["link"]}"' in markup.replace("&amp;", "&")
    assert (USERNAME.encode(), PASSWORD.encode()) in inbox.logins


def test_a_magic_link_mail_is_delivered_with_its_code(mail_api: Api, inbox: Inbox) -> None:
    mail_api.set_config(magic_link_enabled=True)
    try:
        address = unique_email()
        sent = mail_api.call(
            "POST", "/auth/otp/send-sign-in-code", json={"email": address, "callback_url": "http://localhost:3000/m"}
        )
        assert sent.status_code == 200, sent.text
        received = inbox.wait_for(address)
        otp = outbox_mail(mail_api, address)["subject"].rsplit(" ", 1)[1]
        assert received.message["Subject"] == f"Sign in to {PROJECT_NAME}: Your code is {otp}"
        assert otp in parts(received.message)[0]
    finally:
        mail_api.set_config(magic_link_enabled=False)


def test_the_api_call_does_not_wait_for_the_smtp_server(mail_api: Api, inbox: Inbox) -> None:
    inbox.gate = threading.Event()  # the SMTP server holds every message until the test opens it
    address = unique_email()
    try:
        mail_api.sign_up(address)  # answered although the message cannot have been accepted yet
        assert outbox_mail(mail_api, address)["delivery"] == "pending"
        assert "sending" in mail_api.http.get("/dev/mailbox", params={"to": address}).text
        assert not any(address in item.recipients for item in inbox.received)
    finally:
        inbox.gate.set()
        inbox.gate = None
    inbox.wait_for(address)
    assert settled(mail_api, address)["delivery"] == "sent"


def test_an_unreachable_server_leaves_the_call_successful_and_the_mail_marked_failed(
    mail_api: Api, inbox: Inbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="authmw_local")
    use_smtp(mail_api, free_port())  # nothing listens there
    address = unique_email()
    mail_api.sign_up(address)  # asserts 200
    mail = settled(mail_api, address)
    assert mail["delivery"] == "failed: cannot connect"
    page = mail_api.http.get("/dev/mailbox", params={"to": address}).text
    assert "SMTP failed: cannot connect" in page and mail["link"].replace("&", "&amp;") in page
    assert PASSWORD not in page
    assert any("cannot connect" in record.getMessage() for record in caplog.records)
    assert all(PASSWORD not in record.getMessage() for record in caplog.records)


def test_wrong_credentials_are_an_authentication_failure(
    mail_api: Api, smtp_server: tuple[Inbox, int], inbox: Inbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="authmw_local")
    wrong = "not-the-password"
    use_smtp(mail_api, smtp_server[1], password=wrong)
    address = unique_email()
    mail_api.sign_up(address)
    assert settled(mail_api, address)["delivery"] == "failed: authentication failed"
    assert all(wrong not in record.getMessage() for record in caplog.records)
    assert not any(address in item.recipients for item in inbox.received)


def test_the_shared_config_keeps_mail_in_the_outbox_only(mail_api: Api, inbox: Inbox) -> None:
    mail_api.set_config(email_config={"type": "shared"})
    address = unique_email()
    mail_api.sign_up(address)
    assert settled(mail_api, address)["delivery"] == "outbox-only"  # final: nothing is sent later
    assert not any(address in item.recipients for item in inbox.received)


def test_a_custom_template_is_what_the_smtp_server_receives(mail_api: Api, inbox: Inbox) -> None:
    path = "/email-templates/password_reset"
    content = {
        "type": "doc",
        "content": [
            {
                "type": "heading",
                "attrs": {"level": 2},
                "content": [{"type": "text", "text": "{{ projectDisplayName }}"}],
            },
            {"type": "paragraph", "content": [{"type": "text", "text": "Hello {{ userDisplayName }},"}]},
            {
                "type": "paragraph",
                "content": [
                    {
                        "type": "text",
                        "text": "Choose a new password",
                        "marks": [{"type": "link", "attrs": {"href": "{{ passwordResetLink }}"}}],
                    }
                ],
            },
        ],
    }
    subject = "Reset for {{ userDisplayName }} at {{ projectDisplayName }}"
    saved = mail_api.call("PATCH", path, "admin", json={"subject": subject, "content": content})
    assert saved.status_code == 200, saved.text
    try:
        address = unique_email()
        tokens = mail_api.sign_up(address)
        name = "<b>Mällory</b> & co \u2615"  # markup, an ampersand and non-ASCII characters
        renamed = mail_api.call("PATCH", "/users/me", token=tokens["access_token"], json={"display_name": name})
        assert renamed.status_code == 200, renamed.text
        mail_api.call(
            "POST", "/auth/password/send-reset-code", json={"email": address, "callback_url": "http://localhost:3000/r"}
        )
        mail = settled(mail_api, address, "password_reset")
        assert mail["subject"] == f"Reset for {name} at {PROJECT_NAME}"
        received = next(item for item in inbox.received if item.message["Subject"] == mail["subject"])
        text, markup = parts(received.message)
        assert text == f"{PROJECT_NAME}\n\nHello {name},\n\nChoose a new password ({mail['link']})\n"
        assert mail["body"] == text
        assert "Hello &lt;b&gt;Mällory&lt;/b&gt; &amp; co \u2615," in markup and "<b>" not in markup
        assert f'<a href="{mail["link"]}">Choose a new password</a>' in markup.replace("&amp;", "&")
    finally:
        mail_api.call("DELETE", path, "admin")


def test_send_test_email_talks_to_the_same_server(mail_api: Api, smtp_server: tuple[Inbox, int]) -> None:
    inbox, port = smtp_server
    address = unique_email()
    config = {key: value for key, value in email_config(port).items() if key != "type"}
    response = mail_api.call(
        "POST", "/internal/send-test-email", "admin", json={"recipient_email": address, "email_config": config}
    )
    assert response.json() == {"success": True}
    assert inbox.wait_for(address).message["Subject"] == "Test Email from Stack Auth"


def test_a_delivery_cut_short_by_a_stop_is_marked_interrupted_on_the_next_start(
    smtp_server: tuple[Inbox, int], tmp_path: Path
) -> None:
    inbox, port = smtp_server
    inbox.gate = threading.Event()  # the delivery cannot finish before the service stops
    try:
        with LocalService(tmp_path, quiet=True) as first:
            api = Api.of(first)
            use_smtp(api, port)
            address = unique_email()
            api.sign_up(address)
            assert outbox_mail(api, address)["delivery"] == "pending"
        with LocalService(tmp_path, quiet=True) as second:
            assert outbox_mail(Api.of(second), address)["delivery"] == "failed: interrupted"
    finally:
        inbox.gate.set()
        inbox.gate = None


def test_mail_of_a_failed_request_is_neither_kept_nor_sent(smtp_server: tuple[Inbox, int], tmp_path: Path) -> None:
    """Delivery waits for the commit: a request that fails after sending rolls the mail back."""
    inbox, port = smtp_server
    group = EndpointGroup()

    @group.post("/test/mail/{outcome}", tiers=ANY)
    def mail_then(ctx: RequestContext) -> dict[str, bool]:
        to = ctx.request.query_params["to"]
        send_email(ctx, Mail(to=to, kind="test", subject="A test", text="Hello\n"))
        if ctx.params["outcome"] == "fail":
            raise CatalogueError("USER_NOT_FOUND")
        return {"success": True}

    service = LocalService(tmp_path, quiet=True)
    service.app.router.routes.extend(group.routes)
    with service:
        api = Api.of(service)
        use_smtp(api, port)
        failed, kept = unique_email(), unique_email()
        assert api.call("POST", "/test/mail/fail", params={"to": failed}).status_code == 404
        assert api.call("POST", "/test/mail/succeed", params={"to": kept}).status_code == 200
        assert inbox.wait_for(kept).message["Subject"] == "A test"
        assert settled(api, kept)["delivery"] == "sent"
        assert api.http.get("/dev/outbox", params={"to": failed}).json()["items"] == []
        assert not any(failed in item.recipients for item in inbox.received)


def test_starttls_is_used_when_the_server_offers_it(
    mail_api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that accepts AUTH only over TLS: the client upgrades with STARTTLS and verifies
    the certificate (trusted here through SSL_CERT_FILE, as a system trust store would)."""
    caplog.set_level(logging.DEBUG, logger="authmw_local")
    ca_file, server_context = certificates(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    with own_smtp_server(mail_api, tls_context=server_context, require_starttls=True) as (inbox, _):
        address = unique_email()
        mail_api.sign_up(address)
        mail = settled(mail_api, address)
        assert mail["delivery"] == "sent", [record.getMessage() for record in caplog.records]
        assert inbox.wait_for(address).message["Subject"] == f"Verify your email at {PROJECT_NAME}"
        monkeypatch.delenv("SSL_CERT_FILE")  # an untrusted certificate is refused
        other = unique_email()
        mail_api.sign_up(other)
        assert settled(mail_api, other)["delivery"] == "failed: cannot connect"


def test_port_465_means_implicit_tls(
    mail_api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The server speaks TLS from the first byte (SMTPS); the test port stands in for 465."""
    caplog.set_level(logging.DEBUG, logger="authmw_local")
    ca_file, server_context = certificates(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    # aiosmtpd counts only STARTTLS as TLS; this connection is TLS throughout
    with own_smtp_server(mail_api, ssl_context=server_context, auth_require_tls=False) as (inbox, port):
        monkeypatch.setattr(smtp, "IMPLICIT_TLS_PORT", port)
        address = unique_email()
        mail_api.sign_up(address)
        mail = settled(mail_api, address)
        assert mail["delivery"] == "sent", [record.getMessage() for record in caplog.records]
        assert inbox.wait_for(address).recipients == [address]


def certificates(folder: Path) -> tuple[Path, ssl.SSLContext]:
    """A CA certificate file and a server context whose certificate for 127.0.0.1 it signed."""
    now = dt.datetime.now(dt.timezone.utc)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "authmw test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf_cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return ca_file, context
