"""API 2.8's e-mail drafts (`/internal/email-drafts`, service-api B14.5) and sending TSX mail
with `POST /emails/send-email {draft_id | template_id}`, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email
from .test_notifications import inbox
from .test_smtp_delivery import Inbox, parts, settled, smtp_server

__all__ = ["inbox", "smtp_server"]  # fixtures of this module too (`inbox` uses this module's `api`)

DARK_THEME_ID = "a0172b5d-cff0-463b-83bb-85124697373a"
VERIFICATION_ID = "e7d009ce-8d47-4528-b245-5bf119f2ffa3"
MISSING = "00000000-0000-4000-8000-000000000000"


def draft_source(subject: str, category: str, body: str = "Hello {user.displayName}") -> str:
    return f"""import {{ Container }} from "@react-email/components";
import {{ Subject, NotificationCategory }} from "@stackframe/emails";
export function EmailTemplate({{ user, project }}) {{
  return (
    <Container>
      <Subject value="{subject}" />
      <NotificationCategory value="{category}" />
      <div>{body}</div>
    </Container>
  );
}}
"""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with LocalService(tmp_path_factory.mktemp("drafts"), quiet=True) as service:
        yield Api.of(service)


def create(api: Api, **body: Any) -> str:
    response = api.call("POST", "/internal/email-drafts", "admin", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def get(api: Api, draft_id: str) -> httpx.Response:
    return api.call("GET", f"/internal/email-drafts/{draft_id}", "admin")


def received(inbox: Inbox, address: str, subject: str) -> EmailMessage:
    return next(r.message for r in inbox.received if address in r.recipients and r.message["Subject"] == subject)


def test_drafts_are_kept_listed_changed_and_deleted(api: Api) -> None:
    first = create(api, display_name="Welcome")
    stored = get(api, first).json()
    assert stored["display_name"] == "Welcome" and stored["sent_at_millis"] is None
    assert "theme_id" not in stored  # the project's theme
    assert "<NotificationCategory" in stored["tsx_source"] and "EmailTemplate" in stored["tsx_source"]
    source = draft_source("Plain", "Transactional")
    second = create(api, display_name="Plain", theme_id=False, tsx_source=source)
    assert get(api, second).json() == {
        "id": second,
        "display_name": "Plain",
        "tsx_source": source,
        "theme_id": False,
        "sent_at_millis": None,
    }
    listed = api.call("GET", "/internal/email-drafts", "admin").json()["drafts"]
    assert [d["id"] for d in listed][:2] == [second, first]  # the last changed first

    changed = api.call(
        "PATCH", f"/internal/email-drafts/{first}", "admin", json={"display_name": "Hi", "theme_id": DARK_THEME_ID}
    )
    assert (changed.status_code, changed.json()) == (200, {"ok": "ok"})
    assert get(api, first).json()["theme_id"] == DARK_THEME_ID
    assert api.call("GET", "/internal/email-drafts", "admin").json()["drafts"][0]["id"] == first
    # as on the service, a change without theme_id puts the draft back on the project's theme
    api.call("PATCH", f"/internal/email-drafts/{first}", "admin", json={"tsx_source": source})
    after = get(api, first).json()
    assert (after["display_name"], after["tsx_source"], "theme_id" in after) == ("Hi", source, False)

    deleted = api.call("DELETE", f"/internal/email-drafts/{second}", "admin")
    assert (deleted.status_code, deleted.json()) == (200, {"ok": "ok"})
    assert (get(api, second).status_code, get(api, second).text) == (404, "No draft found with given id")
    again = api.call("DELETE", f"/internal/email-drafts/{second}", "admin")
    assert (again.status_code, again.text) == (404, "No draft found with given id")


def test_draft_request_errors(api: Api, api_27: Api) -> None:
    bad_theme = api.call("POST", "/internal/email-drafts", "admin", json={"display_name": "x", "theme_id": "dark"})
    assert "body.theme_id is invalid" in assert_known_error(bad_theme, "SCHEMA_ERROR", 400)["error"]
    assert_known_error(api.call("POST", "/internal/email-drafts", "admin", json={}), "SCHEMA_ERROR", 400)
    assert_known_error(get(api, "not-a-uuid"), "SCHEMA_ERROR", 400)
    missing = api.call("PATCH", f"/internal/email-drafts/{MISSING}", "admin", json={"display_name": "x"})
    assert (missing.status_code, missing.text) == (404, "No draft found with given id")
    # admin only; control: the admin tier reads the list
    assert_known_error(api.call("GET", "/internal/email-drafts", "server"), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert api.call("GET", "/internal/email-drafts", "admin").status_code == 200
    assert api_27.call("GET", "/internal/email-drafts", "admin").status_code == 404


def test_a_marketing_draft_is_rendered_twice_to_carry_its_unsubscribe_link(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    draft_id = create(api, display_name="News", tsx_source=draft_source("Draft news", "Marketing"))
    sent = api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "draft_id": draft_id})
    assert (sent.status_code, sent.json()) == (200, {"results": [{"user_id": user["user_id"]}]})
    mail = settled(api, email, "send_email")
    assert (mail["subject"], mail["delivery"]) == ("Draft news", "sent")  # the template's <Subject>
    assert mail["link"].startswith(f"{api.url}/api/v1/emails/unsubscribe-link?code=")
    text, markup = parts(received(inbox, email, "Draft news"))
    assert markup.startswith("<!DOCTYPE html>") and "Hello " in markup
    assert mail["link"].replace("&", "&amp;") in markup  # placed by the project's theme
    assert get(api, draft_id).json()["sent_at_millis"] is not None
    # the link turns Marketing off; the same draft then reaches the user no more
    assert httpx.get(mail["link"]).status_code == 200
    api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "draft_id": draft_id})
    outbox = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
    assert [m["subject"] for m in outbox if m["kind"] == "send_email"] == ["Draft news"]


def test_a_transactional_draft_has_no_unsubscribe_link_and_subject_overrides(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    draft_id = create(api, display_name="Receipt", tsx_source=draft_source("Your receipt", "Transactional"))
    body = {"user_ids": [user["user_id"]], "draft_id": draft_id, "subject": "Receipt 42"}
    assert api.call("POST", "/emails/send-email", "server", json=body).status_code == 200
    mail = settled(api, email, "send_email")
    assert (mail["subject"], mail["link"]) == ("Receipt 42", None)
    _, markup = parts(received(inbox, email, "Receipt 42"))
    assert "unsubscribe" not in markup.lower()
    # an explicit category wins over the template's: Marketing gets its link in one pass
    body = {**body, "subject": "Receipt 43", "notification_category_name": "Marketing"}
    api.call("POST", "/emails/send-email", "server", json=body)
    marketing = next(
        m for m in api.http.get("/dev/outbox", params={"to": email}).json()["items"] if m["subject"] == "Receipt 43"
    )
    assert marketing["link"] is not None


def test_no_theme_is_a_bare_document(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    draft_id = create(api, display_name="Bare", theme_id=False, tsx_source=draft_source("Bare", "Marketing"))
    api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "draft_id": draft_id})
    settled(api, email, "send_email")
    _, markup = parts(received(inbox, email, "Bare"))
    # a whole document, but no theme to place the unsubscribe line
    assert markup.startswith("<!DOCTYPE html>") and "<body>" in markup and "unsubscribe" not in markup.lower()
    rendered = api.call(
        "POST",
        "/emails/render-email",
        "admin",
        json={"template_tsx_source": "export function EmailTemplate() { return <p>Plain</p>; }", "theme_id": False},
    )
    assert rendered.json()["html"].startswith("<!DOCTYPE html>") and "<body><p>Plain</p></body>" in rendered.json()["html"]


def test_send_a_template_with_variables(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    link = "https://app.example.com/verify?code=abc"
    body = {"user_ids": [user["user_id"]], "template_id": VERIFICATION_ID, "variables": {"emailVerificationLink": link}}
    sent = api.call("POST", "/emails/send-email", "server", json=body)
    assert sent.status_code == 200, sent.text
    mail = settled(api, email, "send_email")
    assert mail["subject"].startswith("Verify your email")
    assert link in mail["body"]


def test_send_errors_for_unknown_drafts(api: Api, inbox: Inbox) -> None:
    user = api.sign_up()
    for draft_id in (MISSING, "not-a-uuid"):
        body = {"user_ids": [user["user_id"]], "draft_id": draft_id}
        unknown = api.call("POST", "/emails/send-email", "server", json=body)
        assert (unknown.status_code, unknown.text) == (400, "No draft found with given draft_id")


def test_a_draft_that_does_not_render_sends_nothing(api: Api, inbox: Inbox) -> None:
    email = unique_email()
    user = api.sign_up(email)
    draft_id = create(api, display_name="Broken", tsx_source="export function EmailTemplate() { return <div>; }")
    sent = api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "draft_id": draft_id})
    assert sent.status_code == 200  # as on the service: the queued mail fails later, the call does not
    outbox = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
    assert [m for m in outbox if m["kind"] == "send_email"] == []
    # control: the same user gets a draft that renders
    fine = create(api, display_name="Fine", tsx_source=draft_source("Fine", "Transactional"))
    api.call("POST", "/emails/send-email", "server", json={"user_ids": [user["user_id"]], "draft_id": fine})
    assert settled(api, email, "send_email")["subject"] == "Fine"
