"""Django: cross-site requests with the session cookies, with and without Django's
CsrfViewMiddleware, for plain views and DRF views, through Django's test client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from authmw_django_testsite import ACTIONS
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings
from middleware.cross_site import EVIL, TRUSTED, header_sessions, run_cases, run_header_sessions
from middleware.support import cookie_header

AUTHMW = "authmw_django.AuthMiddleware"
CSRF = "django.middleware.csrf.CsrfViewMiddleware"
#: A CSRF secret as Django's cookie holds it; X-CSRFToken may carry it unmasked.
TOKEN = "a" * 32


def client(config: Any, middleware: list[str], django: dict[str, Any] | None = None, **options: Any) -> Client:
    """Middlewares read their settings once, when loaded: ``django`` settings apply to them."""
    # enforce_csrf_checks: Django's test client otherwise turns its CSRF checks off.
    c = Client(enforce_csrf_checks=True)
    site = {"PROJECT_ID": config.project_id, "API_URL": config.api_url, "SECRET_SERVER_KEY": config.secret_server_key}
    with override_settings(AUTHMW={**site, **options}, MIDDLEWARE=middleware, **(django or {})):
        c.handler.load_middleware()
    return c


def session(service: Any) -> tuple[str, Any, str]:
    s = service.sign_up()
    return cookie_header(service.project_id, s.refresh_token, s.access_token), s, s.user_id


def sender(c: Client, path: str) -> Any:
    def send(method: str, headers: dict[str, str]) -> Any:
        return c.generic(method, path, headers=headers)

    return send


@pytest.fixture(autouse=True)
def _clear_actions() -> None:
    ACTIONS.clear()


@pytest.mark.parametrize("path", ["/action", "/drf/action"])
def test_without_csrf_middleware_authmw_checks(local_service, path: str) -> None:
    cookie, header, user_id = session(local_service)
    c = client(local_service.config, [AUTHMW], TRUSTED_ORIGINS=TRUSTED)
    run_cases(sender(c, path), ACTIONS, cookie, user_id, own="http://testserver")
    run_header_sessions(sender(c, path), ACTIONS, header)


def test_flat_settings_and_csrf_exempt_views(local_service) -> None:
    cookie, _, user_id = session(local_service)
    c = client(local_service.config, [AUTHMW], {"AUTHMW_TRUSTED_ORIGINS": ["https://front.example"]})
    assert c.post("/action", headers={"cookie": cookie, "origin": "https://front.example"}).status_code == 200
    assert c.post("/action", headers={"cookie": cookie, "origin": EVIL}).status_code == 403
    # A view marked csrf_exempt (a webhook, say) is left alone, as Django's own check does.
    assert c.post("/exempt-action", headers={"cookie": cookie, "origin": EVIL}).status_code == 200
    assert ACTIONS == [("POST", user_id), ("POST", user_id)]


def test_the_check_can_be_turned_off(local_service) -> None:
    cookie, _, user_id = session(local_service)
    c = client(local_service.config, [AUTHMW], CSRF_CHECK=False)
    for path in ("/action", "/drf/action"):
        assert c.post(path, headers={"cookie": cookie, "origin": EVIL}).status_code == 200
    assert ACTIONS == [("POST", user_id), ("POST", user_id)]


@pytest.mark.parametrize("order", [[CSRF, AUTHMW], [AUTHMW, CSRF]])
@override_settings(CSRF_TRUSTED_ORIGINS=["https://front.example"])  # read by Django at its first check
def test_with_csrf_middleware_django_checks_plain_views(local_service, order: list[str]) -> None:
    cookie, _, user_id = session(local_service)
    # authmw's own list does not matter now: Django reads CSRF_TRUSTED_ORIGINS.
    c = client(local_service.config, order, TRUSTED_ORIGINS=["https://authmw-only.example"])
    with_token = {"cookie": f"{cookie}; csrftoken={TOKEN}", "x-csrftoken": TOKEN}
    refused = [
        {"cookie": cookie, "origin": EVIL},
        {**with_token, "origin": EVIL},
        {"cookie": cookie, "origin": "http://testserver"},  # Django wants its token too
        {**with_token, "origin": "https://authmw-only.example"},
    ]
    for headers in refused:
        r = c.post("/action", headers=headers)
        assert r.status_code == 403 and b"CSRF" in r.content, headers  # Django's answer, not authmw's
    # Passes Django's check: no second check by authmw, whose list lacks this origin.
    assert c.post("/action", headers={**with_token, "origin": "https://front.example"}).status_code == 200
    assert c.post("/action", headers={**with_token, "origin": "http://testserver"}).status_code == 200
    assert c.get("/action", headers={"cookie": cookie, "origin": EVIL}).status_code == 200
    assert ACTIONS == [("POST", user_id), ("POST", user_id), ("GET", user_id)]


def test_with_csrf_middleware_drf_checks_like_session_authentication(local_service) -> None:
    cookie, header, user_id = session(local_service)
    c = client(local_service.config, [CSRF, AUTHMW])
    r = c.post("/drf/action", headers={"cookie": cookie, "origin": "http://testserver"})
    assert r.status_code == 403 and r.json()["detail"].startswith("CSRF Failed"), r.content
    r = c.post("/drf/action", headers={"cookie": cookie, "origin": EVIL})
    assert r.status_code == 403 and r.json()["detail"].startswith("CSRF Failed"), r.content
    token = {"cookie": f"{cookie}; csrftoken={TOKEN}", "x-csrftoken": TOKEN, "origin": "http://testserver"}
    assert c.post("/drf/action", headers=token).status_code == 200
    for auth in header_sessions(header):  # no CSRF token: header sessions are not checked
        assert c.post("/drf/action", headers={**auth, "origin": EVIL}).status_code == 200
    assert c.get("/drf/action", headers={"cookie": cookie, "origin": EVIL}).status_code == 200
    assert ACTIONS == [("POST", user_id)] * 4 + [("GET", user_id)]


def test_bad_settings_name_the_django_setting(local_service) -> None:
    with pytest.raises(ImproperlyConfigured, match=r'AUTHMW\["TRUSTED_ORIGINS"\] lists origins'):
        client(local_service.config, [AUTHMW], TRUSTED_ORIGINS=["evil.example"])
    with pytest.raises(ImproperlyConfigured, match=r'AUTHMW\["COOKIE_SECURE"\] to True'):
        client(local_service.config, [AUTHMW], COOKIE_SAME_SITE="None")


async def test_async_middleware_chain_checks_too(local_service) -> None:
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    cookie, _, user_id = await sync_to_async(session)(local_service)
    c = AsyncClient(enforce_csrf_checks=True)
    site = {"PROJECT_ID": local_service.project_id, "API_URL": local_service.url}
    with override_settings(
        AUTHMW={**site, "SECRET_SERVER_KEY": local_service.config.secret_server_key}, MIDDLEWARE=[AUTHMW]
    ):
        c.handler.load_middleware(is_async=True)
    refused = await c.post("/action", headers={"cookie": cookie, "origin": EVIL})
    assert refused.status_code == 403 and json.loads(refused.content)["code"] == "CROSS_SITE_REQUEST_REFUSED"
    allowed = await c.post("/action", headers={"cookie": cookie, "origin": "http://testserver"})
    assert allowed.status_code == 200
    assert ACTIONS == [("POST", user_id)]


@pytest.mark.parametrize("middleware", [[AUTHMW], [CSRF, AUTHMW]])
def test_drf_permission_classes_check_cookie_sessions_without_authmw_authentication(
    local_service, middleware: list[str]
) -> None:
    """A DRF view whose authentication classes leave AuthMWAuthentication out: the permission
    class (IsSignedIn here) admits the middleware's user, and must check a cookie session's
    request as AuthMWAuthentication would (authmw's origin check, or Django's CSRF check when
    CsrfViewMiddleware is installed); it admitted a form posted from another site."""
    cookie, header, user_id = session(local_service)
    c = client(local_service.config, middleware)
    r = c.post("/drf/permission-only", headers={"cookie": cookie, "origin": EVIL})
    assert r.status_code == 403, r.content
    if CSRF in middleware:
        assert r.json()["detail"].startswith("CSRF Failed")
    else:
        assert r.json()["code"] == "CROSS_SITE_REQUEST_REFUSED"
    assert ACTIONS == []
    # The controls: the app's own page (with Django's token when Django checks), and a header
    # session from anywhere (no browser attaches one across sites).
    own = {"cookie": cookie, "origin": "http://testserver"}
    if CSRF in middleware:
        own = {**own, "cookie": f"{cookie}; csrftoken={TOKEN}", "x-csrftoken": TOKEN}
    assert c.post("/drf/permission-only", headers=own).status_code == 200
    for auth in header_sessions(header):
        assert c.post("/drf/permission-only", headers={**auth, "origin": EVIL}).status_code == 200
    assert ACTIONS == [("POST", user_id)] * (1 + len(header_sessions(header)))
