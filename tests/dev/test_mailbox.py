"""The mailbox pages: GET /dev/mailbox[?to=] and GET /dev/mailbox/{id}, over real HTTP."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from authmw_local.routes import mailbox as mailbox_routes

from .conftest import Api, unique_email

HOSTILE_NAME = '<script>alert("team")</script><img src=x onerror=alert(1)>'


class Page(HTMLParser):
    """What a browser would see: the links, the articles, and whether any script or event handler
    attribute made it into the markup."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.article_ids: list[str] = []
        self.tags: set[str] = set()
        self.handler_attributes: list[str] = []
        self.text_parts: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags.add(tag)
        self.handler_attributes += [name for name, _ in attrs if name.startswith("on")]
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")
        if tag == "article":
            self.article_ids.append(values.get("data-email-id") or "")

    def handle_data(self, data: str) -> None:
        self.text_parts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


def outbox(api: Api, email: str) -> list[dict]:
    return api.http.get("/dev/outbox", params={"to": email}).json()["items"]


def mailbox(api: Api, **params: str) -> Page:
    response = api.http.get("/dev/mailbox", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in response.headers["content-security-policy"]
    return Page(response.text)


def test_a_sign_up_verification_mail_is_listed_with_its_clickable_link(api: Api) -> None:
    email = unique_email()
    api.sign_up(email)
    [mail] = outbox(api, email)
    page = mailbox(api)
    assert mail["id"] in page.article_ids
    assert mail["link"] in page.links  # the link is an <a href>, unescaped by the parser
    assert email in page.text and mail["subject"] in page.text
    assert mail["delivery"] == "outbox-only" and "outbox only" in page.text


def test_newest_first(api: Api) -> None:
    email = unique_email()
    api.sign_up(email)
    api.call("POST", "/auth/password/send-reset-code", json={"email": email, "callback_url": "http://localhost:3000/r"})
    newest, older = outbox(api, email)
    assert newest["kind"] == "password_reset"
    ids = mailbox(api, to=email).article_ids
    assert ids == [newest["id"], older["id"]]


def test_the_page_shows_the_newest_messages_only(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mailbox_routes, "PAGE_LIMIT", 1)  # the service runs in this process
    email = unique_email()
    api.sign_up(email)
    api.call("POST", "/auth/password/send-reset-code", json={"email": email, "callback_url": "http://localhost:3000/r"})
    page = mailbox(api, to=email)
    assert page.article_ids == [outbox(api, email)[0]["id"]]
    assert f"2 e-mails to {email}, the newest 1 shown" in " ".join(page.text.split())


def test_the_recipient_filter(api: Api) -> None:
    first, second = unique_email(), unique_email()
    api.sign_up(first)
    api.sign_up(second)
    page = mailbox(api, to=first)
    assert [outbox(api, first)[0]["id"]] == page.article_ids
    assert second not in page.text
    empty = mailbox(api, to="nobody@example.com")
    assert empty.article_ids == [] and "No e-mail to nobody@example.com yet." in empty.text


def test_one_message_page(api: Api) -> None:
    email = unique_email()
    api.sign_up(email)
    [mail] = outbox(api, email)
    response = api.http.get(f"/dev/mailbox/{mail['id']}", params={"to": email})
    assert response.status_code == 200
    page = Page(response.text)
    assert page.article_ids == [mail["id"]]
    assert mail["link"] in page.links and f"/dev/mailbox?to={email.replace('@', '%40')}" in page.links
    assert mail["project_id"] in page.text
    missing = api.http.get("/dev/mailbox/no-such-id")
    assert missing.status_code == 404 and "No such e-mail" in missing.text


def test_user_chosen_names_are_escaped(api: Api) -> None:
    team = api.call("POST", "/teams", "server", json={"display_name": HOSTILE_NAME}).json()
    guest = unique_email()
    sent = api.call(
        "POST",
        "/team-invitations/send-code",
        "server",
        json={"team_id": team["id"], "email": guest, "callback_url": "http://localhost:3000/handler/team-invitation"},
    )
    assert sent.status_code == 200, sent.text
    [mail] = outbox(api, guest)
    assert HOSTILE_NAME in mail["subject"] and HOSTILE_NAME in mail["body"]
    for response in (api.http.get("/dev/mailbox", params={"to": guest}), api.http.get(f"/dev/mailbox/{mail['id']}")):
        page = Page(response.text)
        assert "script" not in page.tags and "img" not in page.tags
        assert page.handler_attributes == []
        assert HOSTILE_NAME in page.text  # shown as text, as written
        assert "&lt;script&gt;" in response.text


def test_the_outbox_json_keeps_its_shape(api: Api) -> None:
    email = unique_email()
    api.sign_up(email)
    [mail] = outbox(api, email)
    assert set(mail) == {"id", "project_id", "to", "kind", "subject", "body", "link", "sent_at_millis", "delivery"}
