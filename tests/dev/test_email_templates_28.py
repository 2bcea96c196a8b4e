"""API 2.8's e-mail templates and themes under /internal (service-api B14.4), rendered by the
local service's TSX subset (tsx_render.py), and used by the mails the flows send."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ports import free_port

from .conftest import Api, assert_known_error, unique_email

VERIFICATION_ID = "e7d009ce-8d47-4528-b245-5bf119f2ffa3"
PASSWORD_RESET_ID = "a70fb3a4-56c1-4e42-af25-49d25603abd0"
MAGIC_LINK_ID = "822687fe-8d0a-4467-a0d1-416b6e639478"
TEAM_INVITATION_ID = "e84de395-2076-4831-9c19-8e9a96a868e4"
LIGHT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"

CUSTOM_VERIFICATION = """
import { Button, Text } from "@react-email/components";
import { Subject, NotificationCategory } from "@stackframe/emails";
export const variablesSchema = (v) => v;
export function EmailTemplate({ user, project, variables }) {
  return (
    <>
      <Subject value={`Welcome aboard ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Text>Ahoy {user.displayName ?? "sailor"}, confirm below.</Text>
      <Button href={variables.emailVerificationLink}>Confirm</Button>
    </>
  );
}
"""


@pytest.fixture
def own_server(api: Api) -> Iterator[None]:
    """The project on an e-mail server of its own (a closed local port: delivery fails at once,
    the mail stays in the outbox), as changing templates requires; shared again afterwards."""
    api.set_config(
        email_config={
            "type": "standard",
            "host": "127.0.0.1",
            "port": free_port(),
            "username": "user",
            "password": "secret",
            "sender_name": "Test App",
            "sender_email": "noreply@example.com",
        }
    )
    try:
        yield
    finally:
        for template_id in (VERIFICATION_ID, PASSWORD_RESET_ID):
            api.call("DELETE", f"/internal/email-templates/{template_id}", "admin")
        api.set_config(email_config={"type": "shared"})


def templates(api: Api) -> list[dict]:
    response = api.call("GET", "/internal/email-templates", "admin")
    assert response.status_code == 200, response.text
    return response.json()["templates"]


def test_the_built_in_templates_are_listed_with_their_tsx(api: Api) -> None:
    listed = templates(api)
    assert [t["id"] for t in listed[:4]] == [VERIFICATION_ID, PASSWORD_RESET_ID, MAGIC_LINK_ID, TEAM_INVITATION_ID]
    assert listed[0]["display_name"] == "Email Verification"
    assert "export function EmailTemplate" in listed[0]["tsx_source"]
    assert "theme_id" not in listed[0]
    assert api.call("GET", "/internal/email-templates", "server").status_code == 401


def test_changing_templates_needs_an_own_email_server(api: Api) -> None:
    path = f"/internal/email-templates/{PASSWORD_RESET_ID}"
    for response in (
        api.call("PATCH", path, "admin", json={"tsx_source": CUSTOM_VERIFICATION}),
        api.call("DELETE", path, "admin"),
        api.call("POST", "/internal/email-templates", "admin", json={"display_name": "x"}),
    ):
        assert_known_error(response, "REQUIRES_CUSTOM_EMAIL_SERVER", 400)


@pytest.mark.usefixtures("own_server")
def test_a_customised_verification_template_is_the_mail_sent_until_reset(api: Api) -> None:
    path = f"/internal/email-templates/{VERIFICATION_ID}"
    saved = api.call("PATCH", path, "admin", json={"tsx_source": CUSTOM_VERIFICATION})
    assert saved.status_code == 200, saved.text
    preview = saved.json()["rendered_html"]
    assert preview.startswith("<!DOCTYPE html>") and "Ahoy John Doe, confirm below." in preview
    assert next(t for t in templates(api) if t["id"] == VERIFICATION_ID)["tsx_source"] == CUSTOM_VERIFICATION

    email = unique_email()
    api.sign_up(email)
    [mail] = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
    assert mail["subject"] == "Welcome aboard authmw local project"
    assert "Ahoy sailor, confirm below." in mail["body"]
    assert f"Confirm {mail['link']}\n" in mail["body"] + "\n"  # the URL stands alone after its label
    page = api.http.get("/dev/mailbox").text
    assert "Welcome aboard authmw local project" in page

    assert api.call("DELETE", path, "admin").json() == {}
    assert "Ahoy" not in next(t for t in templates(api) if t["id"] == VERIFICATION_ID)["tsx_source"]
    other = unique_email()
    api.sign_up(other)
    [default] = api.http.get("/dev/outbox", params={"to": other}).json()["items"]
    assert default["subject"] == "Verify your email at authmw local project"
    assert default["link"] in default["body"]


@pytest.mark.usefixtures("own_server")
@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("export function EmailTemplate() {\n  return <div><span>unclosed\n}\n", 'The character "}" is not valid'),
        ("export function EmailTemplate() { throw new Error('Intentional error from template'); }", "Intentional"),
        ("export function Other() { return <div/>; }", "does not export a function called EmailTemplate"),
        ("import fs from 'fs';\nexport function EmailTemplate() { return <div/>; }", 'The module "fs"'),
        ("export function EmailTemplate() { return <script>x</script>; }", "<script> is not allowed"),
        ("export function EmailTemplate() { return <a href='javascript:alert(1)'>x</a>; }", "javascript:alert"),
        ("export function EmailTemplate() { for (;;) {} }", '"for" is not supported'),
        ("function L() { return <L/>; }\nexport function EmailTemplate() { return <L/>; }", "deeper"),
        ("export function EmailTemplate() { return <div>no subject</div>; }", "Subject is required"),
        # nested deeper than the renderer's recursion goes (these were 500s)
        ("export function EmailTemplate() { return " + "<b>" * 5000 + "</b>" * 5000 + "; }", "too deeply"),
        ("export function EmailTemplate() { return <div>{" + "(" * 5000 + "1" + ")" * 5000 + "}</div>; }", "too deeply"),
    ],
)
def test_a_source_that_does_not_render_is_refused_and_not_stored(api: Api, source: str, message: str) -> None:
    path = f"/internal/email-templates/{PASSWORD_RESET_ID}"
    body = assert_known_error(
        api.call("PATCH", path, "admin", json={"tsx_source": source}), "EMAIL_RENDERING_ERROR", 400
    )
    assert message in body["details"]["error"]
    assert next(t for t in templates(api) if t["id"] == PASSWORD_RESET_ID)["tsx_source"] != source
    assert body["error"] == "Failed to render email with theme: " + body["details"]["error"]  # 2.8.86's words


def test_a_theme_that_does_not_build_is_named_as_the_services_bundler_names_it(api: Api) -> None:
    theme_id = api.call("POST", "/internal/email-themes", "admin", json={"display_name": "Broken"}).json()["id"]
    path = f"/internal/email-themes/{theme_id}"
    unclosed = "\n  export function EmailTheme({ children }) {\n    return <div><span>unclosed tag\n  }\n  "
    body = assert_known_error(api.call("PATCH", path, "admin", json={"tsx_source": unclosed}), "EMAIL_RENDERING_ERROR", 400)
    assert body["details"]["error"] == (
        "Build failed with 2 errors:\n"
        'virtual:/theme.tsx:4:2: ERROR: The character "}" is not valid inside a JSX element\n'
        'virtual:/theme.tsx:5:2: ERROR: Unexpected end of file before a closing "span" tag'
    )
    no_export = api.call("PATCH", path, "admin", json={"tsx_source": "export function Other() { return <div/>; }"})
    assert assert_known_error(no_export, "EMAIL_RENDERING_ERROR", 400)["details"]["error"].endswith(
        'virtual:/render.tsx:9:9: ERROR: No matching export in "virtual:/theme.tsx" for import "EmailTheme"'
    )
    # control: a theme that builds is kept
    fine = "export function EmailTheme({ children }) { return <div>{children}</div>; }"
    assert api.call("PATCH", path, "admin", json={"tsx_source": fine}).status_code == 200


@pytest.mark.usefixtures("own_server")
def test_create_theme_and_delete_an_own_template(api: Api) -> None:
    created = api.call("POST", "/internal/email-templates", "admin", json={"display_name": "Newsletter"})
    template_id = created.json()["id"]
    [mine] = [t for t in templates(api) if t["id"] == template_id]
    assert mine["display_name"] == "Newsletter" and mine["theme_id"] is None
    no_theme = api.call(
        "PATCH", f"/internal/email-templates/{template_id}", "admin",
        json={"tsx_source": mine["tsx_source"], "theme_id": False},
    )  # fmt: skip
    assert no_theme.status_code == 200, no_theme.text
    assert next(t for t in templates(api) if t["id"] == template_id)["theme_id"] is False
    bad_theme = api.call(
        "PATCH", f"/internal/email-templates/{template_id}", "admin", json={"tsx_source": "x", "theme_id": 5}
    )
    assert_known_error(bad_theme, "SCHEMA_ERROR", 400)
    assert api.call("DELETE", f"/internal/email-templates/{template_id}", "admin").json() == {}
    assert all(t["id"] != template_id for t in templates(api))
    missing = api.call("DELETE", "/internal/email-templates/00000000-0000-0000-0000-000000000000", "admin")
    assert (missing.status_code, missing.text) == (404, "No template found with given id")


def test_themes_list_get_create_and_update(api: Api) -> None:
    listed = api.call("GET", "/internal/email-themes", "admin").json()["themes"]
    assert listed[0] == {"id": LIGHT_THEME_ID, "display_name": "Default Light"}
    theme_id = api.call("POST", "/internal/email-themes", "admin", json={"display_name": "Brand"}).json()["id"]
    source = api.call("GET", f"/internal/email-themes/{theme_id}", "admin").json()["tsx_source"]
    changed = source.replace("Unsubscribe", "Stop these mails")
    updated = api.call("PATCH", f"/internal/email-themes/{theme_id}", "admin", json={"tsx_source": changed})
    assert updated.json() == {"display_name": "Brand"}
    assert api.call("GET", f"/internal/email-themes/{theme_id}", "admin").json()["tsx_source"] == changed
    broken = api.call(
        "PATCH", f"/internal/email-themes/{theme_id}", "admin",
        json={"tsx_source": "export function EmailTheme() { throw new Error('theme broke'); }"},
    )  # fmt: skip
    assert "theme broke" in assert_known_error(broken, "EMAIL_RENDERING_ERROR", 400)["details"]["error"]
    assert api.call("GET", "/internal/email-themes/nope", "admin").status_code == 404
    at_latest = api.http.get(f"/api/latest/internal/email-themes/{theme_id}", headers=api.headers("admin"))
    assert at_latest.json() == {"id": theme_id, "display_name": "Brand", "tsx_source": changed}


def test_the_27_service_has_no_internal_templates(api_27: Api) -> None:
    assert api_27.call("GET", "/internal/email-templates", "admin").status_code == 404
    assert api_27.call("GET", "/email-templates", "admin").status_code == 200


def test_render_email_renders_a_template_in_a_theme(api: Api) -> None:
    rendered = api.call(
        "POST", "/emails/render-email", "admin", json={"template_id": VERIFICATION_ID, "theme_id": LIGHT_THEME_ID}
    )
    assert rendered.status_code == 200, rendered.text
    body = rendered.json()
    assert body["subject"] == "Verify your email at authmw local project"
    assert body["notification_category"] == "Transactional"
    assert body["html"].startswith("<!DOCTYPE html>") and "Hello John Doe," in body["html"]
    bare = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_tsx_source": "export function EmailTemplate() { return <p>Plain</p>; }", "theme_id": False},
    )  # fmt: skip
    # no theme: the template alone in a bare document (the service's empty theme)
    assert bare.json()["html"].startswith("<!DOCTYPE html>") and "<body><p>Plain</p></body>" in bare.json()["html"]
    missing = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_id": "00000000-0000-4000-8000-000000000000", "theme_id": False},
    )  # fmt: skip
    assert (missing.status_code, missing.text) == (400, "No template found with given id")
    both = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_tsx_source": "x", "theme_id": LIGHT_THEME_ID, "theme_tsx_source": "y"},
    )  # fmt: skip
    assert (
        "Schema 3:\n      body contains unknown properties: theme_id"
        in assert_known_error(both, "SCHEMA_ERROR", 400)["error"]
    )
    broken_theme = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_id": VERIFICATION_ID, "theme_tsx_source": "export function EmailTheme() { throw new Error('no'); }"},
    )  # fmt: skip
    assert "Error: no" in assert_known_error(broken_theme, "EMAIL_RENDERING_ERROR", 400)["details"]["error"]
    # a theme_id that is no UUID fails the schemas that have one (as 2.8.86 words it) ...
    not_an_id = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_tsx_source": "export function EmailTemplate() { return <p>x</p>; }", "theme_id": "dark"},
    )  # fmt: skip
    message = assert_known_error(not_an_id, "SCHEMA_ERROR", 400)["error"]
    assert "    Schema 0:\n      body.template_id must be defined\n      body.theme_id is invalid\n" in message
    assert "    Schema 2:\n      body.theme_id is invalid\n" in message
    # ... a UUID of no theme is the plain "not found"
    unknown = api.call(
        "POST", "/emails/render-email", "admin",
        json={"template_id": VERIFICATION_ID, "theme_id": "00000000-0000-4000-8000-000000000000"},
    )  # fmt: skip
    assert (unknown.status_code, unknown.text) == (400, "No theme found with given id")


def test_the_projects_email_theme_is_the_theme_of_its_mails(api: Api) -> None:
    theme_id = api.call("POST", "/internal/email-themes", "admin", json={"display_name": "Harbour"}).json()["id"]
    source = api.call("GET", f"/internal/email-themes/{theme_id}", "admin").json()["tsx_source"]
    marked = source.replace("{children}", "{children}<Section>Sent by the Harbour crew</Section>", 1)
    assert marked != source
    assert api.call("PATCH", f"/internal/email-themes/{theme_id}", "admin", json={"tsx_source": marked}).status_code == 200
    try:
        chosen = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"email_theme": theme_id}})
        assert chosen.status_code == 200, chosen.text
        assert chosen.json()["config"]["email_theme"] == theme_id
        assert api.call("GET", "/internal/projects/current", "admin").json()["config"]["email_theme"] == theme_id
        email = unique_email()
        api.sign_up(email)
        [mail] = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
        assert "Sent by the Harbour crew" in mail["body"]
    finally:
        back = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"email_theme": LIGHT_THEME_ID}})
        assert back.status_code == 200, back.text
    # the control: with the default theme again, the mails are not the custom theme's
    other = unique_email()
    api.sign_up(other)
    [plain] = api.http.get("/dev/outbox", params={"to": other}).json()["items"]
    assert "Sent by the Harbour crew" not in plain["body"] and plain["subject"] == mail["subject"]


def test_an_email_theme_must_be_one_of_the_projects_themes(api: Api) -> None:
    internal = Api.of(api.running, api.running.bootstrap.internal)
    elsewhere = internal.call("POST", "/internal/email-themes", "admin", json={"display_name": "Not yours"}).json()["id"]
    for value in ("some-invalid-theme", elsewhere):  # (the second: a theme of another project)
        refused = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"email_theme": value}})
        assert (refused.status_code, refused.text) == (400, "Invalid email theme")
        assert api.call("GET", "/internal/projects/current", "admin").json()["config"]["email_theme"] == LIGHT_THEME_ID
    # the control: the other project may pick its own theme
    taken = internal.call("PATCH", "/internal/projects/current", "admin", json={"config": {"email_theme": elsewhere}})
    assert taken.status_code == 200, taken.text
    assert internal.call("PATCH", "/internal/projects/current", "admin", json={"config": {"email_theme": LIGHT_THEME_ID}}).status_code == 200


def test_the_27_project_has_no_email_theme(api_27: Api) -> None:
    refused = api_27.call("PATCH", "/projects/current", "admin", json={"config": {"email_theme": LIGHT_THEME_ID}})
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    assert "email_theme" not in api_27.call("GET", "/projects/current", "admin").json()["config"]
