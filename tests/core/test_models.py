from __future__ import annotations

import datetime as dt

from hypothesis import given, settings, strategies as st

from authmw.models import Project, ServerTeam, ServerUser, SignInResult, TokenPair, User

# GET /users/me, client tier, as observed (service-api A5.2)
CLIENT_USER = {
    "auth_with_email": True,
    "client_metadata": None,
    "client_read_only_metadata": None,
    "display_name": None,
    "has_password": False,
    "id": "5f0e4f9a-2f5e-4a35-9d8e-0c6a2b7d1e11",
    "oauth_providers": [{"id": "github", "account_id": "42", "email": None}],
    "otp_auth_enabled": True,
    "passkey_auth_enabled": False,
    "primary_email": "a@b.example.com",
    "primary_email_verified": True,
    "profile_image_url": None,
    "requires_totp_mfa": True,
    "selected_team": {
        "id": "t1",
        "display_name": "",
        "profile_image_url": None,
        "client_metadata": None,
        "client_read_only_metadata": None,
    },
    "selected_team_id": "t1",
    "signed_up_at_millis": 1738000000000,
}


def test_client_user_from_the_wire():
    user = User.model_validate(CLIENT_USER)
    assert user.signed_up_at == dt.datetime(2025, 1, 27, 17, 46, 40, tzinfo=dt.timezone.utc)
    assert user.email_auth_enabled is True and user.is_multi_factor_required is True
    assert user.oauth_providers[0].account_id == "42"
    assert user.selected_team is not None and user.selected_team.id == "t1"


def test_server_user_adds_server_fields():
    user = ServerUser.model_validate(
        {
            **CLIENT_USER,
            "server_metadata": {"role": "x"},
            "last_active_at_millis": 1738000001000,
            "primary_email_auth_enabled": True,
            "selected_team": {**CLIENT_USER["selected_team"], "created_at_millis": 0, "server_metadata": None},
        }
    )
    assert user.server_metadata == {"role": "x"} and user.primary_email_auth_enabled
    assert user.last_active_at is not None and user.last_active_at > user.signed_up_at
    assert isinstance(user.selected_team, ServerTeam)
    assert user.selected_team.created_at == dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def test_unknown_fields_are_ignored_and_missing_optional_ones_defaulted():
    user = User.model_validate({"id": "u", "a_future_field": [1, 2]})
    assert user.display_name is None and user.oauth_providers == [] and user.has_password is False
    assert not hasattr(user, "a_future_field")


def test_models_can_be_built_by_python_name():
    assert User(id="u", email_auth_enabled=True, is_multi_factor_required=True).is_multi_factor_required


def test_sign_in_results():
    password = SignInResult.model_validate({"access_token": "a", "refresh_token": "r", "user_id": "u"})
    assert password.is_new_user is None
    otp = SignInResult.model_validate({"access_token": "a", "refresh_token": "r", "user_id": "u", "is_new_user": True})
    assert otp.is_new_user is True
    pair = TokenPair.model_validate({"access_token": "secret-a", "refresh_token": "secret-r"})
    assert "secret" not in repr(pair) and "secret" not in str(pair)


def test_client_project_reads_enabled_oauth_providers():
    project = Project.model_validate(
        {
            "id": "p",
            "display_name": "Demo",
            "config": {
                "sign_up_enabled": False,
                "credential_enabled": True,
                "magic_link_enabled": True,
                "passkey_enabled": False,
                "client_team_creation_enabled": False,
                "client_user_deletion_enabled": True,
                "enabled_oauth_providers": [{"id": "google"}],
            },
        }
    )
    assert project.config.sign_up_enabled is False and project.config.client_user_deletion_enabled
    assert [p.id for p in project.config.oauth_providers] == ["google"]


@settings(deadline=None)  # pure CPU: a loaded machine must not fail it
@given(st.dictionaries(st.sampled_from(list(CLIENT_USER)), st.integers() | st.text() | st.none(), max_size=5))
def test_any_wire_dict_validates_or_raises_a_validation_error(changes):
    from pydantic import ValidationError

    try:
        User.model_validate({**CLIENT_USER, **changes})
    except ValidationError:
        pass
