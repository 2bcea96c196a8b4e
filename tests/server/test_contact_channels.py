"""server.contact_channels (service-api A5.7)."""

from __future__ import annotations

import uuid

import pytest

from authmw.errors import (
    ContactChannelAlreadyUsedForAuthBySomeoneElse,
    EmailAlreadyVerified,
    HttpStatusError,
    UserIdDoesNotExist,
)
from authmw.models import ContactChannel

from .conftest import CALLBACK, new_email


def test_create_read_update_delete(flavour, apps):
    channels = apps.server.contact_channels
    user = apps.new_user()
    email = new_email()
    channel = flavour(channels.create(user.id, email, used_for_auth=True, is_primary=True, is_verified=True))
    assert isinstance(channel, ContactChannel)
    assert (channel.user_id, channel.value, channel.type) == (user.id, email, "email")
    assert (channel.used_for_auth, channel.is_primary, channel.is_verified) == (True, True, True)
    assert flavour(channels.get(user.id, channel.id)) == channel
    assert flavour(apps.server.users.get(user.id)).primary_email == email

    other = new_email()
    changed = flavour(channels.update(user.id, channel.id, value=other))
    assert changed.value == other and changed.is_verified is False  # a new value is unverified again
    changed = flavour(channels.update(user.id, channel.id, is_verified=True, used_for_auth=False))
    assert changed.is_verified and not changed.used_for_auth
    assert flavour(channels.delete(user.id, channel.id)) is None
    assert flavour(channels.get(user.id, channel.id)) is None
    assert flavour(channels.list(user.id)) == []


def test_list_oldest_first_and_one_primary(flavour, apps):
    channels = apps.server.contact_channels
    user = apps.new_user()
    first = flavour(channels.create(user.id, new_email(), is_primary=True))
    second = flavour(channels.create(user.id, new_email(), is_primary=True))
    listed = flavour(channels.list(user.id))
    assert [c.id for c in listed] == [first.id, second.id]
    assert [c.is_primary for c in listed] == [False, True]


def test_an_address_signs_in_for_one_account_only(flavour, apps):
    channels = apps.server.contact_channels
    email = new_email()
    flavour(channels.create(apps.new_user().id, email, used_for_auth=True))
    with pytest.raises(ContactChannelAlreadyUsedForAuthBySomeoneElse) as info:
        flavour(channels.create(apps.new_user().id, email, used_for_auth=True))
    assert info.value.status == 409 and info.value.details["type"] == "email"


def test_duplicates_and_missing_channels_are_plain_errors(flavour, apps):
    channels = apps.server.contact_channels
    user = apps.new_user()
    email = new_email()
    flavour(channels.create(user.id, email))
    with pytest.raises(HttpStatusError) as info:
        flavour(channels.create(user.id, email))
    assert info.value.status == 400 and "already exists" in info.value.body
    missing = str(uuid.uuid4())
    assert flavour(channels.get(user.id, missing)) is None
    with pytest.raises(HttpStatusError):
        flavour(channels.update(user.id, missing, value=new_email()))
    with pytest.raises(HttpStatusError):
        flavour(channels.delete(user.id, missing))


def test_send_verification_code_then_verify(flavour, apps):
    channels = apps.server.contact_channels
    user = apps.new_user()
    email = new_email()
    channel = flavour(channels.create(user.id, email))
    flavour(channels.send_verification_code(user.id, channel.id, CALLBACK + "/email-verification"))
    code = apps.live.last_code(email, "email_verification")
    flavour(apps.client().verify_email(code))
    assert flavour(channels.get(user.id, channel.id)).is_verified
    with pytest.raises(EmailAlreadyVerified):
        flavour(channels.send_verification_code(user.id, channel.id, CALLBACK + "/email-verification"))


def test_send_verification_code_errors(flavour, apps):
    channels = apps.server.contact_channels
    with pytest.raises(UserIdDoesNotExist):
        flavour(channels.send_verification_code(str(uuid.uuid4()), str(uuid.uuid4()), CALLBACK))
    with pytest.raises(ValueError, match="callback_url is required"):
        flavour(channels.send_verification_code(str(uuid.uuid4()), str(uuid.uuid4()), ""))
