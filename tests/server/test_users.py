"""server.users and server.sessions against the local service (service-api A5.5, A5.4.5)."""

from __future__ import annotations

import base64
import uuid

import bcrypt
import pytest

from authmw.errors import (
    PasswordTooShort,
    SchemaError,
    TeamMembershipNotFound,
    UserEmailAlreadyExists,
    UserIdDoesNotExist,
    UserNotFound,
)
from authmw.models import Page, ServerUser, TokenPair

from .conftest import PASSWORD, new_email


def test_create_with_every_field_then_read_it_back(flavour, apps):
    email = new_email()
    user = apps.new_user(
        primary_email=email,
        primary_email_verified=True,
        primary_email_auth_enabled=True,
        password=PASSWORD,
        display_name="Ada Lovelace",
        profile_image_url="https://example.com/ada.png",
        client_metadata={"theme": "dark"},
        client_read_only_metadata={"plan": "pro"},
        server_metadata={"stripe": "cus_1"},
        totp_secret_base64=base64.b64encode(b"0" * 20).decode(),
    )
    assert isinstance(user, ServerUser)
    assert (user.primary_email, user.primary_email_verified, user.primary_email_auth_enabled) == (email, True, True)
    assert user.has_password and user.display_name == "Ada Lovelace"
    assert user.profile_image_url == "https://example.com/ada.png"
    assert (user.client_metadata, user.client_read_only_metadata, user.server_metadata) == (
        {"theme": "dark"},
        {"plan": "pro"},
        {"stripe": "cus_1"},
    )
    assert user.is_multi_factor_required is False  # a secret given at creation does not turn it on
    assert user.signed_up_at is not None
    assert flavour(apps.server.users.get(user.id)) == user
    # The password works for signing in.
    result = flavour(apps.client().sign_in_with_password(email, PASSWORD))
    assert result.user_id == user.id


def test_create_with_nothing_gives_an_anonymous_shaped_user(flavour, apps):
    user = apps.new_user()
    assert user.primary_email is None and not user.has_password and user.display_name is None


def test_server_created_users_do_not_sign_in_with_email_unless_asked(flavour, apps):
    user = apps.new_user(primary_email=new_email())
    assert user.primary_email_auth_enabled is False


def test_password_hash_imports_a_bcrypt_hash(flavour, apps):
    email = new_email()
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds=4)).decode()
    user = apps.new_user(primary_email=email, primary_email_auth_enabled=True, password_hash=hashed)
    assert user.has_password
    assert flavour(apps.client().sign_in_with_password(email, PASSWORD)).user_id == user.id


def test_server_passwords_have_no_minimum_length(flavour, apps):
    assert apps.new_user(password="short").has_password
    client, _ = apps.signed_in()
    with pytest.raises(PasswordTooShort):  # unlike the user's own calls
        flavour(client.update_password(PASSWORD, "short"))


def test_update_changes_only_the_given_fields_and_none_clears(flavour, apps):
    users = apps.server.users
    user = apps.new_user(display_name="Before", client_metadata={"a": 1}, server_metadata={"s": 1})
    updated = flavour(users.update(user.id, display_name="After", server_metadata={"s": 2}))
    assert (updated.display_name, updated.client_metadata, updated.server_metadata) == ("After", {"a": 1}, {"s": 2})
    cleared = flavour(users.update(user.id, display_name=None, client_metadata=None))
    assert cleared.display_name is None and cleared.client_metadata is None and cleared.server_metadata == {"s": 2}


def test_update_primary_email_and_its_flags(flavour, apps):
    users = apps.server.users
    user = apps.new_user()
    email = new_email()
    user = flavour(
        users.update(user.id, primary_email=email, primary_email_verified=True, primary_email_auth_enabled=True)
    )
    assert (user.primary_email, user.primary_email_verified, user.primary_email_auth_enabled) == (email, True, True)
    # 2.7: a new address keeps the verified flag unless told otherwise; 2.8: it is a new,
    # unverified channel and the old one stays (service-api B5.3).
    other = new_email()
    user = flavour(users.update(user.id, primary_email=other))
    assert (user.primary_email, user.primary_email_verified) == (other, apps.live.api == "2.7")
    user = flavour(users.update(user.id, primary_email=None))
    assert user.primary_email is None


def test_update_password_and_removal(flavour, apps):
    users = apps.server.users
    email = new_email()
    user = apps.new_user(primary_email=email, primary_email_auth_enabled=True)
    assert flavour(users.update(user.id, password=PASSWORD)).has_password
    assert flavour(apps.client().sign_in_with_password(email, PASSWORD)).user_id == user.id
    assert not flavour(users.update(user.id, password=None)).has_password


def test_update_totp_turns_multi_factor_on_and_off(flavour, apps):
    users = apps.server.users
    user = apps.new_user()
    secret = base64.b64encode(b"1" * 20).decode()
    assert flavour(users.update(user.id, totp_secret_base64=secret)).is_multi_factor_required
    assert not flavour(users.update(user.id, totp_secret_base64=None)).is_multi_factor_required


def test_update_otp_and_passkey_flags(flavour, apps):
    users = apps.server.users
    user = apps.new_user(primary_email=new_email())
    assert flavour(users.update(user.id, passkey_auth_enabled=False)).passkey_auth_enabled is False


def test_selected_team_must_be_one_of_the_users_teams(flavour, apps):
    users, teams = apps.server.users, apps.server.teams
    user = apps.new_user()
    team = flavour(teams.create("Mine", creator_user_id=user.id))
    selected = flavour(users.update(user.id, selected_team_id=team.id))
    assert selected.selected_team_id == team.id and selected.selected_team is not None
    assert selected.selected_team.id == team.id
    other = flavour(teams.create("Not mine"))
    with pytest.raises(TeamMembershipNotFound):
        flavour(users.update(user.id, selected_team_id=other.id))
    assert flavour(users.update(user.id, selected_team_id=None)).selected_team_id is None


def test_delete_then_get_is_none(flavour, apps):
    users = apps.server.users
    user = apps.new_user()
    assert flavour(users.delete(user.id)) is None
    assert flavour(users.get(user.id)) is None
    assert flavour(apps.server.get_user(user.id)) is None


def test_unknown_users_raise_user_not_found(flavour, apps):
    users = apps.server.users
    missing = str(uuid.uuid4())
    assert flavour(users.get(missing)) is None
    with pytest.raises(UserNotFound) as info:
        flavour(users.update(missing, display_name="x"))
    assert info.value.code == "USER_NOT_FOUND" and info.value.status == 404
    with pytest.raises(UserNotFound):
        flavour(users.delete(missing))
    with pytest.raises(SchemaError):
        flavour(users.get("not-a-uuid"))


def test_an_email_used_for_sign_in_cannot_be_taken_twice(flavour, apps):
    email = new_email()
    apps.new_user(primary_email=email, primary_email_auth_enabled=True)
    with pytest.raises(UserEmailAlreadyExists):
        apps.new_user(primary_email=email, primary_email_auth_enabled=True)


def test_list_search_matches_name_email_and_id(flavour, apps):
    users = apps.server.users
    tag = uuid.uuid4().hex[:10]
    by_name = apps.new_user(display_name=f"Grace {tag.upper()} Hopper")
    by_email = apps.new_user(primary_email=f"{tag}@example.com")
    apps.new_user(display_name="unrelated")
    page = flavour(users.list(query=tag))
    assert isinstance(page, Page) and page.next_cursor is None
    assert {user.id for user in page.items} == {by_name.id, by_email.id}
    assert [user.id for user in flavour(users.list(query=by_name.id)).items] == [by_name.id]


def test_list_by_team(flavour, apps):
    users, teams = apps.server.users, apps.server.teams
    a, b = apps.new_user(), apps.new_user()
    team = flavour(teams.create("Listed", creator_user_id=a.id))
    flavour(teams.add_member(team.id, b.id))
    members = flavour(users.list(team_id=team.id)).items
    assert [user.id for user in members] == [a.id, b.id]
    assert [user.id for user in flavour(users.list(team_id=team.id, desc=True)).items] == [b.id, a.id]


def test_list_rejects_a_page_size_below_one(flavour, apps):
    with pytest.raises(ValueError, match="limit"):
        flavour(apps.server.users.list(limit=0))


def test_sessions_create_mints_a_working_session(flavour, apps):
    user = apps.new_user()
    pair = flavour(apps.server.sessions.create(user.id, expires_in_millis=60_000))
    assert isinstance(pair, TokenPair)
    assert "token" not in repr(pair).lower().replace("tokenpair", "")
    me = flavour(apps.client(access_token=pair.access_token, refresh_token=pair.refresh_token).get_user())
    assert me.id == user.id


def test_sessions_for_unknown_users(flavour, apps):
    with pytest.raises(UserIdDoesNotExist) as info:
        flavour(apps.server.sessions.create(str(uuid.uuid4())))
    assert info.value.status == 400


def test_client_metadata_is_all_the_client_may_write(flavour, apps):
    client, user_id = apps.signed_in()
    flavour(apps.server.users.update(user_id, client_read_only_metadata={"plan": "pro"}, server_metadata={"s": 1}))
    user = flavour(client.update_user(client_metadata={"theme": "dark"}))
    assert user.client_metadata == {"theme": "dark"} and user.client_read_only_metadata == {"plan": "pro"}
    assert not hasattr(user, "server_metadata")  # the client view has none
    server_view = flavour(apps.server.users.get(user_id))
    assert (server_view.client_metadata, server_view.server_metadata) == ({"theme": "dark"}, {"s": 1})
    with pytest.raises(TypeError):
        flavour(client.update_user(server_metadata={"s": 2}))  # not a parameter of the client call
