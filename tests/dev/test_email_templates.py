"""E-mail templates (service-api A5.10) and their use in sent mail."""

from __future__ import annotations

from .conftest import Api, assert_known_error, unique_email

#: /email-templates exists in API 2.7 only (2.8 answers 404: test_api_28_users.py).
API_VERSION = "2.7"


def test_list_shows_the_four_defaults_in_order(api: Api) -> None:
    items = api.call("GET", "/email-templates", "admin").json()["items"]
    assert [t["type"] for t in items] == ["email_verification", "password_reset", "magic_link", "team_invitation"]
    assert items[0]["subject"] == "Verify your email at {{ projectDisplayName }}"
    assert all(t["is_default"] for t in items)


def test_a_custom_subject_is_used_until_deleted(api: Api) -> None:
    path = "/email-templates/email_verification"
    custom = api.call("PATCH", path, "admin", json={"subject": "Welcome to {{ projectDisplayName }}!"})
    try:
        assert custom.json()["is_default"] is False
        assert isinstance(custom.json()["content"], dict)  # the default content is kept
        email = unique_email()
        api.sign_up(email)
        mail = api.http.get("/dev/outbox", params={"to": email}).json()["items"][0]
        assert mail["subject"] == "Welcome to authmw local project!"
    finally:
        assert api.call("DELETE", path, "admin").json() == {"success": True}
    assert api.call("GET", path, "admin").json()["is_default"] is True
    again = api.call("DELETE", path, "admin")
    assert (again.status_code, again.text) == (404, "Email template not found")


def test_template_errors(api: Api) -> None:
    assert_known_error(api.call("GET", "/email-templates/welcome", "admin"), "SCHEMA_ERROR", 400)
    bad = api.call("PATCH", "/email-templates/magic_link", "admin", json={"content": "text"})
    assert (bad.status_code, bad.text) == (400, "Invalid email template content")
