"""E-mail bodies from template documents (email_documents.py) and SMTP failure categories."""

from __future__ import annotations

import smtplib
import socket

import pytest

from authmw_local.email_documents import fill, render_document
from authmw_local.email_templates import DEFAULT_SUBJECTS, default_content
from authmw_local.smtp import SmtpSettings, classify

LINK = "https://app.example.com/verify?code=abc&next=%2F"
VARIABLES = {
    "projectDisplayName": "Acme <Prod>",
    "userDisplayName": "",
    "emailVerificationLink": LINK,
    "passwordResetLink": LINK,
    "magicLink": LINK,
    "otp": "ABC123",
    "teamDisplayName": "Team & Co",
    "teamInvitationLink": LINK,
}


def paragraph(*nodes: dict) -> dict:
    return {"type": "paragraph", "content": list(nodes)}


def text(value: str, href: str | None = None) -> dict:
    node: dict = {"type": "text", "text": value}
    if href is not None:
        node["marks"] = [{"type": "bold"}, {"type": "link", "attrs": {"href": href}}]
    return node


@pytest.mark.parametrize("kind", list(DEFAULT_SUBJECTS))
def test_each_default_carries_its_link_in_text_and_html(kind: str) -> None:
    body = render_document(default_content(kind), VARIABLES)
    assert LINK in body.text and "{{" not in body.text
    assert f'<a href="{LINK.replace("&", "&amp;")}">' in body.html
    assert "Acme &lt;Prod&gt;" in body.html and "<Prod>" not in body.html


def test_prosemirror_structure() -> None:
    document = {
        "type": "doc",
        "content": [
            {"type": "heading", "attrs": {"level": 1}, "content": [text("Welcome to {{ projectDisplayName }}")]},
            paragraph(text("Line one"), {"type": "hardBreak"}, text("line two")),
            {"type": "bulletList", "content": [{"type": "listItem", "content": [paragraph(text("an item"))]}]},
            {"type": "horizontalRule"},
            paragraph(text("Verify now", href="{{ emailVerificationLink }}")),
            paragraph(text("{{ userDisplayName }}")),  # empty once filled: dropped
        ],
    }
    body = render_document(document, VARIABLES)
    assert body.text == (f"Welcome to Acme <Prod>\n\nLine one\nline two\n\n- an item\n\n---\n\nVerify now ({LINK})\n")
    assert "<h1>Welcome to Acme &lt;Prod&gt;</h1>" in body.html
    assert "<p>Line one<br>line two</p>" in body.html
    assert f'<a href="{LINK.replace("&", "&amp;")}">Verify now</a>' in body.html
    assert "<p></p>" not in body.html


def test_the_dashboard_email_builder_shape() -> None:
    document = {
        "root": {"type": "EmailLayout", "data": {"childrenIds": ["h", "box", "b"]}},
        "h": {"type": "Heading", "data": {"props": {"text": "Hi {{ teamDisplayName }}", "level": "h2"}}},
        "box": {"type": "Container", "data": {"props": {"childrenIds": ["t"]}}},
        "t": {"type": "Text", "data": {"props": {"text": "Your code: {{ otp }}"}}},
        "b": {"type": "Button", "data": {"props": {"text": "Sign in", "url": "{{ magicLink }}"}}},
    }
    body = render_document(document, VARIABLES)
    assert body.text == f"Hi Team & Co\n\nYour code: ABC123\n\nSign in ({LINK})\n"
    assert "<h2>Hi Team &amp; Co</h2>" in body.html
    assert f'<a href="{LINK.replace("&", "&amp;")}" style="display: inline-block;' in body.html  # a button


def test_only_web_links_become_anchors_and_unknown_variables_stay() -> None:
    document = {"type": "doc", "content": [paragraph(text("click", href="javascript:alert(1)"), text(" {{ other }}"))]}
    body = render_document(document, VARIABLES)
    assert "<a" not in body.html and "click {{ other }}" in body.html
    assert fill("{{otp}} / {{ nope }}", VARIABLES) == "ABC123 / {{ nope }}"


def test_unknown_shapes_give_their_texts() -> None:
    assert render_document({"blocks": [{"text": "one"}, {"text": "two"}]}, {}).text == "one\n\ntwo\n"
    assert render_document("not a document", {}).text == "\n"


def test_settings_never_show_the_password() -> None:
    settings = SmtpSettings.from_config(
        {
            "type": "standard",
            "host": "smtp.example.com",
            "port": 587,
            "username": "u",
            "password": "hunter2-secret",
            "sender_name": "Acme",
            "sender_email": "no-reply@example.com",
        }
    )
    assert settings is not None and "hunter2-secret" not in repr(settings)
    assert settings.sender == "Acme <no-reply@example.com>"
    assert SmtpSettings.from_config({"type": "shared"}) is None


def _disconnected_by_timeout() -> smtplib.SMTPServerDisconnected:
    try:
        try:
            raise TimeoutError("timed out")
        except OSError as error:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed: " + str(error))  # noqa: B904 - as smtplib raises it
    except smtplib.SMTPServerDisconnected as disconnected:
        return disconnected


@pytest.mark.parametrize(
    ("error", "category"),
    [
        (ConnectionRefusedError(111, "refused"), "cannot connect"),
        (socket.gaierror(-2, "Name or service not known"), "cannot connect"),
        (TimeoutError(), "timeout"),
        (_disconnected_by_timeout(), "timeout"),
        (smtplib.SMTPServerDisconnected("gone"), "connection lost"),
        (smtplib.SMTPAuthenticationError(535, b"bad"), "authentication failed"),
        (smtplib.SMTPNotSupportedError("no AUTH"), "authentication failed"),
        (smtplib.SMTPRecipientsRefused({"a@b.c": (550, b"no")}), "invalid address"),
        (smtplib.SMTPSenderRefused(553, b"no", "s@b.c"), "invalid address"),
        (smtplib.SMTPDataError(451, b"later"), "temporary server error"),
        (smtplib.SMTPDataError(554, b"spam"), "rejected"),
        (ValueError("odd"), "unknown"),
    ],
)
def test_failure_categories(error: BaseException, category: str) -> None:
    assert classify(error).category == category
