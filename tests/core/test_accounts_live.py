"""API 2.8 account calls against the real local service over HTTP, sync and async: sessions,
anonymous users and their upgrade, OAuth provider accounts, notification preferences and
``server.send_email``."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import httpx
import pytest

from authmw import AdminApp, AuthConfig
from authmw._session import refresh_access_token
from authmw.errors import (
    CannotDeleteCurrentSession,
    CannotGetOwnUserWithoutUser,
    HttpStatusError,
    OAuthProviderAccountIdAlreadyUsedForSignIn,
    RequiresCustomEmailServer,
    UserIdDoesNotExist,
)
from authmw.models import NotificationPreference, ProviderAccount, SessionInfo

from .test_apps_live import PASSWORD, apps, client_config, flavour, new_email

__all__ = ["apps", "client_config", "flavour"]  # fixtures of this module too

MARKETING = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # The local service: the tests change the project's providers and e-mail server.
    with deployment.running(tmp_path_factory.mktemp("accounts-live"), access_token_ttl=600) as running:
        admin = AdminApp(AuthConfig.from_env(running.config))
        admin.update_project(
            config={
                "oauth_providers": [
                    {"id": "github", "type": "shared", "enabled": True},
                    {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "i", "client_secret": "s"},
                ]
            }
        )
        admin.close()
        yield running


@pytest.fixture(scope="module")
def config(service: Any) -> AuthConfig:
    return AuthConfig.from_env(service.config)


def test_sessions_list_and_revoke(flavour: Any, apps: Any, config: AuthConfig) -> None:
    client, server = apps
    email = new_email()
    first = client()
    signed_up = flavour(first.sign_up_with_password(email, PASSWORD))
    second = client()
    flavour(second.sign_in_with_password(email, PASSWORD))
    sessions = flavour(first.sessions.list())
    assert all(isinstance(s, SessionInfo) for s in sessions) and len(sessions) == 2
    current = [s for s in sessions if s.is_current_session]
    assert len(current) == 1 and current[0].user_id == signed_up.user_id
    other = next(s for s in sessions if not s.is_current_session)
    assert other.created_at is not None and other.last_used_at is not None
    with pytest.raises(CannotDeleteCurrentSession):
        flavour(first.sessions.revoke(current[0].id))
    flavour(first.sessions.revoke(other.id))
    assert [s.id for s in flavour(first.sessions.list())] == [current[0].id]
    # the revoked session's refresh token no longer works: the app resuming it is signed out
    resumed = client(refresh_token=second.session.refresh_token)
    assert flavour(resumed.get_user()) is None
    assert not resumed.session.is_signed_in
    with pytest.raises(CannotGetOwnUserWithoutUser):
        flavour(resumed.sessions.list())
    assert flavour.run(refresh_access_token(config, second.session.refresh_token)) is None  # refused

    srv = server()
    impersonation = flavour(srv.sessions.create(signed_up.user_id, is_impersonation=True))
    assert impersonation.access_token
    # the user and the server tier do not see impersonation sessions (only the admin tier)
    assert len(flavour(first.sessions.list())) == 1
    listed = flavour(srv.sessions.list(signed_up.user_id))
    assert [s.id for s in listed] == [current[0].id]
    flavour(srv.sessions.revoke(signed_up.user_id, current[0].id))
    assert flavour(srv.sessions.list(signed_up.user_id)) == []


def test_anonymous_sign_up_then_password_upgrade_keeps_the_user_id(flavour: Any, apps: Any) -> None:
    client, server = apps
    with pytest.raises(ValueError, match="allow_anonymous=True"):
        flavour(client().sign_up_anonymously())
    app = client(allow_anonymous=True)
    anonymous = flavour(app.sign_up_anonymously())
    user = flavour(app.get_user())
    assert user.id == anonymous.user_id and user.is_anonymous is True
    email = new_email()
    upgraded = flavour(app.sign_up_with_password(email, PASSWORD))
    assert upgraded.user_id == anonymous.user_id
    user = flavour(app.get_user())
    assert (user.id, user.is_anonymous, user.primary_email) == (anonymous.user_id, False, email)
    assert flavour(server().get_user(anonymous.user_id)).is_anonymous is False
    # control: an app that does not sign anonymous users in still makes new users
    plain = client()
    assert flavour(plain.sign_up_with_password(new_email(), PASSWORD)).user_id != anonymous.user_id


def test_provider_accounts(flavour: Any, apps: Any) -> None:
    client, server = apps
    app, srv = client(), server()
    me = flavour(app.sign_up_with_password(new_email(), PASSWORD))
    created = flavour(
        srv.provider_accounts.create(
            me.user_id, "gitlab", f"acct-{uuid.uuid4().hex[:8]}", allow_sign_in=True, allow_connected_accounts=True
        )
    )
    assert isinstance(created, ProviderAccount) and created.type == "gitlab" and created.account_id
    own = flavour(app.provider_accounts.list())
    assert [(a.id, a.account_id) for a in own] == [(created.id, None)]  # the client sees no account id
    changed = flavour(app.provider_accounts.update(created.id, allow_connected_accounts=False))
    assert (changed.allow_sign_in, changed.allow_connected_accounts) == (True, False)
    # someone else cannot link the same account to sign in
    other = flavour(client().sign_up_with_password(new_email(), PASSWORD))
    with pytest.raises(OAuthProviderAccountIdAlreadyUsedForSignIn):
        flavour(
            srv.provider_accounts.create(
                other.user_id, "gitlab", created.account_id, allow_sign_in=True, allow_connected_accounts=True
            )
        )
    second = flavour(
        srv.provider_accounts.create(me.user_id, "gitlab", "second", allow_sign_in=False, allow_connected_accounts=True)
    )
    assert [c.provider_account_id for c in flavour(srv.provider_accounts.connected(me.user_id))] == ["second"]
    token = flavour(srv.connected_accounts.get_access_token(me.user_id, "gitlab", account_id="second"))
    assert token is not None and token.startswith("mock_gitlab_")
    assert flavour(srv.connected_accounts.get_access_token(me.user_id, "gitlab", account_id=created.account_id)) is None
    with pytest.raises(HttpStatusError) as info:
        flavour(app.provider_accounts.update(second.id, allow_sign_in=True))
    assert info.value.status == 400
    flavour(app.provider_accounts.unlink(created.id))
    assert [a.id for a in flavour(srv.provider_accounts.list(me.user_id))] == [second.id]
    assert flavour(srv.provider_accounts.get(me.user_id, second.id)).account_id == "second"


def test_notification_preferences(flavour: Any, apps: Any) -> None:
    client, server = apps
    app = client()
    me = flavour(app.sign_up_with_password(new_email(), PASSWORD))
    prefs = flavour(app.notification_preferences.list())
    assert all(isinstance(p, NotificationPreference) for p in prefs)
    assert [(p.category_name, p.enabled, p.can_disable) for p in prefs] == [
        ("Transactional", True, False),
        ("Marketing", True, True),
    ]
    off = flavour(app.notification_preferences.set("Marketing", False))
    assert (off.category_id, off.enabled) == (MARKETING, False)
    srv = server()
    assert [p.enabled for p in flavour(srv.notification_preferences.list(me.user_id))] == [True, False]
    assert flavour(srv.notification_preferences.set(me.user_id, MARKETING, True)).enabled is True
    with pytest.raises(TypeError):
        flavour(app.notification_preferences.set("Marketing", "no"))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_send_email(flavour: Any, apps: Any, service: Any, config: AuthConfig) -> None:
    client, server = apps
    email = new_email()
    me = flavour(client().sign_up_with_password(email, PASSWORD))
    srv = server()
    with pytest.raises(RequiresCustomEmailServer):
        flavour(srv.send_email(user_ids=[me.user_id], html="<p>Hi</p>", subject="Hi"))
    admin = AdminApp(config)
    smtp = {"type": "standard", "host": "127.0.0.1", "port": _closed_port(), "username": "u", "password": "p"}
    admin.update_project(config={"email_config": {**smtp, "sender_name": "Acme", "sender_email": "a@acme.example"}})
    try:
        subject = f"News {uuid.uuid4().hex[:6]}"
        sent = flavour(
            srv.send_email(
                user_ids=[me.user_id], html="<p>Hello</p>", subject=subject, notification_category="Marketing"
            )
        )
        assert sent == [me.user_id]
        mail = next(m for m in deployment.local_outbox(service.url, email) if m["subject"] == subject)
        assert mail["link"] and "/api/v1/emails/unsubscribe-link?code=" in mail["link"]
        assert httpx.get(mail["link"]).status_code == 200
        user = client(refresh_token=me.refresh_token)
        assert {p.category_name: p.enabled for p in flavour(user.notification_preferences.list())}["Marketing"] is False
        with pytest.raises(UserIdDoesNotExist):
            flavour(srv.send_email(user_ids=[str(uuid.uuid4())], html="<p>x</p>", subject="x"))
        with pytest.raises(ValueError, match="user_ids"):
            flavour(srv.send_email(html="<p>x</p>", subject="x"))
    finally:
        admin.update_project(config={"email_config": {"type": "shared"}})
        admin.close()
