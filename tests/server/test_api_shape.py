"""The shape of the apps: sync and async twins offer the same calls with the same signatures."""

from __future__ import annotations

import asyncio
import inspect

import httpx
import pytest

from authmw import (
    AdminApp,
    AsyncAdminApp,
    AsyncClientApp,
    AsyncServerApp,
    AuthConfig,
    ClientApp,
    ServerApp,
)
from authmw._apps._base import namespace, require_callback_url
from authmw._ops import AsyncDriver, SyncDriver
from authmw.errors import InvalidServerResponse

CONFIG = AuthConfig(
    project_id="internal",
    api_url="http://auth.test",
    publishable_client_key="pck_" + "a" * 45,
    secret_server_key="ssk_" + "b" * 45,
    super_secret_admin_key="sak_" + "c" * 45,
)
TWINS = [(ClientApp, AsyncClientApp), (ServerApp, AsyncServerApp), (AdminApp, AsyncAdminApp)]


def public_calls(obj: object) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(getattr(obj, name))
        for name in dir(obj)
        # close/aclose and run_op (an operation run on the driver) differ between twins by design
        if not name.startswith("_") and callable(getattr(obj, name)) and name not in ("close", "aclose", "run_op")
    }


def namespaces(cls: type) -> list[str]:
    return sorted(name for name, value in vars_all(cls).items() if isinstance(value, namespace))


def vars_all(cls: type) -> dict[str, object]:
    merged: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        merged.update(vars(klass))
    return merged


@pytest.mark.parametrize(("sync_class", "async_class"), TWINS, ids=lambda c: c.__name__)
def test_sync_and_async_twins_offer_the_same_calls(sync_class, async_class):
    sync_app, async_app = sync_class(CONFIG), async_class(CONFIG)
    try:
        assert public_calls(sync_app) == public_calls(async_app)
        assert namespaces(sync_class) == namespaces(async_class)
        for name in namespaces(sync_class):
            sync_group, async_group = getattr(sync_app, name), getattr(async_app, name)
            assert public_calls(sync_group) == public_calls(async_group), name
            for call in public_calls(async_group):
                method = getattr(async_group, call)
                if call == "iter":
                    assert inspect.isasyncgenfunction(method)
                else:
                    assert inspect.iscoroutinefunction(method), f"{name}.{call}"
                assert method.__doc__, f"{name}.{call} has no docs"
    finally:
        sync_app.close()
        asyncio.run(async_app.aclose())


def test_the_expected_namespaces():
    assert namespaces(ClientApp) == [
        "api_keys",
        "contact_channels",
        "notification_preferences",
        "project_permissions",
        "provider_accounts",
        "sessions",
        "team_api_keys",
        "team_invitations",
        "team_member_profiles",
        "team_permissions",
        "teams",
    ]
    assert namespaces(ServerApp) == [
        "connected_accounts",
        "contact_channels",
        "notification_preferences",
        "project_permissions",
        "provider_accounts",
        "sessions",
        "team_api_keys",
        "team_invitations",
        "team_member_profiles",
        "team_permissions",
        "teams",
        "user_api_keys",
        "users",
    ]
    assert namespaces(AdminApp) == sorted(
        [
            *namespaces(ServerApp),
            "api_keys",
            "email_templates",
            "email_themes",
            "permission_definitions",
            "project_permission_definitions",
            "sign_up_rules",
            "tsx_email_templates",
        ]
    )


def test_namespaces_are_made_once_and_share_the_apps_driver():
    with ServerApp(CONFIG) as app:
        assert app.users is app.users
        assert app.users._driver is app._driver and app.users._transport is app._transport
        assert "ServerUsers" in repr(app.users) and "ssk_" not in repr(app.users)
    with ClientApp(CONFIG, refresh_token="r") as client:
        assert client.teams._session is client.session


def test_admin_app_calls_at_the_admin_tier():
    with AdminApp(CONFIG) as admin:
        headers = admin._transport.headers()
    assert headers["x-stack-access-type"] == "admin"
    assert headers["x-stack-super-secret-admin-key"] == CONFIG.super_secret_admin_key


@pytest.mark.parametrize(
    ("url", "problem"),
    [(None, "is required"), ("", "is required"), ("/handler/x", "absolute"), ("ftp://h/x", "absolute"), (3, "string")],
)
def test_callback_urls_must_be_absolute(url, problem):
    with pytest.raises((ValueError, TypeError), match=problem):
        require_callback_url(url, page="password-reset")


def test_callback_url_error_names_the_parameter_and_an_example():
    with pytest.raises(ValueError) as info:
        require_callback_url(None, page="password-reset")
    assert "callback_url" in str(info.value) and "/handler/password-reset" in str(info.value)
    assert require_callback_url("http://localhost:3000/x?y=1") == "http://localhost:3000/x?y=1"


def pages_answering(bodies):
    requests: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json=bodies[len(requests) - 1])

    return requests, answer


def user(n: int) -> dict[str, object]:
    return {"id": f"u{n}"}


def test_iter_follows_cursors_and_passes_filters():
    bodies = [
        {"items": [user(1), user(2)], "is_paginated": True, "pagination": {"next_cursor": "u3"}},
        {"items": [user(3)], "is_paginated": True, "pagination": {"next_cursor": None}},
    ]
    requests, answer = pages_answering(bodies)
    driver = SyncDriver(httpx.Client(transport=httpx.MockTransport(answer)))
    with ServerApp(CONFIG, driver=driver) as app:
        assert [u.id for u in app.users.iter(query="ada", desc=True)] == ["u1", "u2", "u3"]
    first, second = (dict(r.url.params) for r in requests)
    assert first == {"limit": "100", "desc": "true", "order_by": "signed_up_at", "query": "ada"}
    assert second == {**first, "cursor": "u3"}


async def test_async_iter_is_lazy_and_stops_on_a_repeated_cursor():
    bodies = [
        {"items": [user(1)], "is_paginated": True, "pagination": {"next_cursor": "u2"}},
        {"items": [user(2)], "is_paginated": True, "pagination": {"next_cursor": "u2"}},
    ]
    requests, answer = pages_answering(bodies)

    async def handle(request: httpx.Request) -> httpx.Response:
        return answer(request)

    driver = AsyncDriver(httpx.AsyncClient(transport=httpx.MockTransport(handle)))
    async with AsyncServerApp(CONFIG, driver=driver) as app:
        walk = app.users.iter(limit=1)
        assert requests == []
        assert (await walk.__anext__()).id == "u1"
        assert len(requests) == 1
        assert (await walk.__anext__()).id == "u2"
        with pytest.raises(InvalidServerResponse, match="same page cursor"):
            await walk.__anext__()
    await driver.aclose()
