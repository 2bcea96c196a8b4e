"""authmw_django.AuthMiddleware: the session on request.user, sync (WSGI) and async (ASGI)."""

from __future__ import annotations

import asyncio
import json
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings
from middleware.support import CountingSyncTransport, CountingTransport, clear_project_env, cookie_header

from authmw.middleware import AuthUser


def session_cookies(response: Any) -> dict[str, Any]:
    return {name: morsel for name, morsel in response.cookies.items() if name.startswith("stack-")}


def unreachable(config: Any) -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


# -- sync (WSGI) -------------------------------------------------------------------------


def test_anonymous_without_cookies(site) -> None:
    r = site.client().get("/whoami")
    assert r.json() == {"id": None, "authenticated": False}
    assert session_cookies(r) == {}


def test_signed_in_with_cookies(site, local_service) -> None:
    s = local_service.sign_up()
    r = site.client().get(
        "/whoami", headers={"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)}
    )
    assert r.json() == {"id": s.user_id, "authenticated": True}
    assert session_cookies(r) == {}


def test_signed_in_with_x_stack_auth_header(site, local_service) -> None:
    s = local_service.sign_up()
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    r = site.client().get("/whoami", headers={"x-stack-auth": header})
    assert r.json()["id"] == s.user_id


def test_invalid_header_is_a_400_and_the_view_does_not_run(site) -> None:
    r = site.client().get("/whoami", headers={"x-stack-auth": "[1"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("Invalid x-stack-auth header: ")
    assert r.headers["cache-control"] == "no-store"


def test_expired_access_token_is_refreshed_and_both_cookies_rewritten(short_site, short_service, expiring) -> None:
    s, pid = expiring, short_service.project_id
    r = short_site.client().get("/whoami", headers={"cookie": cookie_header(pid, s.refresh_token, s.access_token)})
    assert r.json() == {"id": s.user_id, "authenticated": True}
    cookies = session_cookies(r)
    assert set(cookies) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    assert cookies[f"stack-refresh-{pid}"].value == s.refresh_token
    assert cookies[f"stack-refresh-{pid}"]["max-age"] == "31536000"
    assert cookies[f"stack-refresh-{pid}"]["path"] == "/"
    refresh, access = json.loads(unquote(cookies["stack-access"].value))
    assert refresh == s.refresh_token and access != s.access_token
    assert cookies["stack-access"]["max-age"] == "86400"
    assert cookies["stack-refresh"]["max-age"] == "0"


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_responses_carrying_session_cookies_are_never_stored_by_caches(site, local_service, kind) -> None:
    """As under ASGI/WSGI: refreshed or deleted session cookies make the response no-store
    (the view's own Cache-Control is replaced); a response without them keeps the view's."""
    s, pid = local_service.sign_up(), local_service.project_id

    async def get(cookie: str) -> Any:
        if kind == "sync":
            return await asyncio.to_thread(site.client().get, "/cacheable", headers={"cookie": cookie})
        return await site.async_client().get("/cacheable", headers={"cookie": cookie})

    r = await get(cookie_header(pid, s.refresh_token, s.access_token))
    assert session_cookies(r) == {} and r.headers["Cache-Control"] == "public, max-age=600"
    r = await get(cookie_header(pid, s.refresh_token))  # no access token: refreshed
    assert r.json()["id"] == s.user_id and "stack-access" in session_cookies(r)
    assert r.headers["Cache-Control"] == "no-store"
    r = await get(cookie_header(pid, "refused" * 7))
    assert session_cookies(r)[f"stack-refresh-{pid}"].value == ""
    assert r.headers["Cache-Control"] == "no-store"


def test_expired_access_token_is_refreshed(make_site, brief) -> None:
    user_id, refresh, access = brief.expired_session()
    r = (
        make_site(brief.config)
        .client()
        .get("/whoami", headers={"cookie": cookie_header(brief.project_id, refresh, access)})
    )
    assert r.json() == {"id": user_id, "authenticated": True}
    assert set(session_cookies(r)) == {f"stack-refresh-{brief.project_id}", "stack-access", "stack-refresh"}
    assert json.loads(unquote(session_cookies(r)["stack-access"].value))[1] != access


async def test_async_expired_access_token_is_refreshed(make_site, brief) -> None:
    user_id, refresh, access = brief.expired_session()
    client = make_site(brief.config).async_client()
    r = await client.get("/async/whoami", headers={"cookie": cookie_header(brief.project_id, refresh, access)})
    assert r.json() == {"id": user_id, "authenticated": True}
    assert set(session_cookies(r)) == {f"stack-refresh-{brief.project_id}", "stack-access", "stack-refresh"}


def test_a_header_session_is_refreshed_without_cookies(short_site, expiring) -> None:
    s = expiring
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    r = short_site.client().get("/whoami", headers={"x-stack-auth": header})
    assert r.json()["id"] == s.user_id
    assert session_cookies(r) == {}


def test_refreshed_cookies_are_secure_behind_an_https_proxy(short_site, short_service, expiring) -> None:
    s = expiring
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = short_site.client().get("/whoami", headers={"cookie": cookie, "x-forwarded-proto": "https"})
    assert all(m["secure"] for m in session_cookies(r).values())


def test_cookies_the_view_set_itself_win(short_site, short_service, expiring) -> None:
    s = expiring
    r = short_site.client().get(
        "/sets-cookie", headers={"cookie": cookie_header(short_service.project_id, s.refresh_token, s.access_token)}
    )
    assert r.json()["id"] == s.user_id
    assert r.cookies["app"].value == "1"
    assert r.cookies["stack-access"].value == "" and r.cookies["stack-access"]["max-age"] == 0
    assert r.cookies[f"stack-refresh-{short_service.project_id}"].value == s.refresh_token


def test_revoked_refresh_token_clears_cookies_and_user_is_anonymous(short_site, short_service, expiring) -> None:
    s = expiring
    short_service.sign_out(s)
    r = short_site.client().get(
        "/whoami", headers={"cookie": cookie_header(short_service.project_id, s.refresh_token, s.access_token)}
    )
    assert r.json() == {"id": None, "authenticated": False}
    cookies = session_cookies(r)
    assert set(cookies) == {f"stack-refresh-{short_service.project_id}", "stack-access", "stack-refresh"}
    assert all(m["max-age"] == "0" and m.value == "" for m in cookies.values())


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_service_unreachable_during_refresh(make_site, short_service, expiring, mode: str, status: int) -> None:
    s = expiring
    site = make_site(short_service.config.with_(api_url=unreachable(short_service.config)))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = site.client(ON_REFRESH_UNAVAILABLE=mode).get("/whoami", headers={"cookie": cookie})
    assert r.status_code == status
    if status == 200:
        assert r.json() == {"id": None, "authenticated": False}
    else:
        assert r.json() == {"error": "The authentication service is unavailable; try again shortly."}
    assert session_cookies(r) == {}


def test_threads_needing_the_same_refresh_make_one_call(short_site, short_service, expiring) -> None:
    s = expiring
    counting = CountingSyncTransport()
    client = short_site.client(HTTP_CLIENT=lambda: httpx.Client(transport=counting))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)

    handler = client.handler

    def request(_: int) -> Any:
        c = Client()
        c.handler = handler  # one site: one middleware instance, as in a threaded server
        r = c.get("/whoami", headers={"cookie": cookie})
        return r.json()["id"], set(session_cookies(r))

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(request, range(32)))
    assert {user_id for user_id, _ in results} == {s.user_id}
    assert all(
        cookies == {f"stack-refresh-{short_service.project_id}", "stack-access", "stack-refresh"}
        for _, cookies in results
    )
    assert counting.refreshes == 1


def test_request_user_offers_the_server_view(site, local_service) -> None:
    s = local_service.sign_up()
    r = site.client().get(
        "/server-email", headers={"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)}
    )
    assert r.json() == {"email": s.email}


def test_auser_offers_awaitable_server_calls_under_wsgi(site, local_service) -> None:
    # Django runs the async view in a loop of its own; the calls go through a worker thread.
    s = local_service.sign_up()
    r = site.client().get(
        "/async/server-email",
        headers={"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)},
    )
    assert r.json() == {"email": s.email}


async def test_auser_offers_awaitable_server_calls_under_asgi(site, local_service) -> None:
    s = local_service.sign_up()
    counting = CountingTransport()
    client = site.async_client(ASYNC_HTTP_CLIENT=lambda: httpx.AsyncClient(transport=counting))
    r = await client.get(
        "/async/server-email",
        headers={"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)},
    )
    assert r.json() == {"email": s.email}
    assert counting.paths[f"/api/v1/users/{s.user_id}"] == 1  # on the event loop's connections


def test_a_view_raising_refusal_gets_the_service_envelope(site) -> None:
    r = site.client().get("/refuses")
    assert r.status_code == 404
    assert r.json()["code"] == "USER_NOT_FOUND"
    assert r.headers["x-stack-known-error"] == "USER_NOT_FOUND"


async def test_a_view_raising_refusal_under_asgi(site) -> None:
    r = await site.async_client().get("/refuses")
    assert r.status_code == 404 and r.json()["code"] == "USER_NOT_FOUND"


def test_request_user_is_lazy_and_typed(site, local_service) -> None:
    from django.test import RequestFactory
    from django.utils.functional import SimpleLazyObject

    from authmw_django import AuthMiddleware

    s = local_service.sign_up()
    seen: dict[str, Any] = {}

    def view(request: Any) -> Any:
        seen["user"] = request.user
        from django.http import HttpResponse

        return HttpResponse()

    with override_settings(
        AUTHMW={
            "PROJECT_ID": local_service.project_id,
            "API_URL": local_service.url,
            "SECRET_SERVER_KEY": local_service.config.secret_server_key,
        }
    ):
        middleware = AuthMiddleware(view)
    request = RequestFactory().get(
        "/", headers={"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)}
    )
    middleware(request)
    assert isinstance(seen["user"], SimpleLazyObject)
    assert isinstance(seen["user"], AuthUser) and seen["user"].id == s.user_id


# -- async (ASGI) ----------------------------------------------------------------------


async def test_async_anonymous(site) -> None:
    r = await site.async_client().get("/async/whoami")
    assert r.json() == {"id": None, "authenticated": False}


async def test_async_signed_in_sync_and_async_views(site, local_service) -> None:
    s = local_service.sign_up()
    client = site.async_client()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    for path in ("/async/whoami", "/whoami"):
        r = await client.get(path, headers={"cookie": cookie})
        assert r.json() == {"id": s.user_id, "authenticated": True}, path


async def test_async_refresh_rewrites_cookies(short_site, short_service, expiring) -> None:
    s, pid = expiring, short_service.project_id
    r = await short_site.async_client().get(
        "/async/whoami", headers={"cookie": cookie_header(pid, s.refresh_token, s.access_token)}
    )
    assert r.json()["id"] == s.user_id
    assert set(session_cookies(r)) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}


async def test_async_revoked_refresh_token_clears_cookies(short_site, short_service, expiring) -> None:
    s = expiring
    short_service.sign_out(s)
    r = await short_site.async_client().get(
        "/async/whoami", headers={"cookie": cookie_header(short_service.project_id, s.refresh_token, s.access_token)}
    )
    assert r.json()["authenticated"] is False
    assert all(m["max-age"] == "0" for m in session_cookies(r).values()) and session_cookies(r)


async def test_async_concurrent_requests_share_one_refresh(short_site, short_service, expiring) -> None:
    s = expiring
    counting = CountingTransport()
    client = short_site.async_client(ASYNC_HTTP_CLIENT=lambda: httpx.AsyncClient(transport=counting))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    responses = await asyncio.gather(*(client.get("/async/whoami", headers={"cookie": cookie}) for _ in range(20)))
    assert {r.json()["id"] for r in responses} == {s.user_id}
    assert all(len(session_cookies(r)) == 3 for r in responses)
    assert counting.refreshes == 1


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
async def test_async_service_unreachable(make_site, short_service, expiring, mode: str, status: int) -> None:
    s = expiring
    site = make_site(short_service.config.with_(api_url=unreachable(short_service.config)))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    r = await site.async_client(ON_REFRESH_UNAVAILABLE=mode).get("/async/whoami", headers={"cookie": cookie})
    assert r.status_code == status
    assert session_cookies(r) == {}


# -- settings ----------------------------------------------------------------------------


def load(**settings: Any) -> Any:
    from authmw_django._settings import load

    with override_settings(**settings):
        return load()


def test_settings_from_the_authmw_dict(local_service) -> None:
    auth = load(AUTHMW={"PROJECT_ID": local_service.project_id, "SECRET_SERVER_KEY": "k", "API_PATHS": ["/v1/"]})
    assert auth.config.project_id == local_service.project_id
    assert auth.resolver.options.api_paths == ("/v1/",)


def test_http_client_by_dotted_path(local_service) -> None:
    config = local_service.config
    auth = load(AUTHMW={"PROJECT_ID": config.project_id, "SECRET_SERVER_KEY": "k", "HTTP_CLIENT": "httpx.Client"})
    assert type(auth.resolver.driver.http) is httpx.Client
    with pytest.raises(ImproperlyConfigured, match=r'AUTHMW\["HTTP_CLIENT"\] must be a callable'):
        load(AUTHMW={"PROJECT_ID": config.project_id, "SECRET_SERVER_KEY": "k", "HTTP_CLIENT": 3})


def test_flat_settings_and_env_file(local_service, tmp_path, monkeypatch) -> None:
    for name in ("AUTHMW_PROJECT_ID", "AUTHMW_SECRET_SERVER_KEY", "AUTHMW_PUBLISHABLE_CLIENT_KEY", "AUTHMW_API_URL"):
        monkeypatch.delenv(name, raising=False)
    env = tmp_path / "project.env"
    env.write_text(
        f"AUTHMW_PROJECT_ID={local_service.project_id}\nAUTHMW_PUBLISHABLE_CLIENT_KEY=pck\nAUTHMW_API_URL=http://127.0.0.1:1\n"
    )
    auth = load(AUTHMW={"ENV_FILE": str(env)}, AUTHMW_SECRET_SERVER_KEY="ssk")
    assert (auth.config.project_id, auth.config.publishable_client_key, auth.config.secret_server_key) == (
        local_service.project_id,
        "pck",
        "ssk",
    )
    assert auth.config.api_url == "http://127.0.0.1:1"


@pytest.mark.parametrize(
    "settings, says",
    [
        ({"AUTHMW": {}}, 'set AUTHMW["PROJECT_ID"]'),
        ({"AUTHMW": {"PROJECT_ID": "internal"}}, 'AUTHMW["SECRET_SERVER_KEY"]'),
        ({"AUTHMW": {"PROJECT_ID": "nope", "SECRET_SERVER_KEY": "k"}}, "is not a UUID"),
        ({"AUTHMW": {"PROJECTID": "internal"}}, "unknown keys ['PROJECTID']"),
        (
            {"AUTHMW": {"PROJECT_ID": "internal", "SECRET_SERVER_KEY": "k"}, "AUTHMW_CSRF_CHEK": False},
            "AUTHMW_CSRF_CHEK",
        ),
        ({"AUTHMW": {"ENV_FILE": "/nonexistent/project.env"}}, 'AUTHMW["ENV_FILE"]'),
        (
            {"AUTHMW": {"PROJECT_ID": "internal", "SECRET_SERVER_KEY": "k", "ON_REFRESH_UNAVAILABLE": "x"}},
            "ON_REFRESH_UNAVAILABLE",
        ),
        ({"AUTHMW": ["PROJECT_ID"]}, "settings.AUTHMW must be a dict"),
    ],
)
def test_missing_or_bad_settings_name_the_fix(monkeypatch, settings: dict[str, Any], says: str) -> None:
    clear_project_env(monkeypatch)
    with pytest.raises(ImproperlyConfigured) as raised:
        load(**settings)
    assert says in str(raised.value)


def test_djangos_auth_middleware_after_authmws_is_refused_at_startup() -> None:
    from authmw_django import AuthMiddleware

    order = ["authmw_django.AuthMiddleware", "django.contrib.auth.middleware.AuthenticationMiddleware"]
    with (
        override_settings(MIDDLEWARE=order),
        pytest.raises(ImproperlyConfigured, match="move authmw's middleware after it"),
    ):
        AuthMiddleware(lambda request: None)


def test_decorators_without_the_middleware_name_it() -> None:
    from django.test import RequestFactory

    from authmw_django import user_required

    view = user_required(lambda request: None)
    with pytest.raises(ImproperlyConfigured, match="authmw_django.AuthMiddleware"):
        view(RequestFactory().get("/"))
