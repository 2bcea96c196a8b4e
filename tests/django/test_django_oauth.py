"""Server-rendered OAuth sign-in on Django: authmw_django.oauth_urls, with Django's test client."""

from __future__ import annotations

import uuid
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import authmw_django_testsite
from django.test import Client, override_settings
from django.urls import path

from authmw_django import oauth_urls


def _settings(config: Any) -> dict[str, Any]:
    keys = ("project_id", "api_url", "publishable_client_key", "secret_server_key")
    return {key.upper(): getattr(config, key) for key in keys}


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_sign_up_then_sign_in_again_and_deny(oauth_service: Any) -> None:
    email = f"dj-{uuid.uuid4().hex[:8]}@example.com"
    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_test_urls")
        urls.urlpatterns = [*oauth_urls(after_sign_up="/welcome"), path("whoami", authmw_django_testsite.whoami)]  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            client = Client()
            start = client.get("/handler/oauth/github")
            assert start.status_code == 303
            assert start["Location"].startswith(f"{oauth_service.url}/api/v1/auth/oauth/authorize/github?")
            outer = [m for name, m in start.cookies.items() if name.startswith("stack-oauth-outer-")]
            assert outer and outer[0]["httponly"] and outer[0]["path"] == "/handler/oauth-callback"

            back = oauth_service.provider_round_trip(start["Location"], email)
            assert back.startswith("http://testserver/handler/oauth-callback?")
            done = client.get(_path(back))
            assert done.status_code == 303 and done["Location"] == "/welcome"
            me = client.get("/whoami").json()
            assert me["authenticated"] is True

            other = Client()
            start = other.get("/handler/oauth/github", {"after_auth_return_to": "/account"})
            done = other.get(_path(oauth_service.provider_round_trip(start["Location"], email)))
            assert done.status_code == 303 and done["Location"] == "/account"
            assert other.get("/whoami").json()["id"] == me["id"]

            stranger = Client()
            page = stranger.get("/handler/oauth-callback", {"code": "c", "state": "never-started"})
            assert page.status_code == 400 and b"Nothing to sign in" in page.content
            start = stranger.get("/handler/oauth/github")
            back = oauth_service.provider_round_trip(start["Location"], "x@example.com", action="deny")
            denied = stranger.get(_path(back))
            assert denied.status_code == 400 and b"denied" in denied.content
            assert stranger.get("/whoami").json()["authenticated"] is False


def test_the_error_page_shows_only_its_own_words(oauth_service: Any) -> None:
    """A crafted callback link (tests/middleware/test_oauth_error_pages.py has the attack)."""
    from middleware.test_oauth_error_pages import HOSTILE, callback, check_page

    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_error_urls")
        urls.urlpatterns = oauth_urls()  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            for query, expected in HOSTILE:
                page = Client().get(callback(query))
                check_page(page.status_code, page.content.decode(), expected)


def test_behind_a_proxy_the_flow_starts_and_finishes_on_the_public_origin(oauth_service: Any) -> None:
    """The app answers at http://testserver; browsers know it as PUBLIC_ORIGIN (a proxy forwards
    path and query). The service compares the exchange's redirect_uri with the authorize call's."""
    public = oauth_service.PUBLIC_ORIGIN
    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_proxy_urls")
        urls.urlpatterns = [*oauth_urls(base_url=public), path("whoami", authmw_django_testsite.whoami)]  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            client = Client()
            start = client.get("/handler/oauth/github", {"after_auth_return_to": "/account"})
            redirect_uri = parse_qs(urlsplit(start["Location"]).query)["redirect_uri"][0]
            assert redirect_uri == f"{public}/handler/oauth-callback?after_auth_return_to=%2Faccount"
            back = oauth_service.provider_round_trip(start["Location"], f"pxd-{uuid.uuid4().hex[:8]}@example.com")
            assert back.startswith(f"{public}/handler/oauth-callback?")
            done = client.get(_path(back))
            assert done.status_code == 303 and done["Location"] == "/account", done.content
            assert client.get("/whoami").json()["authenticated"] is True


def test_an_account_with_totp_is_asked_for_the_code_and_signed_in(
    oauth_service: Any, oauth_clock_frozen: float
) -> None:
    email = f"mfad-{uuid.uuid4().hex[:8]}@example.com"
    authenticator = oauth_service.totp_user(email)
    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_totp_urls")
        urls.urlpatterns = [*oauth_urls(), path("whoami", authmw_django_testsite.whoami)]  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            client = Client(enforce_csrf_checks=True)  # the form has no Django token: the flow checks instead
            start = client.get("/handler/oauth/github", {"after_auth_return_to": "/account"})
            form = client.get(_path(oauth_service.provider_round_trip(start["Location"], email)))
            assert form.status_code == 200 and b'name="totp"' in form.content
            action = "/handler/oauth-callback?after_auth_return_to=%2Faccount"
            right = authenticator.at(int(oauth_clock_frozen))
            form_post = {"content_type": "application/x-www-form-urlencoded"}  # what the page's form sends
            refused = client.post(action, f"totp={right}", headers={"Origin": "https://evil.example"}, **form_post)
            assert refused.status_code == 403 and client.get("/whoami").json()["authenticated"] is False
            done = client.post(action, f"totp={right}", headers={"Origin": "http://testserver"}, **form_post)
            assert done.status_code == 303 and done["Location"] == "/account", done.content
            assert client.get("/whoami").json()["authenticated"] is True


def test_a_callback_state_that_is_no_cookie_name_never_reaches_a_header(oauth_service: Any) -> None:
    """A crafted callback link's state (tests/middleware/test_oauth_error_pages.py has the attack)."""
    from middleware.test_oauth_error_pages import HOSTILE_STATES, LEGIT_STATE, callback, check_state_page

    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_state_urls")
        urls.urlpatterns = oauth_urls()  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            for state in [*HOSTILE_STATES, LEGIT_STATE]:
                page = Client().get(callback({"code": "c", "state": state}))
                set_cookies = [m.OutputString() for m in page.cookies.values()]
                check_state_page(page.status_code, page.content.decode(), set_cookies, state)


def test_the_start_route_never_repeats_the_provider_of_the_url(oauth_service: Any) -> None:
    """A crafted start link (tests/middleware/test_oauth_error_pages.py has the attack)."""
    from urllib.parse import quote

    from middleware.test_oauth_error_pages import HOSTILE_PROVIDERS, check_provider_page

    with override_settings(AUTHMW=_settings(oauth_service.config)):
        urls = ModuleType("oauth_provider_urls")
        urls.urlpatterns = oauth_urls()  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            for provider in HOSTILE_PROVIDERS:
                page = Client().get("/handler/oauth/" + quote(provider, safe=""))
                check_provider_page(page.status_code, page.content.decode())
            assert Client().get("/handler/oauth/github").status_code == 303


def test_the_oauth_sign_in_writes_the_session_cookies_with_the_apps_cookie_settings(oauth_service: Any) -> None:
    """AUTHMW["COOKIE_SAME_SITE"] and ["COOKIE_SECURE"] (tests/middleware/test_oauth_error_pages.py
    has the case and its control on FastAPI and Flask)."""
    from middleware.test_oauth_error_pages import check_session_cookie_attributes

    settings = {**_settings(oauth_service.config), "COOKIE_SAME_SITE": "Strict", "COOKIE_SECURE": True}
    with override_settings(AUTHMW=settings):
        urls = ModuleType("oauth_cookie_urls")
        urls.urlpatterns = oauth_urls()  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            client = Client()
            start = client.get("/handler/oauth/github")
            [verifier] = [m for name, m in start.cookies.items() if name.startswith("stack-oauth-outer-")]
            assert verifier["secure"]
            client.cookies[verifier.key] = verifier.value  # (a Secure cookie, sent back by hand)
            back = oauth_service.provider_round_trip(start["Location"], f"dc-{uuid.uuid4().hex[:8]}@example.com")
            done = client.get(_path(back))
            assert done.status_code == 303, done.content
            check_session_cookie_attributes([m.OutputString() for m in done.cookies.values()], True)
