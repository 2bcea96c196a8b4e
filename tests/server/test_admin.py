"""The admin tier against the real local service, sync and async: project settings, API keys,
e-mail templates, production checks, metrics, the webhook token, the test e-mail and projects
owned through the internal project (admin access token refresh and retry)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
import uuid
from typing import Any

import httpx
import pytest
from dev.test_smtp_delivery import (  # noqa: F401 - smtp_server is a fixture
    PASSWORD as SMTP_PASSWORD,  # the test SMTP server (aiosmtpd)
    USERNAME as SMTP_USER,
    Inbox,
    free_port,
    smtp_server,
)

from authmw import AuthConfig, production_mode_errors
from authmw._production import WILDCARD_TOO_WIDE
from authmw.errors import (
    AdminAccessTokenIsNotAdmin,
    ApiKeyNotFound,
    CurrentProjectNotFound,
    EmailRenderingError,
    ExpectedInternalProject,
    HttpStatusError,
    InsufficientAccessType,
    InvalidSecretServerKey,
    InvalidSuperSecretAdminKey,
    NotInServiceVersion,
    RequiresCustomEmailServer,
    SchemaError,
    UserAuthenticationRequired,
)
from authmw.models import (
    AdminProject,
    AdminProjectConfigUpdate,
    AdminProjectUpdate,
    ApiKey,
    EmailConfig,
    EmailTemplate,
    EmailTheme,
    NewApiKey,
    ProjectDomain,
)

from .conftest import PASSWORD, new_email

DAY_MILLIS = 24 * 3600 * 1000
LOCALHOST_MESSAGE = "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings"


def in_days(days: float) -> int:
    return int(time.time() * 1000 + days * DAY_MILLIS)


class Owner:
    """A user of the `internal` project who owns projects, in the test's flavour."""

    def __init__(self, flavour: Any, apps: Any) -> None:
        internal = apps.live.running.bootstrap.internal
        self.config = AuthConfig(
            project_id=internal.project_id,
            api_url=apps.live.url,
            publishable_client_key=internal.publishable_client_key,
        )
        self.flavour = flavour
        self.apps = apps
        self.app = apps._open(flavour.client_class(self.config))
        flavour(self.app.sign_up_with_password(new_email("owner"), PASSWORD, "http://localhost:3000/handler/verify"))

    def project(self, name: str = "Scratch", **config: Any) -> tuple[AdminProject, Any]:
        """A new project of the owner and an admin app for it (over the owner's session)."""
        created = self.flavour(
            self.app.create_project(display_name=name, config=config or None, **self.owner_team())
        )
        return created, self.app.admin_app(created.id)

    def owner_team(self) -> dict[str, str]:
        """API 2.8: a team of `internal` the owner belongs to (`owner_team_id`); 2.7: nothing."""
        running = self.apps.live.running
        if running.api != "2.8":
            return {}
        internal = running.bootstrap.internal
        user_id = self.flavour(self.app.get_user()).id
        team = httpx.post(
            f"{running.url}/api/v1/teams",
            headers={
                "x-stack-project-id": internal.project_id,
                "x-stack-access-type": "server",
                "x-stack-secret-server-key": internal.secret_server_key,
            },
            json={"display_name": "Owners", "creator_user_id": user_id},
        )
        assert team.status_code == 201, team.text
        return {"owner_team_id": team.json()["id"]}


@pytest.fixture
def owner(flavour, apps) -> Owner:
    return Owner(flavour, apps)


# -- project settings --------------------------------------------------------------------------


BOTH_APIS = pytest.mark.parametrize("apps", ["2.7", "2.8"], indirect=True)
ONLY_27 = pytest.mark.parametrize("apps", ["2.7"], indirect=True)


@BOTH_APIS
def test_get_project_is_the_admin_view_with_the_defaults(flavour, apps):
    project = flavour(apps.admin().get_project())
    assert isinstance(project, AdminProject)
    assert project.id == apps.live.config.project_id
    assert project.description == "" and project.created_at is not None
    if apps.live.api == "2.7":
        assert project.user_count is not None and project.user_count >= 0
    else:  # the 2.8 admin view has no user count (service-api B14.4)
        assert project.user_count is None
    assert project.is_production_mode is False
    config = project.config
    assert config.allow_localhost is True and config.create_team_on_sign_up is False
    creator_role, member_role = apps.live.team_roles
    assert [p.id for p in config.team_creator_default_permissions] == [creator_role]
    assert [p.id for p in config.team_member_default_permissions] == [member_role]
    assert config.email_config.type == "shared" and config.domains == []
    # the local service's own project starts with every method on, the mock GitHub and Google included
    assert config.magic_link_enabled is True and config.passkey_enabled is True
    assert [(p.id, p.type, p.enabled) for p in config.oauth_providers] == [
        ("github", "shared", True),
        ("google", "shared", True),
    ]


def test_secrets_are_kept_out_of_repr(flavour, owner):
    _, admin = owner.project(
        oauth_providers=[
            {"id": "github", "type": "standard", "enabled": True, "client_id": "gh-id", "client_secret": "gh-SECRET"}
        ],
        email_config={
            "type": "standard",
            "host": "smtp.example.com",
            "port": 587,
            "username": "mailer",
            "password": "smtp-SECRET",
            "sender_name": "Acme",
            "sender_email": "auth@acme.example",
        },
    )
    project = flavour(admin.get_project())
    provider = project.config.oauth_providers[0]
    assert (provider.id, provider.type, provider.client_id, provider.client_secret) == (
        "github",
        "standard",
        "gh-id",
        "gh-SECRET",
    )
    assert project.config.email_config.password == "smtp-SECRET"
    assert [p.id for p in project.config.enabled_oauth_providers] == ["github"]
    text = repr(project) + str(project)
    assert "SECRET" not in text and "gh-id" in text and "smtp.example.com" in text


def test_facebook_config_id_and_microsoft_tenant_id_round_trip(flavour, owner):
    """The two provider-specific fields of a standard provider (service-api A5.2): sent, kept, read back."""
    facebook = {"id": "facebook", "type": "standard", "enabled": True, "client_id": "fb", "client_secret": "fs"}
    microsoft = {"id": "microsoft", "type": "standard", "enabled": True, "client_id": "ms", "client_secret": "mss"}
    fields = ({"facebook_config_id": "fb-config-1"}, {"microsoft_tenant_id": "contoso"})
    _, admin = owner.project(oauth_providers=[{**facebook, **fields[0]}, {**microsoft, **fields[1]}])
    providers = {p.id: p for p in flavour(admin.get_project()).config.oauth_providers}
    assert (providers["facebook"].facebook_config_id, providers["facebook"].microsoft_tenant_id) == (
        "fb-config-1",
        None,
    )
    assert (providers["microsoft"].microsoft_tenant_id, providers["microsoft"].facebook_config_id) == ("contoso", None)
    fields = ({"facebook_config_id": "fb-config-2"}, {"microsoft_tenant_id": "fabrikam"})
    changed = flavour(
        admin.update_project(config={"oauth_providers": [{**facebook, **fields[0]}, {**microsoft, **fields[1]}]})
    )
    providers = {p.id: p for p in changed.config.oauth_providers}
    assert (providers["facebook"].facebook_config_id, providers["microsoft"].microsoft_tenant_id) == (
        "fb-config-2",
        "fabrikam",
    )


def test_update_project_with_keywords_a_model_or_a_dict(flavour, owner):
    _, admin = owner.project()
    updated = flavour(
        admin.update_project(display_name="Renamed", description="for tests", config={"magic_link_enabled": True})
    )
    assert (updated.display_name, updated.description, updated.config.magic_link_enabled) == (
        "Renamed",
        "for tests",
        True,
    )
    model = AdminProjectUpdate(
        config=AdminProjectConfigUpdate(
            domains=[ProjectDomain(domain="https://app.example.com")], create_team_on_sign_up=True
        )
    )
    updated = flavour(admin.update_project(model))
    assert updated.config.domains == [ProjectDomain(domain="https://app.example.com", handler_path="/handler")]
    assert updated.config.create_team_on_sign_up is True and updated.config.magic_link_enabled is True
    updated = flavour(admin.update_project({"description": None, "is_production_mode": True}))
    assert updated.description == "" and updated.is_production_mode is True
    assert flavour(admin.get_project()) == updated


@BOTH_APIS
def test_update_project_errors(flavour, apps, owner, request):
    _, admin = owner.project()
    with pytest.raises(ValueError, match="config.allow_local_host: Extra inputs are not permitted"):
        flavour(admin.update_project(config={"allow_local_host": False}))
    duplicated = [{"domain": "https://a.example", "handler_path": "/h"}] * 2
    if request.node.callspec.params["apps"] == "2.7":  # 2.7.16 refused one domain listed twice; 2.8.86 keeps both entries
        with pytest.raises(HttpStatusError) as info:
            flavour(admin.update_project(config={"domains": duplicated}))
        assert info.value.status == 400 and "Duplicated domain found" in info.value.body
    else:
        kept = flavour(admin.update_project(config={"domains": duplicated}))
        assert kept.config.domains == [ProjectDomain(domain="https://a.example", handler_path="/h")] * 2
    with pytest.raises(SchemaError, match="URL must start with http:// or https://"):
        flavour(admin.update_project(config={"domains": [{"domain": "ftp://a.example", "handler_path": "/h"}]}))
    with pytest.raises(HttpStatusError, match="Invalid team default permission ids"):
        flavour(admin.update_project(config={"team_member_default_permissions": [{"id": "no_such_permission"}]}))
    wrong_key = apps._open(apps.flavour.admin_class(apps.live.config.with_(super_secret_admin_key="sak_" + "x" * 45)))
    with pytest.raises(InvalidSuperSecretAdminKey):
        flavour(wrong_key.get_project())


@BOTH_APIS
def test_delete_project(flavour, apps, owner):
    created, admin = owner.project("Doomed")
    assert flavour(admin.delete_project()) is None
    assert created.id not in [p.id for p in flavour(owner.app.list_owned_projects())]
    # 2.7: the owner no longer manages it; 2.8 looks the project up before the admin token
    # (service-api B1.3 step 5) and says it is gone
    gone = AdminAccessTokenIsNotAdmin if apps.live.api == "2.7" else CurrentProjectNotFound
    with pytest.raises(gone):
        flavour(admin.get_project())


# -- production checks (service-api C5) --------------------------------------------------------


def test_a_new_project_fails_only_the_localhost_check(flavour, owner):
    created, admin = owner.project()
    errors = flavour(admin.production_mode_errors())
    assert [e.message for e in errors] == [LOCALHOST_MESSAGE]
    assert errors[0].relative_fix_url == f"/projects/{created.id}/domains"
    assert errors[0].fix_url == f"https://app.stack-auth.com/projects/{created.id}/domains"


def test_each_domain_rule_with_its_message_and_fix_link(flavour, owner):
    created, admin = owner.project()
    domains = [
        "https://localhost:3000",
        "https://app.localhost",
        "http://127.0.0.1:8000",
        "https://192.168.1.20",
        "http://app.example.com",
        "https://app.example.com",
    ]
    flavour(
        admin.update_project(
            config={"allow_localhost": False, "domains": [{"domain": d, "handler_path": "/handler"} for d in domains]}
        )
    )
    errors = flavour(admin.production_mode_errors(dashboard_url="http://dash.test/"))
    assert [e.message for e in errors] == [
        "Localhost domains are not allowed to be trusted in production mode: https://localhost:3000",
        "Localhost domains are not allowed to be trusted in production mode: https://app.localhost",
        "Localhost domains are not allowed to be trusted in production mode: http://127.0.0.1:8000",
        "Direct IPs are not valid for trusted domains in production mode: https://192.168.1.20",
        "Trusted domains should be HTTPS: http://app.example.com",
    ]
    assert {e.fix_url for e in errors} == {f"http://dash.test/projects/{created.id}/domains"}
    flavour(admin.update_project(config={"domains": [{"domain": "https://app.example.com", "handler_path": "/h"}]}))
    assert flavour(admin.production_mode_errors()) == []


@pytest.mark.parametrize(
    ("domain", "message"),
    [
        ("not a url", "Trusted domain is not a valid URL: not a url"),
        ("https://", "Trusted domain is not a valid URL: https://"),
        ("https://host:99999", "Trusted domain is not a valid URL: https://host:99999"),
        ("https://LOCALHOST", "Localhost domains are not allowed to be trusted in production mode: https://LOCALHOST"),
        ("https://10.0.0.1", "Direct IPs are not valid for trusted domains in production mode: https://10.0.0.1"),
        ("http://a.example", "Trusted domains should be HTTPS: http://a.example"),
        ("https://a.example", None),
        # Attacks: hosts a browser (and the service's callback check) reads as this machine or
        # as an address, whatever the text looks like.
        ("https://0x7f.0.0.1", "Localhost domains are not allowed to be trusted in production mode: https://0x7f.0.0.1"),
        ("https://2130706433", "Localhost domains are not allowed to be trusted in production mode: https://2130706433"),
        ("https://local%68ost", "Localhost domains are not allowed to be trusted in production mode: https://local%68ost"),
        ("https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54", "Localhost domains are not allowed to be trusted in production mode: https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54"),
        ("https://localhost.", "Localhost domains are not allowed to be trusted in production mode: https://localhost."),
        ("https://[::1]", "Direct IPs are not valid for trusted domains in production mode: https://[::1]"),
        ("https://[2001:db8::1]:8443", "Direct IPs are not valid for trusted domains in production mode: https://[2001:db8::1]:8443"),
        ("https://0xc0.0xa8.1.20", "Direct IPs are not valid for trusted domains in production mode: https://0xc0.0xa8.1.20"),
        ("https://**", f"{WILDCARD_TOO_WIDE}: https://**"),
        ("https://*.com", f"{WILDCARD_TOO_WIDE}: https://*.com"),
        ("https://*example.com", f"{WILDCARD_TOO_WIDE}: https://*example.com"),
        ("https://example.*", f"{WILDCARD_TOO_WIDE}: https://example.*"),
        # controls: what a real site writes stays fine
        ("https://*.example.com", None),
        ("https://app-*.example.com", None),
        ("https://**.example.com", None),
        ("https://app.example.com./", None),
        ("https://xn--bcher-kva.example", None),
    ],
)
def test_the_pure_check_of_one_domain(domain, message):
    project = AdminProject.model_validate(
        {"id": "p1", "config": {"allow_localhost": False, "domains": [{"domain": domain, "handler_path": "/h"}]}}
    )
    errors = production_mode_errors(project)
    assert [e.message for e in errors] == ([message] if message else [])
    assert all(str(e) == f"{e.message} (fix: https://app.stack-auth.com/projects/p1/domains)" for e in errors)


def test_a_domain_the_service_reads_as_loopback_fails_the_check(flavour, owner):
    """Attack: `https://0x7f.0.0.1` passed the check (a string parse saw a host name), while the
    service, parsing as a browser, trusts callbacks to https://127.0.0.1 for it."""
    _, admin = owner.project()
    domain = "https://0x7f.0.0.1"
    flavour(admin.update_project(config={"allow_localhost": False, "domains": [{"domain": domain, "handler_path": "/h"}]}))
    errors = flavour(admin.production_mode_errors())
    assert [e.message for e in errors] == [f"Localhost domains are not allowed to be trusted in production mode: {domain}"]
    flavour(admin.update_project(config={"domains": [{"domain": "https://app.example.com", "handler_path": "/h"}]}))
    assert flavour(admin.production_mode_errors()) == []  # control


# -- API keys ----------------------------------------------------------------------------------


def test_create_list_get_revoke_and_a_revoked_key_is_refused_at_once(flavour, apps):
    admin = apps.admin()
    created = flavour(admin.api_keys.create(description="ci", expires_at_millis=in_days(30)))
    assert isinstance(created, NewApiKey)
    assert created.secret_server_key.startswith("ssk_") and created.publishable_client_key.startswith("pck_")
    assert created.super_secret_admin_key is None and created.secret_server_key not in repr(created)
    assert created.is_valid() and created.why_invalid() is None
    listed = flavour(admin.api_keys.list())
    assert listed[0].id == created.id  # newest first
    read = flavour(admin.api_keys.get(created.id))
    assert type(read) is ApiKey and not hasattr(read, "secret_server_key")
    assert read.secret_server_key_last_four == created.secret_server_key[-4:]
    assert read.super_secret_admin_key_last_four is None and read.description == "ci"

    server = apps._open(apps.flavour.server_class(apps.live.config.with_(secret_server_key=created.secret_server_key)))
    assert flavour(server.get_project()).id == apps.live.config.project_id
    revoked = flavour(admin.api_keys.revoke(created.id))
    assert revoked.manually_revoked_at is not None
    assert not revoked.is_valid() and revoked.why_invalid() == "manually-revoked"
    with pytest.raises(InvalidSecretServerKey):
        flavour(server.get_project())


def test_expired_keys_and_key_errors(flavour, apps):
    admin = apps.admin()
    expiry = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)
    expired = flavour(
        admin.api_keys.create(description="old", expires_at_millis=expiry, has_super_secret_admin_key=True)
    )
    assert expired.why_invalid() == "expired" and expired.super_secret_admin_key.startswith("sak_")
    with pytest.raises(ApiKeyNotFound):
        flavour(admin.api_keys.get(str(uuid.uuid4())))
    with pytest.raises(ApiKeyNotFound):
        flavour(admin.api_keys.revoke(str(uuid.uuid4())))
    with pytest.raises(ValueError, match="aware datetime"):
        flavour(admin.api_keys.create(description="x", expires_at_millis=dt.datetime(2030, 1, 1)))
    with pytest.raises(TypeError, match="milliseconds"):
        flavour(admin.api_keys.create(description="x", expires_at_millis="tomorrow"))


def test_why_invalid_names_expiry_first():
    key = ApiKey.model_validate(
        {
            "id": "k",
            "expires_at_millis": 1_000,
            "manually_revoked_at_millis": 500,
            "secret_server_key": {"last_four": "abcd"},
        }
    )
    assert key.why_invalid() == "expired" and key.secret_server_key_last_four == "abcd"
    later = ApiKey.model_validate({"id": "k", "expires_at_millis": in_days(1), "manually_revoked_at_millis": 500})
    assert later.why_invalid() == "manually-revoked"
    assert later.is_valid(now=dt.datetime.fromtimestamp(0, dt.timezone.utc)) is False


# -- e-mail templates --------------------------------------------------------------------------


# /email-templates is API 2.7's (2.8 removed it, service-api B14.4)


@ONLY_27
def test_templates_round_trip(flavour, owner):
    _, admin = owner.project()
    templates = flavour(admin.email_templates.list())
    assert [t.type for t in templates] == ["email_verification", "password_reset", "magic_link", "team_invitation"]
    assert all(t.is_default for t in templates)
    assert templates[1].subject == "Reset your password at {{ projectDisplayName }}"
    content = {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Hi"}]}]}
    changed = flavour(admin.email_templates.update("password_reset", subject="New password", content=content))
    assert isinstance(changed, EmailTemplate)
    assert (changed.subject, changed.content, changed.is_default) == ("New password", content, False)
    subject_only = flavour(admin.email_templates.update("password_reset", subject="Again"))
    assert subject_only.content == content and subject_only.subject == "Again"
    assert flavour(admin.email_templates.get("password_reset")) == subject_only
    assert flavour(admin.email_templates.reset("password_reset")) is None
    back = flavour(admin.email_templates.get("password_reset"))
    assert back.is_default and back.subject == templates[1].subject


@ONLY_27
def test_template_errors(flavour, owner):
    _, admin = owner.project()
    with pytest.raises(HttpStatusError) as info:
        flavour(admin.email_templates.reset("magic_link"))  # not changed: nothing to reset
    assert info.value.status == 404 and "Email template not found" in info.value.body
    with pytest.raises(SchemaError):
        flavour(admin.email_templates.get("welcome"))
    with pytest.raises(HttpStatusError, match="Invalid email template content"):
        flavour(admin.email_templates.update("magic_link", content={"no": "type"}))
    with pytest.raises(ValueError, match="content cannot be None"):
        flavour(admin.email_templates.update("magic_link", content=None))


def test_templates_on_2_8_are_a_clear_not_in_service_version(flavour, owner):
    _, admin = owner.project()
    calls = (
        lambda: admin.email_templates.list(),
        lambda: admin.email_templates.get("password_reset"),
        lambda: admin.email_templates.update("password_reset", subject="New password"),
        lambda: admin.email_templates.reset("password_reset"),
    )
    for call in calls:
        with pytest.raises(NotInServiceVersion, match="/email-templates.*API 2.8.*admin.tsx_email_templates"):
            flavour(call())


# API 2.8: TSX templates and themes under /internal (service-api B14.4)

PASSWORD_RESET_ID = "a70fb3a4-56c1-4e42-af25-49d25603abd0"
OWN_TEMPLATE = """
import { Text } from "@react-email/components";
import { Subject, NotificationCategory } from "@stackframe/emails";
export function EmailTemplate({ user, project }) {
  return (
    <>
      <Subject value={"New password for " + project.displayName} />
      <NotificationCategory value="Transactional" />
      <Text>Hi {user.displayName}, here is your link.</Text>
    </>
  );
}
"""


def test_tsx_templates_and_themes_round_trip(flavour, owner):
    _, admin = owner.project("Mailer", email_config=smtp_config(free_port()).model_dump(exclude_none=True))
    templates = flavour(admin.tsx_email_templates.list())
    assert templates[1].id == PASSWORD_RESET_ID and templates[1].display_name == "Password Reset"
    preview = flavour(admin.tsx_email_templates.update(PASSWORD_RESET_ID, OWN_TEMPLATE))
    assert "Hi John Doe, here is your link." in preview
    assert flavour(admin.tsx_email_templates.get(PASSWORD_RESET_ID)).tsx_source == OWN_TEMPLATE
    with pytest.raises(EmailRenderingError, match="Intentional"):
        flavour(
            admin.tsx_email_templates.update(
                PASSWORD_RESET_ID, "export function EmailTemplate() { throw new Error('Intentional'); }"
            )
        )
    assert flavour(admin.tsx_email_templates.delete(PASSWORD_RESET_ID)) is None
    assert flavour(admin.tsx_email_templates.get(PASSWORD_RESET_ID)).tsx_source != OWN_TEMPLATE

    new_id = flavour(admin.tsx_email_templates.create("Weekly digest"))
    flavour(admin.tsx_email_templates.update(new_id, OWN_TEMPLATE, theme_id=False))
    mine = flavour(admin.tsx_email_templates.get(new_id))
    assert (mine.display_name, mine.theme_id) == ("Weekly digest", False)
    flavour(admin.tsx_email_templates.delete(new_id))
    with pytest.raises(LookupError, match="no e-mail template"):
        flavour(admin.tsx_email_templates.get(new_id))

    theme_id = flavour(admin.email_themes.create("Brand"))
    assert "Brand" in [t.display_name for t in flavour(admin.email_themes.list())]
    theme = flavour(admin.email_themes.get(theme_id))
    assert isinstance(theme, EmailTheme) and "export function EmailTheme" in theme.tsx_source
    changed = theme.tsx_source.replace("Unsubscribe", "Leave")
    assert flavour(admin.email_themes.update(theme_id, changed)) is None
    assert flavour(admin.email_themes.get(theme_id)).tsx_source == changed
    with pytest.raises(EmailRenderingError):
        flavour(admin.email_themes.update(theme_id, "export const EmailTheme = 1;"))


def test_tsx_templates_need_an_own_email_server(flavour, owner):
    _, admin = owner.project()
    assert len(flavour(admin.tsx_email_templates.list())) >= 4  # reading is allowed
    with pytest.raises(RequiresCustomEmailServer):
        flavour(admin.tsx_email_templates.update(PASSWORD_RESET_ID, OWN_TEMPLATE))
    with pytest.raises(RequiresCustomEmailServer):
        flavour(admin.tsx_email_templates.create("x"))


@ONLY_27
def test_tsx_templates_on_2_7_are_a_clear_not_in_service_version(flavour, owner):
    _, admin = owner.project()
    for call in (
        lambda: admin.tsx_email_templates.list(),
        lambda: admin.tsx_email_templates.delete(PASSWORD_RESET_ID),
        lambda: admin.email_themes.get("1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"),
    ):
        with pytest.raises(NotInServiceVersion, match="API 2.8.*admin.email_templates"):
            flavour(call())


# -- tools -------------------------------------------------------------------------------------


def smtp_config(port: int, password: str = SMTP_PASSWORD) -> EmailConfig:
    return EmailConfig(
        type="standard",
        host="127.0.0.1",
        port=port,
        username=SMTP_USER,
        password=password,
        sender_name="Acme",
        sender_email="auth@acme.example",
    )


def test_send_test_email(flavour, apps, smtp_server: tuple[Inbox, int]):  # noqa: F811 - the fixture
    inbox, port = smtp_server
    admin = apps.admin()
    result = flavour(admin.send_test_email(recipient_email="ada@example.com", email_config=smtp_config(port)))
    assert result.success is True and result.error_message is None
    assert "Test Email from Stack Auth" in [r.message["Subject"] for r in inbox.received]
    wrong = flavour(admin.send_test_email(recipient_email="ada@example.com", email_config=smtp_config(port, "nope")))
    assert wrong.success is False and wrong.error_message
    config = smtp_config(free_port()).model_dump()  # a dict works too; nothing listens there
    unreachable = flavour(admin.send_test_email(recipient_email="ada@example.com", email_config=config))
    assert unreachable.success is False and unreachable.error_message
    with pytest.raises(ValueError, match="email_config needs host"):
        flavour(admin.send_test_email(recipient_email="ada@example.com", email_config=EmailConfig()))
    with pytest.raises(SchemaError):
        flavour(admin.send_test_email(recipient_email="not-an-email", email_config=smtp_config(port)))


def test_metrics_and_the_webhook_token(flavour, apps):
    apps.signed_in()
    admin = apps.admin()
    metrics = flavour(admin.get_metrics())
    assert metrics.total_users >= 1 and len(metrics.daily_users) == 31 and len(metrics.daily_active_users) == 31
    assert metrics.daily_users[-1].date == dt.datetime.now(dt.timezone.utc).date()
    assert metrics.recently_registered and {m.method for m in metrics.login_methods} >= {"password"}
    token = flavour(admin.create_svix_token())
    assert isinstance(token, str) and token


def test_admin_routes_refuse_the_server_tier(flavour, apps):
    server = apps.server
    with pytest.raises(InsufficientAccessType):
        flavour(server._driver.run(server._transport.call("GET", "/internal/api-keys")))


# -- owned projects (internal project, admin access token) -------------------------------------


@BOTH_APIS
def test_owners_create_and_list_projects_and_manage_them(flavour, apps, owner):
    created, admin = owner.project("Side project", magic_link_enabled=True)
    assert created.display_name == "Side project" and created.config.magic_link_enabled is True
    assert created.user_count == (0 if apps.live.api == "2.7" else None) and created.config.allow_localhost is True
    assert [p.id for p in flavour(owner.app.list_owned_projects())] == [created.id]
    assert flavour(admin.get_project()).id == created.id
    key = flavour(admin.api_keys.create(description="first", expires_at_millis=in_days(1)))
    assert key.secret_server_key.startswith("ssk_")
    newer = flavour(
        owner.app.create_project(AdminProjectUpdate(display_name="Newer", description="d"), **owner.owner_team())
    )
    assert [p.id for p in flavour(owner.app.list_owned_projects())] == [newer.id, created.id]


def test_owned_project_errors(flavour, apps, owner):
    with pytest.raises(ValueError, match="display_name"):
        flavour(owner.app.create_project(description="no name"))
    anonymous = apps._open(apps.flavour.client_class(owner.config))
    with pytest.raises(UserAuthenticationRequired):
        flavour(anonymous.list_owned_projects())
    user_app, _ = apps.signed_in()  # a user of an ordinary project
    with pytest.raises(ExpectedInternalProject):
        flavour(user_app.list_owned_projects())
    not_mine = owner.app.admin_app(apps.live.config.project_id)
    with pytest.raises(AdminAccessTokenIsNotAdmin):
        flavour(not_mine.get_project())


def test_a_refused_admin_access_token_is_refreshed_and_the_call_retried(flavour, owner):
    created, admin = owner.project()
    session = owner.app.session
    good = session.access_token
    # A token the client takes for fresh (exp an hour away) but the service cannot verify.
    claims = json.loads(_b64decode(good.split(".")[1]))
    forged = ".".join([good.split(".")[0], _b64encode(json.dumps({**claims, "exp": int(time.time()) + 3600})), "c2ln"])
    session.set_tokens(forged, session.refresh_token)
    assert flavour(admin.get_project()).id == created.id
    assert session.access_token not in (forged, None)


def _b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _b64encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()
