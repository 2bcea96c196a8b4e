"""Config overrides (API 2.8): PATCH /internal/config/override/{level} with the admin key.

A fresh service per module: the overrides change the local project's settings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    with LocalService(tmp_path_factory.mktemp("config-override"), quiet=True, api="2.8") as service:
        yield service


@pytest.fixture(scope="module")
def api(running: LocalService) -> Api:
    return Api.of(running)


def override(api: Api, level: str, config: Any, tier: str = "admin", prefix: str = "/api/v1") -> httpx.Response:
    return api.http.patch(
        f"{prefix}/internal/config/override/{level}",
        headers=api.headers(tier),
        json={"config_override_string": json.dumps(config)},
    )


def config(api: Api) -> dict[str, Any]:
    response = api.call("GET", "/internal/projects/current", "admin")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["config"]
    return result


def test_requiring_email_verification_restricts_unverified_users(api: Api) -> None:
    r = override(api, "environment", {"onboarding": {"requireEmailVerification": True}})
    assert r.status_code == 200, r.text
    assert r.json() == {"success": True}
    created = api.call("POST", "/users", "server", json={"primary_email": unique_email()})
    assert created.status_code == 201, created.text
    assert created.json()["is_restricted"] is True
    assert created.json()["restricted_reason"] == {"type": "email_not_verified"}

    # null puts the local default back: nobody is restricted for an unverified e-mail
    assert override(api, "environment", {"onboarding.requireEmailVerification": None}).status_code == 200
    again = api.call("GET", f"/users/{created.json()['id']}", "server").json()
    assert again["is_restricted"] is False and again["restricted_reason"] is None


def test_dotted_and_nested_keys_and_the_latest_prefix(api: Api) -> None:
    r = override(
        api,
        "branch",
        {"auth.otp.allowSignIn": False, "apiKeys": {"enabled": {"user": True}}, "auth": {"allowSignUp": False}},
        prefix="/api/latest",
    )
    assert r.status_code == 200, r.text
    after = config(api)
    assert (after["magic_link_enabled"], after["allow_user_api_keys"], after["sign_up_enabled"]) == (False, True, False)
    # the change is the project's: sign-up is refused to clients now
    refused = api.call(
        "POST",
        "/auth/password/sign-up",
        json={"email": unique_email(), "password": "correct horse", "verification_callback_url": "http://localhost/v"},
    )
    assert_known_error(refused, "SIGN_UP_NOT_ENABLED", 400)
    assert override(api, "branch", {"auth.allowSignUp": True, "auth.otp.allowSignIn": True}).status_code == 200
    assert config(api)["sign_up_enabled"] is True
    unchanged = config(api)
    assert override(api, "environment", {"onboarding": {}, "teams": {}}).status_code == 200
    assert config(api) == unchanged


def test_each_key_belongs_to_its_level(api: Api) -> None:
    without_key = {"x-stack-project-id": api.project_id, "x-stack-access-type": "client"}
    assert_known_error(
        api.http.get("/api/v1/projects/current", headers=without_key), "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401
    )
    r = override(api, "project", {"project": {"requirePublishableClientKey": False}})
    assert r.status_code == 200, r.text
    assert api.http.get("/api/v1/projects/current", headers=without_key).status_code == 200
    assert override(api, "project", {"project.requirePublishableClientKey": True}).status_code == 200

    wrong = override(api, "environment", {"project.requirePublishableClientKey": False})
    assert wrong.status_code == 400
    assert "'project.requirePublishableClientKey' cannot be overridden at the environment level" in wrong.text
    assert "project level" in wrong.text
    localhost = override(api, "branch", {"domains.allowLocalhost": False})
    assert localhost.status_code == 400 and "use the environment level" in localhost.text
    assert api.http.get("/api/v1/projects/current", headers=without_key).status_code == 401
    assert config(api)["allow_localhost"] is True


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{not json", "Invalid config JSON"),
        ("[1, 2]", "must hold a JSON object"),
        (json.dumps({"rbac": {"permissions": {"read": {}}}}), "'rbac.permissions.read' is not supported"),
        (json.dumps({"teams": {}, "users": {"allowClientUserDeletion": 1}}), "must be a boolean, not 1"),
        (json.dumps({"onboarding.requireEmailVerification": "yes"}), "must be a boolean, not \"yes\""),
        (json.dumps({"auth.oauth.accountMergeStrategy": "merge"}), "must be one of link_method, raise_error"),
    ],
)
def test_bad_overrides_are_refused_naming_the_problem(api: Api, body: str, message: str) -> None:
    before = config(api)
    r = api.http.patch(
        "/api/v1/internal/config/override/environment",
        headers=api.headers("admin"),
        json={"config_override_string": body},
    )
    assert r.status_code == 400
    assert message in r.text
    assert config(api) == before


def test_unknown_key_error_lists_what_is_supported(api: Api) -> None:
    r = override(api, "environment", {"emails": {"server": {"isShared": False}}})
    assert r.status_code == 400
    assert "onboarding.requireEmailVerification" in r.text and "PATCH /api/v1/internal/projects/current" in r.text


def test_request_shape_is_checked(api: Api) -> None:
    bad_level = override(api, "tenant", {})
    assert_known_error(bad_level, "SCHEMA_ERROR", 400)
    missing = api.http.patch(
        "/api/v1/internal/config/override/environment", headers=api.headers("admin"), json={"config_string": "{}"}
    )
    assert_known_error(missing, "SCHEMA_ERROR", 400)


def test_only_the_admin_tier_changes_the_config(api: Api) -> None:
    before = config(api)
    change = {"onboarding.requireEmailVerification": True}
    assert_known_error(override(api, "environment", change, tier="server"), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert_known_error(override(api, "environment", change, tier="client"), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert config(api) == before


def test_one_projects_admin_key_cannot_change_another_project(running: LocalService, api: Api) -> None:
    internal = Api.of(running, running.bootstrap.internal)
    before = config(internal)
    # The attack: the local project's admin key, sent as if it were the internal project's.
    headers = {**internal.headers("admin"), "x-stack-super-secret-admin-key": api.keys.super_secret_admin_key}
    attack = internal.http.patch(
        "/api/v1/internal/config/override/environment",
        headers=headers,
        json={"config_override_string": json.dumps({"auth.allowSignUp": False})},
    )
    assert_known_error(attack, "INVALID_SUPER_SECRET_ADMIN_KEY", 401)
    assert config(internal) == before
    # The control: the internal project's own admin key changes the internal project only.
    assert override(internal, "environment", {"users.allowClientUserDeletion": True}).status_code == 200
    assert config(internal)["client_user_deletion_enabled"] is True
    assert config(api)["client_user_deletion_enabled"] is False
    assert override(internal, "environment", {"users.allowClientUserDeletion": None}).status_code == 200


def test_answering_as_27_there_is_no_such_endpoint(api_27: Api) -> None:
    r = override(api_27, "environment", {"onboarding.requireEmailVerification": True})
    assert r.status_code == 404
