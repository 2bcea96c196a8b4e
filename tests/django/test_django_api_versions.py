"""Django: sessions of a 2.8 and of a 2.7 service sign a user in by cookie, by bearer token and
by the 2.8 SDK's headers, sync and async; an anonymous 2.8 session is not signed in unless
AUTHMW["ALLOW_ANONYMOUS"]. Real local services of both versions."""

from __future__ import annotations

import pytest
from api_sessions import WAYS, expected_claims, session_headers, sign_up_anonymously

from authmw.middleware._core import MALFORMED_AUTHORIZATION


@pytest.mark.parametrize("way", WAYS)
def test_a_user_of_either_api_version_signs_in(service_each_api, make_site, way):
    service = service_each_api
    session = service.sign_up()
    headers = session_headers(way, service.project_id, session.access_token, session.refresh_token)
    r = make_site(service.config).client().get("/whoami/kind", headers=headers)
    assert r.json() == {"id": session.user_id, "anonymous": False, "restricted": False}, service.api
    assert not [name for name in r.cookies if name.startswith("stack-")]


def test_the_token_claims_reach_request_user(service_each_api, make_site):
    """request.user.email and friends come from the token: a 2.8 token carries them, a 2.7
    token does not (None, not a guess)."""
    service = service_each_api
    session = service.sign_up()
    headers = session_headers("cookie", service.project_id, session.access_token, session.refresh_token)
    r = make_site(service.config).client().get("/whoami/claims", headers=headers)
    assert r.json() == expected_claims(service, session)


@pytest.mark.parametrize("way", ["cookie", "stackauth_"])
async def test_async_views_too(service_each_api, make_site, way):
    service = service_each_api
    session = service.sign_up()
    headers = session_headers(way, service.project_id, session.access_token, session.refresh_token)
    r = await make_site(service.config).async_client().get("/async/whoami", headers=headers)
    assert r.json() == {"id": session.user_id, "authenticated": True}


@pytest.mark.parametrize("way", ["stackauth_", "x-stack-auth"])
def test_a_header_session_is_refreshed_and_never_written_back_as_cookies(service_each_api, make_site, way):
    service = service_each_api
    session = service.sign_up()
    r = make_site(service.config).client().get("/whoami", headers=session_headers(way, service.project_id, None, session.refresh_token))
    assert r.json() == {"id": session.user_id, "authenticated": True}
    assert not [name for name in r.cookies if name.startswith("stack-")]


@pytest.mark.parametrize("way", ["cookie", "bearer", "stackauth_"])
def test_an_anonymous_2_8_session_is_signed_out_unless_the_app_opts_in(service_28, make_site, way):
    anonymous = sign_up_anonymously(service_28)
    headers = session_headers(way, service_28.project_id, anonymous["access_token"], anonymous["refresh_token"])
    site = make_site(service_28.config)
    r = site.client().get("/whoami/kind", headers=headers)
    assert r.json() == {"id": None, "anonymous": True, "restricted": False}  # Django's anonymous: nobody
    assert not [name for name in r.cookies if name.startswith("stack-")]
    r = site.client(ALLOW_ANONYMOUS=True).get("/whoami/kind", headers=headers)
    assert r.json() == {"id": anonymous["user_id"], "anonymous": True, "restricted": True}


def test_a_malformed_sdk_header_is_a_401_naming_the_expected_form(site):
    r = site.client().get("/whoami", headers={"authorization": "Bearer stackauth_bm90IGpzb24="})
    assert r.status_code == 401 and r.json()["error"] == MALFORMED_AUTHORIZATION
