"""Django view guards and DRF classes: 401, redirect, 403 and 200, sync and async views."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.core.exceptions import ImproperlyConfigured
from middleware.support import CountingSyncTransport, CountingTransport, TeamCallsFail, cookie_header
from service_support import teams_or_fail

from authmw_django import team_permission_required, user_required


@pytest.fixture
def teams(local_service: Any) -> Any:
    return teams_or_fail(local_service)


def signed_in(local_service: Any) -> tuple[Any, dict[str, str]]:
    s = local_service.sign_up()
    return s, {"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)}


def assert_envelope(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.content
    body = r.json()
    assert body["code"] == code and body["error"]
    assert r.headers.get("x-stack-known-error", code) == code


# -- user_required ---------------------------------------------------------------------


def test_page_redirects_anonymous_users_to_sign_in_with_the_way_back(site) -> None:
    r = site.client().get("/page?tab=2&x=a b")
    assert r.status_code == 303
    url = urlsplit(r["Location"])
    assert url.path == "/handler/sign-in"
    assert parse_qs(url.query) == {"after_auth_return_to": ["/page?tab=2&x=a%20b"]}


def test_page_redirect_follows_the_handler_path(site) -> None:
    r = site.client(HANDLER_PATH="/auth/").get("/page")
    assert r["Location"] == "/auth/sign-in?after_auth_return_to=%2Fpage"


def test_page_served_to_signed_in_users(site, local_service) -> None:
    s, headers = signed_in(local_service)
    r = site.client().get("/page", headers=headers)
    assert r.status_code == 200 and r.content.decode() == f"hello {s.user_id}"


def test_api_path_gets_401_json(site) -> None:
    r = site.client().get("/api/me")
    assert_envelope(r, 401, "USER_AUTHENTICATION_REQUIRED")
    assert r.json() == {
        "code": "USER_AUTHENTICATION_REQUIRED",
        "error": "User authentication required for this endpoint.",
    }


def test_page_asked_for_json_gets_401_json(site) -> None:
    r = site.client().get("/page", headers={"accept": "application/json"})
    assert_envelope(r, 401, "USER_AUTHENTICATION_REQUIRED")


def test_api_paths_are_configurable(site) -> None:
    assert site.client(API_PATHS=["/v2/"]).get("/api/me").status_code == 303


def test_api_true_forces_json(site) -> None:
    assert_envelope(site.client().get("/async/me"), 401, "USER_AUTHENTICATION_REQUIRED")


def test_api_me_signed_in(site, local_service) -> None:
    s, headers = signed_in(local_service)
    assert site.client().get("/api/me", headers=headers).json() == {"id": s.user_id, "authenticated": True}


async def test_async_view_guard_under_asgi(site, local_service) -> None:
    s, headers = signed_in(local_service)
    client = site.async_client()
    assert_envelope(await client.get("/async/me"), 401, "USER_AUTHENTICATION_REQUIRED")
    assert (await client.get("/async/me", headers=headers)).json()["id"] == s.user_id
    assert (await client.get("/page")).status_code == 303


def test_async_view_guard_under_wsgi(site, local_service) -> None:
    s, headers = signed_in(local_service)
    assert site.client().get("/async/me", headers=headers).json()["id"] == s.user_id


def test_decorators_keep_the_views_identity_and_kind() -> None:
    import inspect

    from authmw_django_testsite import async_me, page

    assert page.__name__ == "page" and not inspect.iscoroutinefunction(page)
    assert async_me.__name__ == "async_me" and inspect.iscoroutinefunction(async_me)


def test_class_based_view_through_method_decorator(site, local_service) -> None:
    s, headers = signed_in(local_service)
    assert_envelope(site.client().get("/class-view"), 401, "USER_AUTHENTICATION_REQUIRED")
    assert site.client().get("/class-view", headers=headers).json()["id"] == s.user_id


def test_a_user_replaced_by_a_later_middleware_is_explained(site) -> None:
    client = site.client(middleware=["authmw_django.AuthMiddleware", "authmw_django_testsite.replaces_user"])
    with pytest.raises(ImproperlyConfigured, match="after 'django.contrib.auth.middleware.AuthenticationMiddleware'"):
        client.get("/api/me")


def test_decorator_misuse_is_explained() -> None:
    with pytest.raises(TypeError, match="permission id"):
        team_permission_required(lambda request: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="keyword arguments"):
        user_required("api")  # type: ignore[call-overload]


# -- team guards ---------------------------------------------------------------------------


def test_team_guards_refuse_anonymous_users_before_asking_the_service(site) -> None:
    team = "00000000-0000-4000-8000-000000000000"
    assert site.client().get(f"/teams/{team}/").status_code == 303
    assert_envelope(site.client().get(f"/api/orgs/{team}/"), 401, "USER_AUTHENTICATION_REQUIRED")


def test_team_member_required(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    client = site.client()
    # Not a member: a page answers Django's 403, an API the envelope.
    assert client.get(f"/teams/{team}/", headers=headers).status_code == 403
    assert_envelope(
        client.get(f"/teams/{team}/", headers={**headers, "accept": "application/json"}),
        403,
        "TEAM_MEMBERSHIP_NOT_FOUND",
    )
    teams.add_member(team, s.user_id)
    assert client.get(f"/teams/{team}/", headers=headers).json() == {"team": team}


def test_team_member_required_with_a_callable_on_an_async_view(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    assert_envelope(site.client().get(f"/api/orgs/{team}/", headers=headers), 403, "TEAM_MEMBERSHIP_NOT_FOUND")
    teams.add_member(team, s.user_id)
    assert site.client().get(f"/api/orgs/{team}/", headers=headers).json() == {"team": team}


async def test_team_guards_under_asgi(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    client = site.async_client()
    assert_envelope(await client.get(f"/api/orgs/{team}/", headers=headers), 403, "TEAM_MEMBERSHIP_NOT_FOUND")
    teams.add_member(team, s.user_id)
    assert (await client.get(f"/api/orgs/{team}/", headers=headers)).json() == {"team": team}
    # A sync view behind the async chain.
    r = await client.get(f"/teams/{team}/settings", headers={**headers, "accept": "application/json"})
    assert_envelope(r, 403, "TEAM_PERMISSION_REQUIRED")


def test_team_permission_required(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    teams.add_member(team, s.user_id)
    client = site.client()
    api = {**headers, "accept": "application/json"}
    r = client.get(f"/teams/{team}/settings", headers=api)
    assert_envelope(r, 403, "TEAM_PERMISSION_REQUIRED")
    assert r.json()["details"] == {"team_id": team, "user_id": s.user_id, "permission_id": "$update_team"}
    teams.grant(team, s.user_id, "$update_team")
    assert client.get(f"/teams/{team}/settings", headers=api).json() == {"team": team, "may": "update"}


def test_team_permission_held_through_a_containing_permission(site, local_service, teams) -> None:
    # Members get the member definition ("team_member" in 2.8, "member" in 2.7), which contains $read_members.
    s, headers = signed_in(local_service)
    team = teams.create()
    r = site.client().get(f"/api/teams/{team}/people", headers=headers)
    assert_envelope(r, 403, "TEAM_PERMISSION_REQUIRED")
    teams.add_member(team, s.user_id)
    assert site.client().get(f"/api/teams/{team}/people", headers=headers).json()["may"] == "read members"


def test_a_team_id_that_is_not_a_uuid_is_refused_without_a_call(site, local_service) -> None:
    _, headers = signed_in(local_service)
    assert_envelope(site.client().get("/api/orgs/not-a-team/", headers=headers), 403, "TEAM_MEMBERSHIP_NOT_FOUND")


def test_team_guard_with_the_service_unreachable_is_a_503(site, local_service) -> None:
    _, headers = signed_in(local_service)
    client = site.client(HTTP_CLIENT=lambda: httpx.Client(transport=TeamCallsFail()))
    r = client.get("/api/orgs/00000000-0000-4000-8000-000000000000/", headers=headers)
    assert r.status_code == 503
    assert r.json() == {"error": "The authentication service is unavailable; try again shortly."}


def test_team_guards_without_the_secret_key_name_it(make_site, local_service) -> None:
    _, headers = signed_in(local_service)
    client = make_site(local_service.config).client(SECRET_SERVER_KEY=None)
    with pytest.raises(ImproperlyConfigured, match=r'AUTHMW\["SECRET_SERVER_KEY"\]'):
        client.get("/api/orgs/00000000-0000-4000-8000-000000000000/", headers=headers)


def test_a_team_kwarg_the_view_does_not_get_is_explained(site, local_service) -> None:
    _, headers = signed_in(local_service)
    with pytest.raises(ImproperlyConfigured, match="keyword argument 'team_id'.*got \\['org'\\]"):
        site.client().get("/wrong-kwarg/x/", headers=headers)


# -- Django REST framework -------------------------------------------------------------------


def test_drf_anonymous_is_a_401_envelope(site) -> None:
    r = site.client().get("/drf/me")
    assert r.status_code == 401
    assert r.json() == {
        "code": "USER_AUTHENTICATION_REQUIRED",
        "error": "User authentication required for this endpoint.",
    }


def test_drfs_own_is_authenticated_answers_401(site, local_service) -> None:
    r = site.client().get("/drf/is-authenticated")
    assert r.status_code == 401 and r.headers["WWW-Authenticate"] == 'Bearer realm="authmw"'
    s, headers = signed_in(local_service)
    assert site.client().get("/drf/is-authenticated", headers=headers).json() == {"id": s.user_id}


def test_drf_without_the_middleware_names_it(site, local_service) -> None:
    client = site.client(middleware=[])
    with pytest.raises(ImproperlyConfigured, match="authmw_django.AuthMiddleware"):
        client.get("/drf/me", headers=signed_in(local_service)[1])


def test_drf_team_kwarg_the_view_does_not_get_is_explained(site, local_service) -> None:
    with pytest.raises(ImproperlyConfigured, match=r"IsTeamMember reads .*'team_id'.*got \['org'\]"):
        site.client().get("/drf/wrong-kwarg/x/", headers=signed_in(local_service)[1])


def test_drf_signed_in_user_and_claims(site, local_service) -> None:
    s, headers = signed_in(local_service)
    assert site.client().get("/drf/me", headers=headers).json() == {"id": s.user_id, "sub": s.user_id}


def test_drf_team_member(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    r = site.client().get(f"/drf/teams/{team}/", headers=headers)
    assert r.status_code == 403 and r.json()["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
    teams.add_member(team, s.user_id)
    assert site.client().get(f"/drf/teams/{team}/", headers=headers).json() == {"team": team}


def test_drf_team_permission(site, local_service, teams) -> None:
    s, headers = signed_in(local_service)
    team = teams.create()
    teams.add_member(team, s.user_id)
    r = site.client().get(f"/drf/orgs/{team}/settings", headers=headers)
    assert r.status_code == 403 and r.json()["code"] == "TEAM_PERMISSION_REQUIRED"
    teams.grant(team, s.user_id, "$update_team")
    assert site.client().get(f"/drf/orgs/{team}/settings", headers=headers).json()["may"] == "update"
    assert site.client().get(f"/drf/orgs/{team}/settings").status_code == 401


async def test_team_checks_under_asgi_run_on_the_driver_of_the_views_kind(site, local_service, teams) -> None:
    counting, counting_sync = CountingTransport(), CountingSyncTransport()
    client = site.async_client(
        ASYNC_HTTP_CLIENT=lambda: httpx.AsyncClient(transport=counting),
        HTTP_CLIENT=lambda: httpx.Client(transport=counting_sync),
    )
    _, headers = signed_in(local_service)
    team = teams.create()
    for path in (f"/api/orgs/{team}/", f"/teams/{team}/settings"):  # an async view, then a sync one
        assert (await client.get(path, headers={**headers, "accept": "application/json"})).status_code == 403
    assert counting.paths["/api/v1/teams"] == 1  # on the event loop
    assert counting_sync.paths["/api/v1/team-permissions"] == 1  # in the sync view's thread


def test_drf_and_django_views_accept_bearer_tokens_and_refuse_bad_ones(site, local_service) -> None:
    s = local_service.sign_up()
    bearer = {"authorization": f"Bearer {s.access_token}"}
    assert site.client().get("/drf/is-authenticated", headers=bearer).json() == {"id": s.user_id}
    assert site.client().get("/whoami", headers={"x-stack-access-token": s.access_token}).json()["id"] == s.user_id
    refused = site.client().get("/drf/me", headers={"authorization": "Bearer not-a-token"})
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"].startswith('Bearer realm="authmw", error="invalid_token"')
    assert refused.json()["code"] == "UNPARSABLE_ACCESS_TOKEN"
