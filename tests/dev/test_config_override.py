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
        api.http.get("/api/v1/projects/current", headers=without_key),
        "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT",
        401,
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
        (json.dumps({"onboarding.requireEmailVerification": "yes"}), 'must be a boolean, not "yes"'),
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


def test_hostile_config_strings_are_refused_not_crashes(api: Api) -> None:
    # The attack: a config string nested deeper than Python's parser goes, or naming a key with
    # a lone UTF-16 surrogate (echoed in the error), was a 500 (the server key reaches the
    # branch level).
    before = config(api)
    deep = "[" * 100_000 + "]" * 100_000
    for tier in ("server", "admin"):
        path, body = "/api/v1/internal/config/override/branch", {"config_override_string": deep}
        answer = api.http.patch(path, headers=api.headers(tier), json=body)
        assert (answer.status_code, answer.text) == (400, "Invalid config JSON")
    lone = put(api, "branch", {"auth.signUpRules.r\ud800": {}}, {"type": "unlinked"}, "server")
    assert lone.status_code == 400, lone.text
    assert "r\ufffd" in lone.text
    assert config(api) == before
    # The control: the server key changes a branch setting.
    unlinked = {"type": "unlinked"}
    assert put(api, "branch", {"teams.allowClientTeamCreation": True}, unlinked, "server").status_code == 200
    assert config(api)["client_team_creation_enabled"] is True
    assert put(api, "branch", {}, unlinked, "server").status_code == 200


def test_unknown_key_error_lists_what_is_supported(api: Api) -> None:
    r = override(api, "environment", {"payments": {"testMode": True}})
    assert r.status_code == 400
    assert "onboarding.requireEmailVerification" in r.text and "PATCH /api/v1/internal/projects/current" in r.text


@pytest.mark.parametrize(
    ("change", "missing"),
    [
        ({"nonExistentField": "some-value"}, "nonExistentField"),
        ({"auth": {"magic": True}}, "auth.magic"),
        ({"apiKeys.enabled.robot": True}, "apiKeys.enabled.robot"),
        ({"teams.allowClientTeamCreation.always": True}, "teams.allowClientTeamCreation.always"),
    ],
)
def test_a_key_the_backend_does_not_have_is_refused_in_its_words(api: Api, change: Any, missing: str) -> None:
    before = config(api)
    r = override(api, "environment", change)
    key = next(iter(normalized_keys(change)))
    assert (r.status_code, r.text) == (
        400,
        f'The key "{key}" is not valid (nested object not found in schema: "{missing}").',
    )
    assert config(api) == before
    # the control: a key of the backend's schema the local service does not keep names what it keeps
    kept_elsewhere = override(api, "environment", {"payments.testMode": True})
    assert kept_elsewhere.status_code == 400 and "onboarding.requireEmailVerification" in kept_elsewhere.text


def normalized_keys(change: dict[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for name, value in change.items():
        path = prefix + name
        keys += normalized_keys(value, path + ".") if isinstance(value, dict) else [path]
    return keys


def test_request_shape_is_checked(api: Api) -> None:
    bad_level = override(api, "tenant", {})
    assert_known_error(bad_level, "SCHEMA_ERROR", 400)
    missing = api.http.patch(
        "/api/v1/internal/config/override/environment", headers=api.headers("admin"), json={"config_string": "{}"}
    )
    assert_known_error(missing, "SCHEMA_ERROR", 400)


def test_only_the_admin_tier_changes_the_config(api: Api) -> None:
    """As 2.8.86: the server key manages the branch level only (403 elsewhere); the client key
    none (401)."""
    before = config(api)
    change = {"onboarding.requireEmailVerification": True}
    refused = override(api, "environment", change, tier="server")
    assert refused.status_code == 403, refused.text
    assert "branch" in refused.text
    assert_known_error(override(api, "environment", change, tier="client"), "INSUFFICIENT_ACCESS_TYPE", 401)
    assert_known_error(override(api, "branch", change, tier="client"), "INSUFFICIENT_ACCESS_TYPE", 401)
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
    admin = api_27.headers("admin")
    assert api_27.http.get("/api/v1/internal/config/override/branch", headers=admin).status_code == 404
    put_27 = api_27.http.put("/api/v1/internal/config/override/environment", headers=admin, json={"config_string": "{}"})
    assert put_27.status_code == 404
    for method in ("GET", "DELETE"):
        assert api_27.http.request(method, "/api/v1/internal/config/source", headers=admin).status_code == 404
    assert api_27.call("POST", "/internal/sign-up-rules-test", "admin", json={}).status_code == 404


# --- the three levels as 2.8.86 keeps them: GET and PUT per level, reset-keys, the pushed source


def level(api: Api, name: str, tier: str = "admin") -> dict[str, Any]:
    response = api.http.get(f"/api/v1/internal/config/override/{name}", headers=api.headers(tier))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = json.loads(response.json()["config_string"])
    return result


def put(api: Api, name: str, config: Any, source: Any = None, tier: str = "admin") -> httpx.Response:
    body: dict[str, Any] = {"config_string": json.dumps(config)}
    if source is not None:
        body["source"] = source
    return api.http.put(f"/api/v1/internal/config/override/{name}", headers=api.headers(tier), json=body)


def reset(api: Api, name: str, keys: list[str]) -> httpx.Response:
    return api.http.post(
        f"/api/v1/internal/config/override/{name}/reset-keys", headers=api.headers("admin"), json={"keys": keys}
    )


def source(api: Api) -> dict[str, Any]:
    response = api.http.get("/api/v1/internal/config/source", headers=api.headers("admin"))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["source"]
    return result


UNLINKED = {"type": "unlinked"}


@pytest.fixture
def blank(api: Api) -> Api:
    """The project with empty branch and environment overrides (the earlier tests' values gone)."""
    assert put(api, "branch", {}, UNLINKED).status_code == 200
    assert put(api, "environment", {}).status_code == 200
    assert level(api, "branch") == {} and level(api, "environment") == {}
    return api


def test_each_level_keeps_its_own_override(blank: Api) -> None:
    api = blank
    assert override(api, "branch", {"teams": {"allowClientTeamCreation": True}}).status_code == 200
    assert level(api, "branch") == {"teams.allowClientTeamCreation": True}
    assert level(api, "environment") == {}
    assert override(api, "branch", {"users.allowClientUserDeletion": True}).status_code == 200
    assert level(api, "branch") == {"teams.allowClientTeamCreation": True, "users.allowClientUserDeletion": True}
    assert config(api)["client_team_creation_enabled"] is True


def test_put_replaces_a_level_and_what_it_no_longer_names_goes_back(blank: Api) -> None:
    api = blank
    assert override(api, "environment", {"users.allowClientUserDeletion": True}).status_code == 200
    pushed = {"teams.allowClientTeamCreation": True, "teams.createPersonalTeamOnSignUp": True}
    assert put(api, "branch", pushed, UNLINKED).status_code == 200
    after = config(api)
    assert (after["client_team_creation_enabled"], after["create_team_on_sign_up"]) == (True, True)
    replaced = put(api, "branch", {"auth.passkey.allowSignIn": True}, UNLINKED)
    assert replaced.status_code == 200 and replaced.json() == {"success": True}
    assert level(api, "branch") == {"auth.passkey.allowSignIn": True}
    after = config(api)
    assert (after["client_team_creation_enabled"], after["create_team_on_sign_up"]) == (False, False)
    assert after["passkey_enabled"] is True
    assert after["client_user_deletion_enabled"] is True  # the environment's value stays
    rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
    assert (
        rendered["teams"]["allowClientTeamCreation"] is False and rendered["users"]["allowClientUserDeletion"] is True
    )


def test_the_environment_wins_over_the_branch_until_its_key_is_reset(blank: Api) -> None:
    api = blank
    assert put(api, "branch", {"teams.allowClientTeamCreation": True}, UNLINKED).status_code == 200
    assert override(api, "environment", {"teams.allowClientTeamCreation": False}).status_code == 200
    assert config(api)["client_team_creation_enabled"] is False
    # a branch change under an environment value does not show
    assert override(api, "branch", {"teams.allowClientTeamCreation": True}).status_code == 200
    assert config(api)["client_team_creation_enabled"] is False
    assert reset(api, "environment", ["teams.allowClientTeamCreation"]).json() == {"success": True}
    assert level(api, "environment") == {}
    assert config(api)["client_team_creation_enabled"] is True
    # null in the environment hides the branch's value: the default applies
    assert override(api, "environment", {"teams.allowClientTeamCreation": None}).status_code == 200
    assert level(api, "environment") == {"teams.allowClientTeamCreation": None}
    assert config(api)["client_team_creation_enabled"] is False


def test_reset_keys_takes_out_a_key_and_what_is_under_it(blank: Api) -> None:
    api = blank
    both = {"teams.allowClientTeamCreation": True, "teams.createPersonalTeamOnSignUp": True}
    assert override(api, "environment", {**both, "users.allowClientUserDeletion": True}).status_code == 200
    unchanged = level(api, "environment")
    for keys in ([], ["nonExistent.key"]):  # nothing to take out: nothing changes, no error
        assert reset(api, "environment", keys).status_code == 200
        assert level(api, "environment") == unchanged
    assert reset(api, "environment", ["teams"]).status_code == 200
    assert level(api, "environment") == {"users.allowClientUserDeletion": True}
    after = config(api)
    assert (after["client_team_creation_enabled"], after["create_team_on_sign_up"]) == (False, False)
    assert after["client_user_deletion_enabled"] is True


def test_a_provider_set_as_a_nested_object_is_reset_whole(blank: Api) -> None:
    api = blank
    google = {"type": "google", "isShared": False, "clientId": "id", "clientSecret": "secret", "allowSignIn": True}
    r = override(
        api,
        "environment",
        {"auth": {"oauth": {"providers": {"google": google}}}, "teams.allowClientTeamCreation": True},
    )
    assert r.status_code == 200, r.text
    before = [p["id"] for p in config(api)["oauth_providers"] if p["id"] != "google"]
    assert [p["id"] for p in config(api)["oauth_providers"]] == [*before, "google"]
    assert reset(api, "environment", ["auth.oauth.providers.google"]).status_code == 200
    assert [p["id"] for p in config(api)["oauth_providers"]] == before  # providers set elsewhere stay
    assert level(api, "environment") == {"teams.allowClientTeamCreation": True}


def test_settings_changed_on_the_project_survive_other_override_writes(blank: Api) -> None:
    api = blank
    api.set_config(magic_link_enabled=True)
    assert put(api, "branch", {"teams.allowClientTeamCreation": True}, UNLINKED).status_code == 200
    assert reset(api, "branch", ["teams"]).status_code == 200
    assert config(api)["magic_link_enabled"] is True
    api.set_config(magic_link_enabled=False)


def test_the_branch_remembers_where_it_was_pushed_from(blank: Api) -> None:
    api = blank
    assert source(api) == UNLINKED
    github = {
        "type": "pushed-from-github",
        "owner": "org",
        "repo": "repo",
        "branch": "main",
        "commit_hash": "abc123",
        "config_file_path": "stack.config.ts",
    }
    assert put(api, "branch", {"teams.allowClientTeamCreation": True}, github).status_code == 200
    assert source(api) == github
    assert override(api, "branch", {"users.allowClientUserDeletion": True}).status_code == 200
    assert source(api) == github  # a PATCH keeps it
    assert put(api, "environment", {}).status_code == 200  # so does the environment level
    assert source(api) == github
    assert put(api, "branch", {}, {"type": "pushed-from-unknown"}).status_code == 200
    assert source(api) == {"type": "pushed-from-unknown"}
    unlinked = api.http.delete("/api/v1/internal/config/source", headers=api.headers("admin"))
    assert unlinked.status_code == 200 and unlinked.json() == {"success": True}
    assert source(api) == UNLINKED
    for tier in ("client", "server"):
        denied = api.http.get("/api/v1/internal/config/source", headers=api.headers(tier))
        assert_known_error(denied, "INSUFFICIENT_ACCESS_TYPE", 401)


@pytest.mark.parametrize(
    ("source_body", "message"),
    [
        (None, "source is required for branch level config"),
        ({"type": "somewhere"}, "body.source.type"),
        ({"type": "pushed-from-github", "owner": "org", "repo": "repo"}, "branch, commit_hash, config_file_path"),
    ],
)
def test_a_push_to_the_branch_names_a_valid_source(blank: Api, source_body: Any, message: str) -> None:
    r = put(blank, "branch", {"teams.allowClientTeamCreation": True}, source_body)
    assert r.status_code == 400 and message in r.text
    assert level(blank, "branch") == {}
    assert put(blank, "branch", {"x": {"y": 1}}, UNLINKED).status_code == 400  # the config is checked too
    assert put(blank, "branch", "{not json", UNLINKED).status_code == 400


def test_the_server_key_manages_the_branch_level_only(blank: Api) -> None:
    api = blank
    assert put(api, "branch", {"teams.allowClientTeamCreation": True}, UNLINKED, tier="server").status_code == 200
    assert level(api, "branch", tier="server") == {"teams.allowClientTeamCreation": True}
    for name in ("environment", "project"):
        refused = api.http.get(f"/api/v1/internal/config/override/{name}", headers=api.headers("server"))
        assert refused.status_code == 403 and "branch" in refused.text
        assert put(api, name, {}, tier="server").status_code == 403
    client = api.http.get("/api/v1/internal/config/override/branch", headers=api.headers("client"))
    assert_known_error(client, "INSUFFICIENT_ACCESS_TYPE", 401)


def test_domains_and_provider_credentials_belong_to_the_environment(blank: Api) -> None:
    api = blank
    domain = {"domains.trustedDomains.mine": {"baseUrl": "https://example.com", "handlerPath": "/handler"}}
    google = {"type": "google", "isShared": False, "clientId": "id", "clientSecret": "secret", "allowSignIn": True}
    for name in ("branch", "project"):
        refused = override(api, name, domain)
        assert refused.status_code == 400 and "'domains.trustedDomains.mine'" in refused.text
        assert "use the environment level" in refused.text
    secret = override(api, "branch", {"auth.oauth.providers.google": google})
    assert secret.status_code == 400 and "'auth.oauth.providers.google.clientId'" in secret.text
    one_field = override(api, "branch", {"auth.oauth.providers.google.clientSecret": "s"})
    assert one_field.status_code == 400 and "auth.oauth.providers.google.clientSecret" in one_field.text
    assert level(api, "branch") == {}
    # the controls: the environment takes both
    assert override(api, "environment", {**domain, "auth.oauth.providers.google": google}).status_code == 200
    assert (
        override(
            api, "environment", {"domains.trustedDomains.mine": None, "auth.oauth.providers.google": None}
        ).status_code
        == 200
    )


def test_an_unknown_provider_type_is_refused_in_2_8_86s_words(blank: Api) -> None:
    bad = {"type": "invalid-provider", "isShared": False, "clientId": "id", "clientSecret": "secret"}
    refused = override(blank, "environment", {"auth.oauth.providers.invalid": bad})
    assert refused.status_code == 400
    assert refused.text.startswith("auth.oauth.providers.invalid.type must be one of the following values: google,")
    assert refused.text.endswith(", apple, x, twitch")
    assert level(blank, "environment") == {}


def test_a_dotted_field_of_a_domain_record_that_does_not_exist_sets_nothing(blank: Api) -> None:
    api = blank
    before = config(api)["domains"]
    dotted = {"domains.trustedDomains.two.baseUrl": "https://two.example.com", "domains.trustedDomains.two.handlerPath": "/h"}
    assert override(api, "environment", dotted).status_code == 200
    assert config(api)["domains"] == before
    # the control: a whole record is one, and its fields then change it
    whole = {"domains": {"trustedDomains": {"three": {"baseUrl": "https://three.example.com", "handlerPath": "/n"}}}}
    assert override(api, "environment", whole).status_code == 200
    assert override(api, "environment", {"domains.trustedDomains.three.handlerPath": "/m"}).status_code == 200
    assert config(api)["domains"] == [*before, {"domain": "https://three.example.com", "handler_path": "/m"}]
    rendered = json.loads(api.call("GET", "/internal/config", "admin").json()["config_string"])
    assert rendered["domains"]["trustedDomains"]["three"] == {"baseUrl": "https://three.example.com", "handlerPath": "/m"}
    assert "two" not in rendered["domains"]["trustedDomains"]
    assert put(api, "environment", {}).status_code == 200
    assert config(api)["domains"] == before


# --- 2.8's apps (`apps.installed.<id>.enabled`): the dashboard's switches, kept per project


def rendered_apps(api: Api) -> dict[str, Any]:
    response = api.call("GET", "/internal/config", "admin")
    assert response.status_code == 200, response.text
    apps: dict[str, Any] = json.loads(response.json()["config_string"])["apps"]["installed"]
    return apps


def test_an_app_switch_survives_a_project_update_of_the_setting_it_sits_next_to(blank: Api) -> None:
    api = blank
    apps = rendered_apps(api)
    # as a project made through 2.8.86's API: authentication and e-mails on, every other app off
    assert apps["authentication"] == {"enabled": True} and apps["emails"] == {"enabled": True}
    assert apps["api-keys"] == {"enabled": False} and len(apps) == 18
    assert override(api, "branch", {"apps.installed.api-keys": {"enabled": True}}).status_code == 200
    assert rendered_apps(api)["api-keys"] == {"enabled": True}
    assert level(api, "branch") == {"apps.installed.api-keys.enabled": True}

    updated = api.call("PATCH", "/internal/projects/current", "admin", json={"config": {"allow_user_api_keys": True}})
    assert updated.status_code == 200, updated.text
    assert updated.json()["config"]["allow_user_api_keys"] is True
    assert rendered_apps(api)["api-keys"] == {"enabled": True}
    # the control: the switch does turn off again, and an app the backend does not have is refused
    assert override(api, "branch", {"apps": {"installed": {"api-keys": {"enabled": False}}}}).status_code == 200
    assert rendered_apps(api)["api-keys"] == {"enabled": False}
    unknown = override(api, "branch", {"apps.installed.chess.enabled": True})
    assert unknown.status_code == 400 and "apps.installed.chess.enabled" in unknown.text
    assert "apps.installed.<app id>.enabled" in unknown.text
    not_boolean = override(api, "branch", {"apps.installed.teams.enabled": "yes"})
    assert not_boolean.status_code == 400 and "must be a boolean" in not_boolean.text


def test_app_switches_are_each_projects_own(running: LocalService, blank: Api) -> None:
    internal = Api.of(running, running.bootstrap.internal)
    before = rendered_apps(internal)
    assert override(blank, "branch", {"apps.installed.webhooks.enabled": True}).status_code == 200
    assert rendered_apps(blank)["webhooks"] == {"enabled": True}
    assert rendered_apps(internal) == before


# --- 2.8's e-mail records: `emails.server` (environment) and `emails.templates.<id>`

VERIFICATION_TEMPLATE_ID = "e7d009ce-8d47-4528-b245-5bf119f2ffa3"
OWN_TEMPLATE_ID = "11111111-1111-4111-8111-111111111111"
LIGHT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"
HARBOUR_VERIFICATION = """
import { Text } from "@react-email/components";
import { Subject, NotificationCategory } from "@stackframe/emails";
export function EmailTemplate({ variables }) {
  return (
    <>
      <Subject value="Harbour check-in" />
      <NotificationCategory value="Transactional" />
      <Text>Check in at {variables.emailVerificationLink}</Text>
    </>
  );
}
"""


def own_server_record() -> dict[str, Any]:
    """A server of the project's own on a closed local port: delivery fails at once and the
    mail stays in the outbox, where the test reads it."""
    from tests.ports import free_port

    return {
        "isShared": False,
        "provider": "smtp",
        "host": "127.0.0.1",
        "port": free_port(),
        "username": "smtp-user",
        "password": "smtp-pass",
        "senderName": "Harbour",
        "senderEmail": "noreply@example.com",
    }


def rendered_emails(api: Api) -> dict[str, Any]:
    response = api.call("GET", "/internal/config", "admin")
    assert response.status_code == 200, response.text
    emails: dict[str, Any] = json.loads(response.json()["config_string"])["emails"]
    return emails


def sent_to(api: Api, email: str) -> dict[str, Any]:
    [mail] = api.http.get("/dev/outbox", params={"to": email}).json()["items"]
    return dict(mail)


def test_the_email_server_and_templates_set_through_overrides(blank: Api) -> None:
    api = blank
    server = own_server_record()
    assert override(api, "environment", {"emails.server": server}).status_code == 200
    assert config(api)["email_config"] == {
        "type": "standard", "host": "127.0.0.1", "port": server["port"], "username": "smtp-user",
        "password": "smtp-pass", "sender_name": "Harbour", "sender_email": "noreply@example.com",
    }  # fmt: skip
    own = {"displayName": "Custom Reset", "tsxSource": "export const EmailTemplate = () => null;", "themeId": LIGHT_THEME_ID}
    verification = {"displayName": "Harbour verification", "tsxSource": HARBOUR_VERIFICATION}
    templates = {f"emails.templates.{OWN_TEMPLATE_ID}": own, f"emails.templates.{VERIFICATION_TEMPLATE_ID}": verification}
    assert override(api, "branch", templates).status_code == 200
    emails = rendered_emails(api)
    assert emails["server"] == server
    assert emails["templates"][OWN_TEMPLATE_ID] == own
    assert emails["templates"][VERIFICATION_TEMPLATE_ID] == verification
    listed = {t["id"]: t for t in api.call("GET", "/internal/email-templates", "admin").json()["templates"]}
    assert listed[OWN_TEMPLATE_ID]["display_name"] == "Custom Reset" and listed[OWN_TEMPLATE_ID]["theme_id"] == LIGHT_THEME_ID
    email = unique_email()
    api.sign_up(email)
    assert sent_to(api, email)["subject"] == "Harbour check-in"

    # on the shared server the project has the built-in templates as shipped only, as on 2.8.86;
    # its own come back with a server of its own
    assert override(api, "environment", {"emails.server": {"isShared": True, "provider": "smtp"}}).status_code == 200
    assert config(api)["email_config"] == {"type": "shared"}
    emails = rendered_emails(api)
    assert emails["server"] == {"isShared": True, "provider": "smtp"}
    assert OWN_TEMPLATE_ID not in emails["templates"]
    assert emails["templates"][VERIFICATION_TEMPLATE_ID]["displayName"] == "Email Verification"
    shared = unique_email()
    api.sign_up(shared)
    assert sent_to(api, shared)["subject"] == "Verify your email at authmw local project"
    assert override(api, "environment", {"emails.server": server}).status_code == 200
    assert rendered_emails(api)["templates"][OWN_TEMPLATE_ID] == own

    # a dotted key changes one field; null takes the template out (a built-in one: shipped again)
    assert override(api, "branch", {f"emails.templates.{OWN_TEMPLATE_ID}.displayName": "Renamed"}).status_code == 200
    assert rendered_emails(api)["templates"][OWN_TEMPLATE_ID] == {**own, "displayName": "Renamed"}
    assert override(api, "branch", {f"emails.templates.{VERIFICATION_TEMPLATE_ID}": None}).status_code == 200
    back = unique_email()
    api.sign_up(back)
    assert sent_to(api, back)["subject"] == "Verify your email at authmw local project"
    assert reset(api, "branch", ["emails.templates"]).status_code == 200
    assert OWN_TEMPLATE_ID not in rendered_emails(api)["templates"]
    assert reset(api, "environment", ["emails.server"]).status_code == 200
    assert config(api)["email_config"] == {"type": "shared"}


@pytest.mark.parametrize(
    ("level", "change", "message"),
    [
        ("branch", {"emails.server": {"isShared": True}}, "'emails.server' cannot be overridden at the branch level"),
        ("project", {f"emails.templates.{OWN_TEMPLATE_ID}": {"displayName": "x", "tsxSource": "x"}}, "use the branch or environment level"),
        ("environment", {"emails.server": {"isShared": False, "provider": "resend"}}, "'resend' is not offered"),
        ("environment", {"emails.server": {"isShared": False, "provider": "smtp", "host": "smtp.example.com"}}, "needs port, username"),
        ("environment", {"emails.server.colour": "blue"}, "emails.server has no field colour"),
        ("branch", {"emails.templates.welcome": {"displayName": "x", "tsxSource": "x"}}, "a template's id is a UUID"),
        ("branch", {f"emails.templates.{OWN_TEMPLATE_ID}": {"displayName": "x"}}, "tsxSource must be a string"),
        ("branch", {f"emails.templates.{OWN_TEMPLATE_ID}": {"displayName": "x", "tsxSource": "x", "themeId": 5}}, "themeId must be"),
    ],
)
def test_bad_email_records_are_refused_naming_the_problem(blank: Api, level: str, change: Any, message: str) -> None:
    before = (config(blank), rendered_emails(blank))
    refused = override(blank, level, change)
    assert refused.status_code == 400 and message in refused.text, refused.text
    assert (config(blank), rendered_emails(blank)) == before


def test_a_template_set_through_an_override_is_its_projects_own(running: LocalService, blank: Api) -> None:
    internal = Api.of(running, running.bootstrap.internal)
    assert override(blank, "environment", {"emails.server": own_server_record()}).status_code == 200
    own = {"displayName": "Only mine", "tsxSource": "export const EmailTemplate = () => null;"}
    assert override(blank, "branch", {f"emails.templates.{OWN_TEMPLATE_ID}": own}).status_code == 200
    assert rendered_emails(blank)["templates"][OWN_TEMPLATE_ID] == own
    # the other project, on a server of its own too (so its own templates would show), has none
    assert override(internal, "environment", {"emails.server": own_server_record()}).status_code == 200
    try:
        listed = internal.call("GET", "/internal/email-templates", "admin").json()["templates"]
        assert all(t["id"] != OWN_TEMPLATE_ID for t in listed)
        assert OWN_TEMPLATE_ID not in rendered_emails(internal)["templates"]
        # the control: the same record written for the other project is its own
        assert override(internal, "branch", {f"emails.templates.{OWN_TEMPLATE_ID}": {**own, "displayName": "Theirs"}}).status_code == 200
        assert rendered_emails(internal)["templates"][OWN_TEMPLATE_ID]["displayName"] == "Theirs"
        assert rendered_emails(blank)["templates"][OWN_TEMPLATE_ID] == own
    finally:
        assert reset(internal, "branch", ["emails.templates"]).status_code == 200
        assert reset(internal, "environment", ["emails.server"]).status_code == 200
    assert reset(blank, "environment", ["emails.server"]).status_code == 200
