"""API 2.8 user and team API keys and project permissions through the apps, against the real
local service over HTTP, each test sync and async."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import pytest

from authmw import AdminApp, AsyncAdminApp, AuthConfig
from authmw.errors import (
    ApiKeyNotFound,
    ApiKeyNotValid,
    ApiKeyRevoked,
    HttpStatusError,
    PermissionIdAlreadyExists,
    PermissionNotFound,
    WrongApiKeyType,
    WrongPermissionScope,
)
from authmw.keyformat import parse_api_key
from authmw.models import (
    NewProjectApiKey,
    PermissionDefinition,
    ProjectApiKey,
    ProjectPermission,
    ServerTeam,
    ServerUser,
)

from .test_apps_live import Async, Sync, flavour  # noqa: F401 - the fixture

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with deployment.running(tmp_path_factory.mktemp("core-keys")) as running:
        if deployment.api_version(running) != "2.8":
            pytest.skip("API keys and project permissions are API 2.8")
        yield running


@pytest.fixture(scope="module")
def config(service: Any) -> AuthConfig:
    config = AuthConfig.from_env(service.config)
    with AdminApp(config) as admin:
        admin.update_project(config={"allow_user_api_keys": True, "allow_team_api_keys": True})
    return config


class Apps:
    def __init__(self, flavour: Sync | Async, config: AuthConfig) -> None:
        self.flavour = flavour
        self.config = config
        self.opened: list[Any] = []
        self.server = self._open(flavour.server_class(config))
        admin_class = AdminApp if isinstance(flavour, Sync) else AsyncAdminApp
        self.admin = self._open(admin_class(config))

    def _open(self, app: Any) -> Any:
        self.opened.append(app)
        return app

    def signed_in(self) -> tuple[Any, str]:
        app = self._open(self.flavour.client_class(self.config.with_(secret_server_key=None, super_secret_admin_key=None)))
        email = f"keys-{uuid.uuid4().hex[:12]}@example.com"
        result = self.flavour(app.sign_up_with_password(email, PASSWORD, "http://localhost:3000/handler/email-verification"))
        return app, result.user_id


@pytest.fixture
def apps(flavour: Sync | Async, config: AuthConfig) -> Iterator[Apps]:
    made = Apps(flavour, config)
    yield made
    for app in made.opened:
        flavour.close(app)


def test_a_user_manages_own_keys_and_the_server_resolves_them(flavour: Any, apps: Apps) -> None:
    client, user_id = apps.signed_in()
    created = flavour(client.api_keys.create(description="nightly script"))
    assert isinstance(created, NewProjectApiKey) and created.user_id == user_id and created.type == "user"
    assert parse_api_key(created.api_key) is not None and created.last_four == created.api_key[-4:]
    assert created.api_key not in repr(created) and created.api_key not in str(created)
    listed = flavour(client.api_keys.list())
    assert [key.id for key in listed] == [created.id] and isinstance(listed[0], ProjectApiKey)
    assert not hasattr(listed[0], "api_key") and listed[0].is_valid()
    renamed = flavour(client.api_keys.update(created.id, description="renamed"))
    assert renamed.description == "renamed"
    owner = flavour(apps.server.get_user(api_key=created.api_key))
    assert isinstance(owner, ServerUser) and owner.id == user_id
    checked = flavour(apps.server.user_api_keys.check(created.api_key))
    assert checked.user_id == user_id and checked.last_four == created.last_four
    revoked = flavour(client.api_keys.revoke(created.id))
    assert revoked.why_invalid() == "manually-revoked"
    assert flavour(apps.server.get_user(api_key=created.api_key)) is None
    with pytest.raises(ApiKeyRevoked):
        flavour(apps.server.user_api_keys.check(created.api_key))


def test_made_up_expired_and_wrong_kind_keys_resolve_to_none(flavour: Any, apps: Apps) -> None:
    _, user_id = apps.signed_in()
    server = apps.server
    past = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
    expired = flavour(server.user_api_keys.create(user_id, description="old", expires_at=past))
    assert expired.why_invalid() == "expired"
    team = flavour(server.teams.create("Keys", creator_user_id=user_id))
    team_key = flavour(server.team_api_keys.create(team.id, description="team"))
    made_up = "sk_" + "0" * 99
    for value in (made_up, expired.api_key, team_key.api_key, "not a key at all"):
        assert flavour(server.get_user(api_key=value)) is None
    assert flavour(server.get_team(api_key=expired.api_key)) is None  # a user's key
    with pytest.raises(WrongApiKeyType) as info:
        flavour(server.user_api_keys.check(team_key.api_key))
    assert isinstance(info.value, ApiKeyNotValid) and info.value.actual_type == "team"
    with pytest.raises(ApiKeyNotFound):
        flavour(server.user_api_keys.check(made_up))
    with pytest.raises(TypeError):
        flavour(server.get_user(user_id, api_key=made_up))
    with pytest.raises(ValueError):
        flavour(server.user_api_keys.create(user_id, description="naive", expires_at=dt.datetime(2030, 1, 1)))


def test_team_keys_with_manage_api_keys(flavour: Any, apps: Apps) -> None:
    creator, creator_id = apps.signed_in()
    client, user_id = apps.signed_in()
    server = apps.server
    team = flavour(server.teams.create("Team keys", creator_user_id=creator_id))
    flavour(server.teams.add_member(team.id, user_id))
    # 2.8's creator definition team_admin contains $manage_api_keys; team_member does not
    by_creator = flavour(creator.team_api_keys.create(team.id, description="by the creator"))
    with pytest.raises(ApiKeyNotFound):
        flavour(client.team_api_keys.create(team.id, description="refused"))
    flavour(server.team_permissions.grant(team.id, user_id, "$manage_api_keys"))
    made = flavour(client.team_api_keys.create(team.id, description="deploy bot", is_public=True))
    assert made.team_id == team.id and made.type == "team" and made.api_key.startswith("pk_") and made.is_public
    assert {key.id for key in flavour(client.team_api_keys.list(team.id))} == {by_creator.id, made.id}
    assert flavour(client.team_api_keys.get(made.id, team.id)).description == "deploy bot"
    resolved = flavour(server.get_team(api_key=made.api_key))
    assert isinstance(resolved, ServerTeam) and resolved.id == team.id
    flavour(client.team_api_keys.revoke(made.id, team.id))
    assert flavour(server.get_team(api_key=made.api_key)) is None
    assert flavour(server.get_team(team.id)).id == team.id


def test_project_permissions(flavour: Any, apps: Apps) -> None:
    client, user_id = apps.signed_in()
    definitions, grants = apps.admin.project_permission_definitions, apps.server.project_permissions
    suffix = uuid.uuid4().hex[:8]
    read, write = f"docs_read_{suffix}", f"docs_write_{suffix}"
    created = flavour(definitions.create(read, description="Read the docs"))
    assert created == PermissionDefinition(id=read, description="Read the docs", contained_permission_ids=[])
    flavour(definitions.create(write, contained_permission_ids=[read]))
    assert {read, write} <= {d.id for d in flavour(definitions.list())}
    with pytest.raises(PermissionIdAlreadyExists):
        flavour(definitions.create(read))
    assert not flavour(client.project_permissions.has(read))
    granted = flavour(grants.grant(user_id, write))
    assert granted == ProjectPermission(id=write, user_id=user_id)
    assert flavour(client.project_permissions.has(read))  # contained in write
    assert {p.id for p in flavour(client.project_permissions.list())} == {read, write}
    assert {p.id for p in flavour(client.project_permissions.list(recursive=False))} == {write}
    assert flavour(grants.has(user_id, read))
    with pytest.raises(WrongPermissionScope):
        flavour(grants.grant(user_id, "team_member"))  # a team permission (2.8's member definition)
    flavour(grants.revoke(user_id, write))
    assert not flavour(grants.has(user_id, read))
    with pytest.raises(PermissionNotFound):
        flavour(grants.revoke(user_id, write))
    flavour(definitions.update(write, new_id=write + "_x"))
    flavour(definitions.delete(write + "_x"))
    flavour(definitions.delete(read))


def test_keys_need_the_project_setting(flavour: Any, apps: Apps) -> None:
    client, _ = apps.signed_in()
    flavour(apps.admin.update_project(config={"allow_user_api_keys": False}))
    try:
        with pytest.raises(HttpStatusError) as info:
            flavour(client.api_keys.list())
        assert info.value.status == 400 and "User API keys are not enabled" in str(info.value)
        assert flavour(apps.server.get_project()).config.allow_user_api_keys is False
    finally:
        flavour(apps.admin.update_project(config={"allow_user_api_keys": True}))
