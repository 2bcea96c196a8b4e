"""server.connected_accounts (service-api A5.4.7), with the local service's mock provider."""

from __future__ import annotations

import uuid

import pytest

from authmw.errors import OAuthProviderNotFoundOrNotEnabled

#: A provider with the project's own keys (tokens are only available with those).
GITLAB = {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "id", "client_secret": "secret"}


#: The local project's mock providers, on from the start; off here for the "not enabled" cases.
SHARED = [{"id": provider, "type": "shared", "enabled": False} for provider in ("github", "google")]


@pytest.fixture
def gitlab(apps):
    apps.live.require("POST", "/connected-accounts/me/gitlab/access-token", "5.4.7")
    apps.live.set_project_config(oauth_providers=[*SHARED, GITLAB])


def test_a_linked_account_gives_a_provider_token(flavour, apps, gitlab):
    user = apps.new_user(oauth_providers=[{"id": "gitlab", "account_id": uuid.uuid4().hex, "email": None}])
    token = flavour(apps.server.connected_accounts.get_access_token(user.id, "GitLab"))
    assert isinstance(token, str) and token


def test_no_linked_account_or_no_granted_scope_is_none(flavour, apps, gitlab):
    linked = apps.new_user(oauth_providers=[{"id": "gitlab", "account_id": uuid.uuid4().hex, "email": None}])
    accounts = apps.server.connected_accounts
    assert flavour(accounts.get_access_token(linked.id, "gitlab", scope="read_repository")) is None
    assert flavour(accounts.get_access_token(apps.new_user().id, "gitlab")) is None


def test_a_provider_that_is_not_enabled_is_a_known_error(flavour, apps, gitlab):
    user = apps.new_user()
    with pytest.raises(OAuthProviderNotFoundOrNotEnabled):
        flavour(apps.server.connected_accounts.get_access_token(user.id, "github", scope="repo"))


@pytest.mark.parametrize(
    "code", ["OAUTH_CONNECTION_NOT_CONNECTED_TO_USER", "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE"]
)
def test_no_connection_or_scope_is_none(code, live):
    # The local service has no OAuth providers, so these answers come from a stand-in.
    import httpx

    from authmw import ServerApp
    from authmw._ops import SyncDriver

    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        headers = {"x-stack-known-error": code, "x-stack-actual-status": "400"}
        return httpx.Response(200, json={"code": code, "error": "no"}, headers=headers)

    driver = SyncDriver(httpx.Client(transport=httpx.MockTransport(answer)))
    with ServerApp(live.config, driver=driver) as server:
        assert server.connected_accounts.get_access_token("u1", "GitHub", scope="repo") is None
    assert seen[0].url.path.endswith("/connected-accounts/u1/github/access-token")
    assert seen[0].content == b'{"scope":"repo"}'
    driver.close()
