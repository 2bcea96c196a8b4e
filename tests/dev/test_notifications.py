"""Notification preferences, unsubscribe links and POST /emails/send-email of API 2.8
(service-api B11), over HTTP; 2.7 has none of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email
from .test_smtp_delivery import Inbox, delivering_through, parts, settled, smtp_server

__all__ = ["smtp_server"]  # a fixture of this module too

TRANSACTIONAL = "7bb82d33-2f54-4a3d-9d23-82739e0d66ef"
MARKETING = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with LocalService(tmp_path_factory.mktemp("notifications"), quiet=True) as service:
        yield Api.of(service)


@pytest.fixture
def inbox(smtp_server: tuple[Inbox, int], api: Api) -> Iterator[Inbox]:
    """The project has its own SMTP server (send-email needs one) during the test."""
    yield from delivering_through(smtp_server, api)


def preferences(api: Api, user: dict[str, str]) -> dict[str, bool]:
    response = api.call("GET", "/emails/notification-preference/me", token=user["access_token"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["is_paginated"] is False
    return {item["notification_category_name"]: item["enabled"] for item in body["items"]}


def test_defaults_and_changes(api: Api) -> None:
    user = api.sign_up()
    listed = api.call("GET", "/emails/notification-preference/me", token=user["access_token"]).json()["items"]
    assert listed == [
        {
            "notification_category_id": TRANSACTIONAL,
            "notification_category_name": "Transactional",
            "enabled": True,
            "can_disable": False,
        },
        {
            "notification_category_id": MARKETING,
            "notification_category_name": "Marketing",
            "enabled": True,
            "can_disable": True,
        },
    ]
    path = f"/emails/notification-preference/me/{MARKETING}"
    changed = api.call("PATCH", path, token=user["access_token"], json={"enabled": False})
    assert changed.status_code == 200
    assert changed.json() == {**listed[1], "enabled": False}
    assert preferences(api, user) == {"Transactional": True, "Marketing": False}
    server = api.call("GET", f"/emails/notification-preference/{user['user_id']}", "server")
    assert [item["enabled"] for item in server.json()["items"]] == [True, False]


def test_errors(api: Api) -> None:
    user, other = api.sign_up(), api.sign_up()
    unknown = api.call(
        "PATCH",
        "/emails/notification-preference/me/00000000-0000-4000-8000-000000000000",
        token=user["access_token"],
        json={"enabled": True},
    )
    assert (unknown.status_code, unknown.text) == (404, "Notification category not found")
    assert_known_error(
        api.call("GET", "/emails/notification-preference/me"), "CANNOT_GET_OWN_USER_WITHOUT_USER", 400
    )
    path = f"/emails/notification-preference/{other['user_id']}"
    someone_else = api.call("GET", path, token=user["access_token"])
    assert (someone_else.status_code, someone_else.text) == (403, "You can only view your own notification preferences")
    change_other = api.call(
        "PATCH",
        f"/emails/notification-preference/{other['user_id']}/{MARKETING}",
        token=user["access_token"],
        json={"enabled": False},
    )
    assert change_other.status_code == 403
    assert preferences(api, other)["Marketing"] is True
    missing = api.call("GET", "/emails/notification-preference/00000000-0000-4000-8000-000000000000", "server")
    assert_known_error(missing, "USER_NOT_FOUND", 404)


def send(api: Api, tier: str = "server", **body: Any) -> httpx.Response:
    return api.call("POST", "/emails/send-email", tier, json={"html": "<p>Hello <b>there</b></p>", **body})


def test_send_email_needs_an_own_mail_server_and_the_server_tier(api: Api) -> None:
    user = api.sign_up()
    assert_known_error(send(api, user_ids=[user["user_id"]]), "REQUIRES_CUSTOM_EMAIL_SERVER", 400)
    assert_known_error(send(api, "client", user_ids=[user["user_id"]]), "INSUFFICIENT_ACCESS_TYPE", 401)


def test_send_email_request_errors(api: Api, inbox: Inbox) -> None:
    user = api.sign_up()
    both = send(api, user_ids=[user["user_id"]], all_users=True)
    message = assert_known_error(both, "SCHEMA_ERROR", 400)["error"]
    assert message == "Exactly one of user_ids or all_users must be provided"
    assert_known_error(send(api), "SCHEMA_ERROR", 400)
    no_content = api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "subject": "x"})
    assert assert_known_error(no_content, "SCHEMA_ERROR", 400)["error"].endswith(
        "  - body is not matched by any of the provided schemas:\n    Schema 0:\n      body.html must be defined\n"
        "    Schema 1:\n      body.template_id must be defined\n    Schema 2:\n      body.draft_id must be defined"
    )
    bad_theme = send(api, user_ids=[user["user_id"]], theme_id="no-such-theme")
    assert "      body.theme_id is invalid" in assert_known_error(bad_theme, "SCHEMA_ERROR", 400)["error"]
    category = send(api, user_ids=[user["user_id"]], notification_category_name="Newsletter")
    assert (category.status_code, category.text) == (400, "Notification category not found with given name")
    missing = "00000000-0000-4000-8000-000000000000"
    body = assert_known_error(send(api, user_ids=[user["user_id"], missing]), "USER_ID_DOES_NOT_EXIST", 400)
    assert body["details"] == {"user_id": missing}
    template = api.call(
        "POST",
        "/emails/send-email",
        "server",
        json={"user_ids": [user["user_id"]], "template_id": missing},
    )
    assert (template.status_code, template.text) == (400, "No template found with given template_id")


def test_marketing_mail_carries_an_unsubscribe_link_that_turns_the_category_off(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    response = send(api, user_ids=[user["user_id"]], subject="News", notification_category_name="Marketing")
    assert response.status_code == 200, response.text
    assert response.json() == {"results": [{"user_id": user["user_id"]}]}
    mail = settled(api, email, "send_email")
    assert (mail["subject"], mail["delivery"]) == ("News", "sent")
    link = mail["link"]
    assert link.startswith(f"{api.url}/api/v1/emails/unsubscribe-link?code=")
    # delivered ("sent" above): the SMTP server has it
    received = next(r.message for r in inbox.received if email in r.recipients and r.message["Subject"] == "News")
    text, markup = parts(received)
    assert "Hello there" in text and link in text
    assert "<p>Hello <b>there</b></p>" in markup and link.replace("&", "&amp;") in markup
    # the mailbox page lists it
    assert "News" in api.http.get("/dev/mailbox", params={"to": email}).text

    page = httpx.get(link)
    assert (page.status_code, page.text) == (200, "<p>Successfully unsubscribed from notification group</p>")
    assert page.headers["content-type"].startswith("text/html")
    assert preferences(api, user) == {"Transactional": True, "Marketing": False}
    again = httpx.get(link)
    assert again.text == "<p>You have already unsubscribed from this notification group</p>"

    # now the user gets no marketing mail, but still transactional mail (without a link)
    send(api, user_ids=[user["user_id"]], subject="More news", notification_category_name="Marketing")
    send(api, user_ids=[user["user_id"]], subject="Receipt")
    subjects = [m["subject"] for m in api.http.get("/dev/outbox", params={"to": email}).json()["items"]]
    assert "More news" not in subjects and "Receipt" in subjects
    outbox = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
    receipt = next(m for m in outbox if m["subject"] == "Receipt")
    assert receipt["link"] is None and "unsubscribe" not in receipt["body"].lower()


def test_a_subject_cannot_inject_a_header_line(api: Api, inbox: Inbox) -> None:
    """Attack (issue 38 item 5): an RFC 2047 encoded word decoding to CR LF reached SMTP as a
    header line of its own (a Bcc to the attacker's address). Refused, plain or encoded."""
    email = unique_email()
    user = api.sign_up(email)
    for subject in ("=?utf-8?q?Hi=0D=0ABcc=3A_evil=40evil.example?=", "Hi\r\nBcc: evil@evil.example", "=?utf-8?b?SGkKQmNjOiBldmls?="):
        refused = send(api, user_ids=[user["user_id"]], subject=subject)
        assert "line breaks" in assert_known_error(refused, "SCHEMA_ERROR", 400)["error"]
    # control: an encoded subject without a line break is sent, decoded
    sent = send(api, user_ids=[user["user_id"]], subject="=?utf-8?q?Caf=C3=A9_news?=")
    assert sent.status_code == 200, sent.text
    assert settled(api, email, "send_email")["delivery"] == "sent"
    assert all("evil@evil.example" not in r.recipients for r in inbox.received)
    assert any(email in r.recipients and r.message["Subject"] == "Café news" for r in inbox.received)


def test_all_users_and_users_without_an_address(api: Api, inbox: Inbox) -> None:
    no_address = api.call("POST", "/users", "server", json={}).json()["id"]
    response = send(api, all_users=True, subject="To everyone")
    assert response.status_code == 200
    ids = [item["user_id"] for item in response.json()["results"]]
    assert no_address in ids and len(ids) > 1


def test_unsubscribe_link_errors(api: Api) -> None:
    short = api.http.get("/api/v1/emails/unsubscribe-link", params={"code": "abc"})
    assert (short.status_code, short.text) == (400, "Invalid code")
    unknown = api.http.get("/api/v1/emails/unsubscribe-link", params={"code": "a" * 45})
    assert_known_error(unknown, "VERIFICATION_CODE_NOT_FOUND", 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/emails/notification-preference/me"),
        ("PATCH", f"/emails/notification-preference/me/{MARKETING}"),
        ("POST", "/emails/send-email"),
        ("GET", "/emails/unsubscribe-link?code=" + "a" * 45),
    ],
)
def test_api_27_has_none_of_these_routes(api_27: Api, method: str, path: str) -> None:
    response = api_27.call(method, path, "server", json={} if method != "GET" else None)
    assert response.status_code == 404
