"""The current project: views and admin updates (service-api A5.2, A5.8)."""

from __future__ import annotations

import pytest

from .conftest import Api, assert_known_error

#: API 2.7's project views and admin routes (2.8's: test_api_28_users.py).
API_VERSION = "2.7"


def test_client_view_of_the_local_project_has_every_method_on(api: Api) -> None:
    project = api.call("GET", "/projects/current").json()
    assert project == {
        "id": api.project_id,
        "display_name": "authmw local project",
        "config": {
            "sign_up_enabled": True,
            "credential_enabled": True,
            "magic_link_enabled": True,
            "passkey_enabled": True,
            "client_team_creation_enabled": False,
            "client_user_deletion_enabled": False,
            "enabled_oauth_providers": [{"id": "github"}, {"id": "google"}],
        },
    }
    admin = api.call("GET", "/projects/current", "admin").json()["config"]
    assert admin["oauth_providers"] == [
        {"id": "github", "type": "shared", "enabled": True},
        {"id": "google", "type": "shared", "enabled": True},
    ]


def test_admin_view_has_the_defaults_of_a_new_project(internal_api: Api) -> None:
    # The internal project is created like any later project: with the contract's defaults.
    project = internal_api.call("GET", "/projects/current", "admin").json()
    assert project["description"] == ""
    assert project["is_production_mode"] is False
    assert isinstance(project["created_at_millis"], int) and isinstance(project["user_count"], int)
    config = project["config"]
    assert config.pop("id")
    assert config == {
        "allow_localhost": True,
        "sign_up_enabled": True,
        "credential_enabled": True,
        "magic_link_enabled": False,
        "passkey_enabled": False,
        "legacy_global_jwt_signing": False,
        "client_team_creation_enabled": False,
        "client_user_deletion_enabled": False,
        "create_team_on_sign_up": False,
        "oauth_providers": [],
        "enabled_oauth_providers": [],
        "domains": [],
        "email_config": {"type": "shared"},
        "team_creator_default_permissions": [{"id": "admin"}],
        "team_member_default_permissions": [{"id": "member"}],
    }


def test_admin_updates_names_flags_and_domains(api: Api, project_config) -> None:
    project_config(magic_link_enabled=True, domains=[{"domain": "https://app.example.com", "handler_path": "/handler"}])
    response = api.call("PATCH", "/projects/current", "admin", json={"display_name": "Renamed", "description": None})
    try:
        assert response.status_code == 200
        project = response.json()
        assert (project["display_name"], project["description"]) == ("Renamed", "")
        assert project["config"]["magic_link_enabled"] is True
        assert project["config"]["domains"] == [{"domain": "https://app.example.com", "handler_path": "/handler"}]
        assert api.call("GET", "/projects/current").json()["config"]["magic_link_enabled"] is True
    finally:
        api.call("PATCH", "/projects/current", "admin", json={"display_name": "authmw local project"})


def test_update_validation(api: Api) -> None:
    def patch(body):
        return api.call("PATCH", "/projects/current", "admin", json=body)

    body = assert_known_error(patch({"config": {"sign_up_enabled": "yes", "colour": 1}}), "SCHEMA_ERROR", 400)
    assert "body.config contains unknown properties: colour" in body["error"]
    assert "body.config.sign_up_enabled must be a `boolean` type" in body["error"]
    body = assert_known_error(
        patch({"config": {"domains": [{"domain": "ftp://x.example.com", "handler_path": "/h"}]}}), "SCHEMA_ERROR", 400
    )
    assert body["error"].endswith(":\n  - URL must start with http:// or https://")  # no field path, as the service
    duplicated = patch({"config": {"domains": [{"domain": "https://a.example.com", "handler_path": "/h"}] * 2}})
    assert (duplicated.status_code, duplicated.text) == (400, "Duplicated domain found")
    bad_permission = patch({"config": {"team_member_default_permissions": [{"id": "nope"}]}})
    assert (bad_permission.status_code, bad_permission.text) == (400, "Invalid team default permission ids")
    body = assert_known_error(
        patch({"config": {"email_config": {"type": "standard", "host": "smtp"}}}), "SCHEMA_ERROR", 400
    )
    assert "body.config.email_config.port must be defined" in body["error"]
    empty = patch(
        {
            "config": {
                "email_config": {
                    "type": "standard",
                    "host": "",
                    "port": 25,
                    "username": "u",
                    "password": "p",
                    "sender_name": "n",
                    "sender_email": "n@example.com",
                }
            }
        }
    )
    assert assert_known_error(empty, "SCHEMA_ERROR", 400)["error"].endswith(
        ":\n  - body.config.email_config.host must not be empty"
    )
    secretless = patch(
        {
            "config": {
                "oauth_providers": [
                    {"id": "github", "type": "standard", "enabled": True, "client_id": "i", "client_secret": ""}
                ]
            }
        }
    )
    assert assert_known_error(secretless, "SCHEMA_ERROR", 400)["error"].endswith(
        ":\n  - body.config.oauth_providers[0].client_secret must not be empty"
    )
    assert (
        "body.config.legacy_global_jwt_signing"
        in assert_known_error(patch({"config": {"legacy_global_jwt_signing": True}}), "SCHEMA_ERROR", 400)["error"]
    )


def test_shared_oauth_keys_only_for_some_providers(api: Api) -> None:
    response = api.call(
        "PATCH",
        "/projects/current",
        "admin",
        json={
            "config": {
                "oauth_providers": [
                    {"id": "github", "type": "shared", "enabled": True},
                    {"id": "google", "type": "shared", "enabled": True},
                    {"id": "apple", "type": "shared", "enabled": True},
                ]
            }
        },
    )
    body = assert_known_error(response, "INVALID_SHARED_OAUTH_PROVIDER_ID", 400)
    assert body["details"] == {"provider_id": "apple"}


def test_only_admins_update_the_project(api: Api) -> None:
    for tier in ("client", "server"):
        response = api.call("PATCH", "/projects/current", tier, json={"display_name": "x"})
        assert_known_error(response, "INSUFFICIENT_ACCESS_TYPE", 401)


def test_an_update_leaving_a_provider_out_is_refused_by_2_7_and_disables_it_in_2_8(api_27: Api, api_28: Api) -> None:
    github = {"id": "github", "type": "shared", "enabled": True}
    refused = api_27.call("PATCH", api_27.admin_project_path, "admin", json={"config": {"oauth_providers": [github]}})
    assert (refused.status_code, refused.text) == (400, "Provider with id 'google' not found in the update")
    path = api_28.admin_project_path
    try:
        only_github = {"config": {"oauth_providers": [{"id": "github", "type": "shared"}]}}
        left_out = api_28.call("PATCH", path, "admin", json=only_github)
        assert left_out.status_code == 200, left_out.text
        assert [p["id"] for p in left_out.json()["config"]["oauth_providers"]] == ["github"]
        client = api_28.call("GET", "/projects/current", "client").json()["config"]
        assert [p["id"] for p in client["enabled_oauth_providers"]] == ["github"]
    finally:  # the local project's start value
        api_28.set_config(oauth_providers=[{"id": p, "type": "shared"} for p in ("github", "google")])


@pytest.mark.parametrize("version", ["2.8", "2.7"])
def test_one_domain_listed_twice(api_27: Api, api_28: Api, version: str) -> None:
    """2.8.86 keeps trusted domains as a record under fresh ids, so two entries for one domain
    are both kept (and either trusts the URL); 2.7.16 refused them."""
    api = api_28 if version == "2.8" else api_27
    twice = [
        {"domain": "https://twice.example.com", "handler_path": "/handler"},
        {"domain": "https://twice.example.com", "handler_path": "/other-handler"},
    ]
    before = api.call("GET", api.admin_project_path, "admin").json()["config"]
    response = api.call("PATCH", api.admin_project_path, "admin", json={"config": {"domains": twice}})
    try:
        if version == "2.7":
            assert (response.status_code, response.text) == (400, "Duplicated domain found")
            return
        assert response.status_code == 200, response.text
        assert response.json()["config"]["domains"] == twice
        assert api.call("GET", api.admin_project_path, "admin").json()["config"]["domains"] == twice
    finally:
        api.set_config(domains=before["domains"])
