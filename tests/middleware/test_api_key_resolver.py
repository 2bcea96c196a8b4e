"""API keys as credentials (API 2.8): told apart without I/O, resolved through the local service,
cached briefly, refused keys remembered; and the guards' decision about keys (pure)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from authmw import AdminApp, ServerApp
from authmw._ops import SyncDriver
from authmw.errors import (
    ApiKeyNotAccepted,
    ApiKeyNotFound,
    ApiKeyRevoked,
    TeamMembershipNotFound,
    TeamPermissionRequired,
    UserAuthenticationRequired,
)
from authmw.middleware import AnonymousUser, ApiKeyTeam, ApiKeyUser
from authmw.middleware._access import Rule, TeamRequirement, admit, team_key_refusal
from authmw.middleware._api_keys import KEY_TTL, REFUSED_KEY_TTL, ApiKeyResolver, ConfirmedKey, looks_like_api_key
from authmw.models import ProjectApiKey
from authmw_local.routes.api_keys import make_api_key
from middleware.support import CountingSyncTransport

CHECK_PATHS = ("/api/v1/user-api-keys/check", "/api/v1/team-api-keys/check")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def keys_enabled(service_28: Any) -> Iterator[Any]:
    """API keys exist from API 2.8: a service answering as 2.8, with both kinds enabled."""
    with AdminApp(service_28.config) as admin:
        admin.update_project(config={"allow_user_api_keys": True, "allow_team_api_keys": True})
        try:
            yield service_28
        finally:
            admin.update_project(config={"allow_user_api_keys": False, "allow_team_api_keys": False})


@pytest.fixture
def counted() -> Iterator[tuple[SyncDriver, CountingSyncTransport]]:
    transport = CountingSyncTransport()
    driver = SyncDriver(httpx.Client(transport=transport))
    yield driver, transport
    driver.close()


def checks(transport: CountingSyncTransport) -> int:
    return sum(transport.paths[path] for path in CHECK_PATHS)


def test_a_key_is_told_apart_from_a_jwt_and_an_sdk_header_without_io() -> None:
    key_id = str(uuid.uuid4())
    value = make_api_key(key_id, "user")
    parsed = looks_like_api_key(value)
    assert parsed is not None and parsed.id == key_id and parsed.type == "user"
    assert looks_like_api_key(make_api_key(key_id, "team", is_public=True)).type == "team"  # type: ignore[union-attr]
    typo = value[:10] + ("a" if value[10] != "a" else "b") + value[11:]
    jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
    for other in (typo, value[:-1], value + "0", jwt, "stackauth_" + "e30=", "sk_" + "0" * 99, value.upper()):
        assert looks_like_api_key(other) is None, other


def test_a_repeated_key_is_checked_once_until_its_time_is_up(keys_enabled: Any, counted: Any) -> None:
    driver, transport = counted
    server = ServerApp(keys_enabled.config)
    user = server.users.create()
    key = server.user_api_keys.create(user.id, description="resolver")
    clock = Clock()
    resolver = ApiKeyResolver(keys_enabled.config, clock)
    parsed = looks_like_api_key(key.api_key)
    assert parsed is not None
    assert resolver.cached(key.api_key) is None
    for _ in range(50):
        found = driver.run(resolver.resolve(key.api_key, parsed))
        assert isinstance(found, ConfirmedKey) and found.key.user_id == user.id and found.holder == "user"
    assert checks(transport) == 1
    assert isinstance(resolver.cached(key.api_key), ConfirmedKey)
    # revoked at the service: still trusted until KEY_TTL is up, then refused and remembered
    server.user_api_keys.revoke(key.id)
    clock.now += KEY_TTL - 1
    assert isinstance(driver.run(resolver.resolve(key.api_key, parsed)), ConfirmedKey)
    clock.now += 2
    for _ in range(20):
        assert isinstance(driver.run(resolver.resolve(key.api_key, parsed)), ApiKeyRevoked)
    assert checks(transport) == 2
    server.close()


def test_a_flood_of_made_up_keys_costs_one_lookup_each(keys_enabled: Any, counted: Any) -> None:
    """The attack: keys with a right checksum (anyone can compute one) that the service never
    made, sent again and again."""
    driver, transport = counted
    clock = Clock()
    resolver = ApiKeyResolver(keys_enabled.config, clock)
    made_up = [make_api_key(str(uuid.uuid4()), "user") for _ in range(30)]
    for _ in range(3):
        for value in made_up:
            parsed = looks_like_api_key(value)
            assert parsed is not None
            assert isinstance(driver.run(resolver.resolve(value, parsed)), ApiKeyNotFound)
    assert checks(transport) == 30  # one each, never one per request
    clock.now += REFUSED_KEY_TTL + 1  # remembered for a while only (the map stays small)
    assert resolver.cached(made_up[0]) is None


def test_a_team_key_resolves_to_its_team(keys_enabled: Any, counted: Any) -> None:
    driver, transport = counted
    with ServerApp(keys_enabled.config) as server:
        team = server.teams.create("Resolver team")
        key = server.team_api_keys.create(team.id, description="bot")
    resolver = ApiKeyResolver(keys_enabled.config, Clock())
    parsed = looks_like_api_key(key.api_key)
    assert parsed is not None and parsed.type == "team"
    found = driver.run(resolver.resolve(key.api_key, parsed))
    assert isinstance(found, ConfirmedKey) and found.key.team_id == team.id and found.holder == "team"
    assert transport.paths["/api/v1/team-api-keys/check"] == 1


def _key(kind: str, owner: str) -> ProjectApiKey:
    fields = {"user_id": owner} if kind == "user" else {"team_id": owner}
    return ProjectApiKey.model_validate({"id": str(uuid.uuid4()), "type": kind, **fields, "value": {"last_four": "abcd"}})


def test_the_guards_decision_about_keys() -> None:
    user = ApiKeyUser(_key("user", "u1"))
    team = ApiKeyTeam(_key("team", "t1"))
    assert user.id == "u1" and user.via == "user_api_key" and user.is_authenticated and user.access_token is None
    assert user.email is None and user.display_name is None and user.signed_up_at is None  # no token to read
    assert team.team_id == "t1" and team.via == "team_api_key" and not team.is_authenticated and team.id is None
    team_rule = (TeamRequirement("team_id"),)
    # nobody: 401, or the sign-in page
    for api_keys in (False, True):
        denial = admit(AnonymousUser(), Rule(api_keys=api_keys))
        assert denial is not None and isinstance(denial.error, UserAuthenticationRequired) and denial.to == "sign-in"
    # routes that take sessions only refuse every key, naming why (JSON, never a page)
    for principal in (user, team):
        refused = admit(principal, Rule(team_rule))
        assert refused is not None and isinstance(refused.error, ApiKeyNotAccepted) and refused.status == 401
        assert refused.to is None
    # a route that accepts keys: a user's key is its user (the requirements follow)
    assert admit(user, Rule(api_keys=True)) is None and admit(user, Rule(team_rule, api_keys=True)) is None
    # a team's key is not a user: only team requirements take it, and only for its own team
    denial = admit(team, Rule(api_keys=True))
    assert denial is not None and isinstance(denial.error, UserAuthenticationRequired)
    assert admit(team, Rule(team_rule, api_keys=True)) is None
    assert team_key_refusal(team, "t1", None) is None
    assert isinstance(team_key_refusal(team, "t2", None), TeamMembershipNotFound)
    assert isinstance(team_key_refusal(team, "t1", "$update_team"), TeamPermissionRequired)
