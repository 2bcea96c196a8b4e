"""The one rule for linking by e-mail (authmw.adapter.linkable_email), against the local service.

An address may pick an app's user only when the service says it is the user's verified
primary e-mail and no other authmw user holds it verified. The adapters' own tests
(tests/flask/test_flask_login_takeover.py, tests/django/test_django_linked_users.py) run
the documented recipes against the attacks; this file pins the rule itself.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from authmw import AsyncServerApp, ClientApp, ServerApp
from authmw.adapter import EmailLinkRefused, linkable_email
from authmw.errors import ConfigurationError


def address(tag: str = "v") -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.com"


@pytest.fixture
def server(local_service: Any) -> ServerApp:
    return ServerApp(local_service.config)


def refused(server: Any, user: Any) -> str:
    with pytest.raises(EmailLinkRefused) as caught:
        linkable_email(server, user)
    assert caught.value.reason in EmailLinkRefused.REASONS
    return caught.value.reason


def test_a_verified_address_held_by_nobody_else_links(server: ServerApp) -> None:
    email = address()
    user = server.users.create(primary_email=email.upper(), primary_email_verified=True)
    assert linkable_email(server, user.id) == email  # lower-cased
    assert linkable_email(server, server.users.get(user.id)) == email  # the profile already fetched


def test_a_password_sign_up_with_someone_elses_address_is_unverified(local_service: Any, server: ServerApp) -> None:
    """The attack of issue 26: sign up with the victim's address, never click the link."""
    attacker = ClientApp(local_service.config)
    victim_email = address("victim")
    attacker.sign_up_with_password(victim_email, "correct horse battery")
    me = attacker.get_user()
    assert me is not None and me.primary_email == victim_email  # the service keeps it, unverified
    assert refused(server, me.id) == "unverified"


def test_an_unverified_channel_made_primary_does_not_link(server: ServerApp) -> None:
    victim_email = address("victim")
    attacker = server.users.create(primary_email=address("attacker"), primary_email_verified=True)
    channel = server.contact_channels.create(attacker.id, victim_email)  # unverified
    server.contact_channels.update(attacker.id, channel.id, is_primary=True)
    assert server.users.get(attacker.id).primary_email == victim_email  # type: ignore[union-attr]
    assert refused(server, attacker.id) == "unverified"


def test_two_authmw_users_with_one_verified_address_are_both_refused(server: ServerApp) -> None:
    email = address()
    first = server.users.create(primary_email=email, primary_email_verified=True)
    second = server.users.create(primary_email=email.upper(), primary_email_verified=True)
    assert refused(server, first.id) == "shared"
    assert refused(server, second.id) == "shared"


def test_a_verified_secondary_address_of_another_user_counts(server: ServerApp) -> None:
    email = address()
    user = server.users.create(primary_email=email, primary_email_verified=True)
    other = server.users.create(primary_email=address("other"), primary_email_verified=True)
    channel = server.contact_channels.create(other.id, email, is_verified=True)
    assert refused(server, user.id) == "shared"
    server.contact_channels.update(other.id, channel.id, is_verified=False)
    assert linkable_email(server, user.id) == email  # unverified elsewhere: anyone can list it, so it cannot block


def test_no_address_and_no_user_are_refused(server: ServerApp) -> None:
    assert refused(server, server.users.create().id) == "no_email"
    assert refused(server, str(uuid.uuid4())) == "no_user"


def test_the_error_names_the_reason_and_the_user_but_not_the_address(server: ServerApp) -> None:
    email = address()
    user = server.users.create(primary_email=email)
    with pytest.raises(EmailLinkRefused, match="not verified at the service") as caught:
        linkable_email(server, user.id)
    assert user.id in str(caught.value) and email not in str(caught.value)


async def test_the_async_server_app_applies_the_same_rule(local_service: Any, server: ServerApp) -> None:
    email = address()
    user = server.users.create(primary_email=email, primary_email_verified=True)
    async with AsyncServerApp(local_service.config) as async_server:
        assert await linkable_email(async_server, user.id) == email
        server.users.create(primary_email=email, primary_email_verified=True)
        with pytest.raises(EmailLinkRefused, match="another authmw user"):
            await linkable_email(async_server, user.id)


def test_without_the_secret_key_it_says_so(server: ServerApp) -> None:
    with pytest.raises(ConfigurationError, match="secret server key"):
        linkable_email(None, "someone")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="ServerUser"):
        linkable_email(server, object())  # type: ignore[arg-type]
