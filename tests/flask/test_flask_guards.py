"""Flask view guards: 401, redirect, 403 and 200, sync and async views; OPTIONS passes."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from flask_testapp import with_cookies
from middleware.support import TeamCallsFail, TeamCallsNotNow, cookie_header

from authmw.errors import ConfigurationError
from authmw_flask import team_permission_required, user_required


def signed_in(app: Any, local_service: Any) -> tuple[Any, Any]:
    s = local_service.sign_up()
    return s, with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token))


def assert_envelope(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.data
    assert r.json["code"] == code and r.json["error"]
    assert r.headers["x-stack-known-error"] == code


TEAM = "00000000-0000-4000-8000-000000000000"

# -- user_required ---------------------------------------------------------------------


def test_page_redirects_anonymous_users_to_sign_in_with_the_way_back(app) -> None:
    r = app.test_client().get("/page?tab=2&x=a%20b")
    assert r.status_code == 303
    url = urlsplit(r.headers["Location"])
    assert url.path == "/handler/sign-in"
    assert parse_qs(url.query) == {"after_auth_return_to": ["/page?tab=2&x=a%20b"]}


def test_page_redirect_follows_the_handler_path(app_factory, local_service) -> None:
    app = app_factory(local_service.config.with_(handler_path="/auth"))
    assert app.test_client().get("/page").headers["Location"] == "/auth/sign-in?after_auth_return_to=%2Fpage"


def test_page_served_to_signed_in_users(app, local_service) -> None:
    s, client = signed_in(app, local_service)
    assert client.get("/page").text == f"hello {s.user_id}"


def test_api_path_gets_401_json(app) -> None:
    r = app.test_client().get("/api/me")
    assert_envelope(r, 401, "USER_AUTHENTICATION_REQUIRED")
    assert r.json == {
        "code": "USER_AUTHENTICATION_REQUIRED",
        "error": "User authentication required for this endpoint.",
    }


def test_page_asked_for_json_gets_401_json(app) -> None:
    assert_envelope(
        app.test_client().get("/page", headers={"Accept": "application/json"}), 401, "USER_AUTHENTICATION_REQUIRED"
    )


def test_api_paths_are_configurable(app_factory, local_service) -> None:
    app = app_factory(local_service.config, api_paths=("/v2/",))
    assert app.test_client().get("/api/me").status_code == 303


def test_options_pass_through(app) -> None:
    assert app.test_client().options("/api/me").status_code == 200


def test_async_view(app, local_service) -> None:
    assert_envelope(app.test_client().get("/async/me"), 401, "USER_AUTHENTICATION_REQUIRED")
    s, client = signed_in(app, local_service)
    assert client.get("/async/me").json == {"id": s.user_id, "authenticated": True}


def test_decorator_misuse_is_explained() -> None:
    with pytest.raises(TypeError, match="permission id"):
        team_permission_required(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="keyword arguments"):
        user_required("api")  # type: ignore[call-overload]


# -- team guards ---------------------------------------------------------------------------


def test_team_guards_refuse_anonymous_users_first(app) -> None:
    assert app.test_client().get(f"/teams/{TEAM}/").status_code == 303
    assert_envelope(app.test_client().get(f"/api/orgs/{TEAM}/"), 401, "USER_AUTHENTICATION_REQUIRED")


def test_team_member_required(app, local_service, teams) -> None:
    s, client = signed_in(app, local_service)
    team = teams.create()
    assert client.get(f"/teams/{team}/").status_code == 403
    assert_envelope(
        client.get(f"/teams/{team}/", headers={"Accept": "application/json"}), 403, "TEAM_MEMBERSHIP_NOT_FOUND"
    )
    teams.add_member(team, s.user_id)
    assert client.get(f"/teams/{team}/").json == {"team": team}


def test_team_member_required_with_a_callable_on_an_async_view(app, local_service, teams) -> None:
    s, client = signed_in(app, local_service)
    team = teams.create()
    assert_envelope(client.get(f"/api/orgs/{team}/"), 403, "TEAM_MEMBERSHIP_NOT_FOUND")
    teams.add_member(team, s.user_id)
    assert client.get(f"/api/orgs/{team}/").json == {"team": team}


def test_team_permission_required(app, local_service, teams) -> None:
    s, client = signed_in(app, local_service)
    team = teams.create()
    teams.add_member(team, s.user_id)
    r = client.get(f"/teams/{team}/settings", headers={"Accept": "application/json"})
    assert_envelope(r, 403, "TEAM_PERMISSION_REQUIRED")
    assert r.json["details"] == {"team_id": team, "user_id": s.user_id, "permission_id": "$update_team"}
    assert client.get(f"/teams/{team}/settings").status_code == 403
    teams.grant(team, s.user_id, "$update_team")
    assert client.get(f"/teams/{team}/settings").json == {"team": team, "may": "update"}


def test_team_permission_held_through_a_containing_permission(app, local_service, teams) -> None:
    s, client = signed_in(app, local_service)
    team = teams.create()
    assert_envelope(client.get(f"/api/teams/{team}/people"), 403, "TEAM_PERMISSION_REQUIRED")
    teams.add_member(team, s.user_id)  # members get "member", which contains $read_members
    assert client.get(f"/api/teams/{team}/people").json["may"] == "read members"


def test_a_team_id_that_is_not_a_uuid_is_refused_without_a_call(app, local_service) -> None:
    _, client = signed_in(app, local_service)
    assert_envelope(client.get("/api/orgs/not-a-team/"), 403, "TEAM_MEMBERSHIP_NOT_FOUND")


@pytest.mark.parametrize(
    "failing", [TeamCallsFail, lambda: TeamCallsNotNow(429), lambda: TeamCallsNotNow(408)], ids=["down", "429", "408"]
)
def test_team_guard_with_the_service_unreachable_is_a_503(app_factory, local_service, failing) -> None:
    """Unreachable, rate limited (429) or timed out at a proxy (408): "not now", a 503; a 408
    was raised out of the guard as a 500."""
    app = app_factory(local_service.config, http=lambda: httpx.Client(transport=failing()))
    _, client = signed_in(app, local_service)
    r = client.get(f"/api/orgs/{TEAM}/")
    assert r.status_code == 503
    assert r.json == {"error": "The authentication service is unavailable; try again shortly."}


def test_team_guards_without_the_secret_key_name_it(app_factory, local_service) -> None:
    app = app_factory(local_service.config.with_(secret_server_key=None))
    _, client = signed_in(app, local_service)
    with pytest.raises(ConfigurationError, match=r'app.config\["AUTHMW_SECRET_SERVER_KEY"\]'):
        client.get(f"/teams/{TEAM}/")


def test_a_team_arg_the_view_does_not_get_is_explained(app, local_service) -> None:
    _, client = signed_in(app, local_service)
    with pytest.raises(ConfigurationError, match=r"view argument 'team_id'.*got \['org'\]"):
        client.get("/wrong-arg/x/")


def test_bearer_tokens_sign_api_callers_in_and_bad_ones_get_a_challenge(app, local_service) -> None:
    s = local_service.sign_up()
    client = app.test_client()
    assert client.get("/whoami", headers={"Authorization": f"Bearer {s.access_token}"}).json["id"] == s.user_id
    refused = client.get("/whoami", headers={"Authorization": "Bearer not-a-token"})
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"].startswith('Bearer realm="authmw", error="invalid_token"')
