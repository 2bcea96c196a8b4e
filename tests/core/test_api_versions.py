"""Calls whose route or answer differs between API 2.7 and 2.8, against recorded fakes of
each service (pure code; the local service answers in both modes in tests/server)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from authmw import AdminApp, ServerApp
from authmw.errors import HttpStatusError, NotInServiceVersion
from authmw.models import AdminProject, ServerUser, User

from .conftest import Recorder

PROJECT = {"id": "p", "display_name": "Acme", "config": {"oauth_providers": [{"id": "github", "type": "shared"}]}}
NOT_A_ROUTE = "404 — this page does not exist in Stack Auth's API."


def service(version: str, routes: dict[str, Any] | None = None) -> Recorder:
    """A service of ``version`` answering the admin project routes (and ``routes``)."""
    project_path = "/api/v1/internal/projects/current" if version == "2.8" else "/api/v1/projects/current"

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == project_path:
            return httpx.Response(200, json={**PROJECT, "user_count": 3} if version == "2.7" else PROJECT)
        if routes and path in routes:
            return httpx.Response(200, json=routes[path])
        return httpx.Response(404, text=NOT_A_ROUTE)

    return Recorder(handler)


@pytest.mark.parametrize("version", ["2.8", "2.7"])
def test_the_admin_project_path_is_probed_once_and_kept(config, version):
    fake = service(version)
    admin = AdminApp(config, driver=fake.sync_driver())
    first = admin.get_project()
    admin.update_project(display_name="Acme 2")
    admin.get_project()
    paths = [(r.method, r.url.path) for r in fake.requests]
    if version == "2.8":
        assert paths == [("GET", "/api/v1/internal/projects/current")] + [
            (m, "/api/v1/internal/projects/current") for m in ("PATCH", "GET")
        ]
        assert first.user_count is None  # the 2.8 admin view no longer counts users
    else:
        assert paths == [
            ("GET", "/api/v1/internal/projects/current"),  # the probe: 404, no side effect
            ("GET", "/api/v1/projects/current"),
            ("PATCH", "/api/v1/projects/current"),
            ("GET", "/api/v1/projects/current"),
        ]
        assert first.user_count == 3
    assert first.config.oauth_providers[0].enabled  # 2.8 lists enabled providers only


@pytest.mark.parametrize("version", ["2.8", "2.7"])
def test_a_project_update_is_written_for_the_service_version(config, version):
    """2.8 lists enabled OAuth providers only, without an enabled field, and has no legacy JWT
    signing; the first update of an app asks which version it talks to (a GET) first."""
    fake = service(version)
    providers = [{"id": "github", "type": "shared", "enabled": True}, {"id": "google", "type": "shared", "enabled": False}]
    AdminApp(config, driver=fake.sync_driver()).update_project(
        config={"oauth_providers": providers, "legacy_global_jwt_signing": False, "sign_up_enabled": True}
    )
    (patch,) = [r for r in fake.requests if r.method == "PATCH"]
    sent = json.loads(patch.content)["config"]
    if version == "2.8":
        assert [r.method for r in fake.requests] == ["GET", "PATCH"]
        assert sent == {"oauth_providers": [{"id": "github", "type": "shared"}], "sign_up_enabled": True}
    else:
        assert [r.method for r in fake.requests] == ["GET", "GET", "PATCH"]
        assert [p["enabled"] for p in sent["oauth_providers"]] == [True, False] and "legacy_global_jwt_signing" in sent


def test_another_error_of_the_admin_project_is_raised_as_it_is(config):
    fake = Recorder(lambda request: httpx.Response(500, text="boom"))
    with pytest.raises(HttpStatusError) as info:
        AdminApp(config, driver=fake.sync_driver()).get_project()
    assert info.value.status == 500


def test_email_templates_on_a_2_8_service_name_the_version(config):
    admin = AdminApp(config, driver=service("2.8").sync_driver())
    for call in (admin.email_templates.list, lambda: admin.email_templates.reset("magic_link")):
        with pytest.raises(NotInServiceVersion, match="API 2.8") as info:
            call()
        assert isinstance(info.value, HttpStatusError) and info.value.status == 404


def test_a_2_7_not_found_template_stays_what_it_is(config):
    routes = {"/api/v1/email-templates": {"items": []}}
    fake = Recorder(
        lambda r: httpx.Response(200, json=routes[r.url.path])
        if r.url.path in routes
        else httpx.Response(404, text="Email template not found")
    )
    with pytest.raises(HttpStatusError) as info:
        AdminApp(config, driver=fake.sync_driver()).email_templates.reset("magic_link")
    assert type(info.value) is HttpStatusError and "Email template not found" in info.value.body


@pytest.mark.parametrize(
    ("options", "query"),
    [
        ({}, {}),
        ({"include_restricted": True}, {"include_restricted": "true"}),
        ({"include_anonymous": True}, {"include_anonymous": "true"}),
    ],
)
def test_list_users_sends_the_include_parameters_only_when_asked(config, options, query):
    fake = Recorder(lambda r: httpx.Response(200, json={"items": [], "pagination": {"next_cursor": None}}))
    ServerApp(config, driver=fake.sync_driver()).users.list(**options)
    sent = dict(fake.requests[0].url.params)
    assert {k: v for k, v in sent.items() if k.startswith("include_")} == query


USER_2_7 = {"id": "u", "primary_email": "a@example.com", "signed_up_at_millis": 1_700_000_000_000}
USER_2_8 = {
    **USER_2_7,
    "is_anonymous": True,
    "is_restricted": True,
    "restricted_reason": {"type": "anonymous"},
    "restricted_by_admin": False,
    "restricted_by_admin_reason": None,
    "restricted_by_admin_private_details": None,
    "country_code": "CH",
    "risk_scores": {"sign_up": {"bot": 12, "free_trial_abuse": 0}},
}


def test_user_models_read_2_8_fields_and_2_7_answers_alike():
    new = ServerUser.model_validate(USER_2_8)
    assert (new.is_anonymous, new.is_restricted, new.restricted_reason, new.country_code) == (True, True, "anonymous", "CH")
    assert new.risk_scores is not None and new.risk_scores["sign_up"].bot == 12
    old = ServerUser.model_validate(USER_2_7)
    assert (old.is_anonymous, old.is_restricted, old.restricted_reason, old.risk_scores) == (False, False, None, None)
    assert User.model_validate(USER_2_8).restricted_reason == "anonymous"
    assert AdminProject.model_validate(PROJECT).user_count is None


# -- against the local service of each version ------------------------------------------------


def test_sign_out_ends_the_session_on_either_version(service_each_api):
    from authmw import ClientApp
    from authmw._ops import SyncDriver
    from authmw._session import refresh_access_token

    session = service_each_api.sign_up()
    with ClientApp(service_each_api.config, access_token=session.access_token, refresh_token=session.refresh_token) as app:
        app.sign_out()
        app.sign_out()  # nothing left to end: fine
    driver = SyncDriver()
    try:
        assert driver.run(refresh_access_token(service_each_api.config, session.refresh_token)) is None
    finally:
        driver.close()


def test_an_anonymous_session_is_no_user_unless_the_app_opts_in(service_28):
    from api_sessions import sign_up_anonymously

    from authmw import ClientApp

    anonymous = sign_up_anonymously(service_28)
    tokens = {"access_token": anonymous["access_token"], "refresh_token": anonymous["refresh_token"]}
    with ClientApp(service_28.config, **tokens) as app:
        assert app.get_user() is None
    with ClientApp(service_28.config.with_(allow_restricted=True), **tokens) as app:
        assert app.get_user() is None  # restricted users only
    with ClientApp(service_28.config.with_(allow_anonymous=True), **tokens) as app:
        user = app.get_user()
        assert user is not None and user.id == anonymous["user_id"] and user.is_anonymous and user.is_restricted


def test_an_anonymous_session_can_be_ended_by_any_app(service_28):
    from api_sessions import sign_up_anonymously

    from authmw import ClientApp
    from authmw._ops import SyncDriver
    from authmw._session import refresh_access_token

    anonymous = sign_up_anonymously(service_28)
    with ClientApp(service_28.config, access_token=anonymous["access_token"], refresh_token=anonymous["refresh_token"]) as app:
        app.sign_out()  # not opted in: the sign-out still carries the allow header
    driver = SyncDriver()
    try:
        assert driver.run(refresh_access_token(service_28.config, anonymous["refresh_token"])) is None
    finally:
        driver.close()


def test_list_users_includes_anonymous_users_when_asked(service_28):
    from api_sessions import sign_up_anonymously

    anonymous = sign_up_anonymously(service_28)
    with ServerApp(service_28.config) as server:
        plain = {u.id for u in server.users.iter()}
        everyone = {u.id for u in server.users.iter(include_anonymous=True)}
    assert anonymous["user_id"] in everyone and anonymous["user_id"] not in plain


def test_the_admin_tier_and_the_cli_work_against_either_version(service_each_api, capsys, tmp_path):
    from authmw import AdminApp
    from authmw.cli import main

    with AdminApp(service_each_api.config) as admin:
        project = admin.update_project(description="two versions")
        assert project.description == "two versions" and admin.get_project().description == "two versions"
        assert admin._project_path == ("/internal/projects/current" if service_each_api.api == "2.8" else "/projects/current")
        if service_each_api.api == "2.8":
            with pytest.raises(NotInServiceVersion):
                admin.email_templates.list()
        else:
            assert admin.email_templates.list()
    config = service_each_api.config
    env_file = tmp_path / "project.env"
    env_file.write_text(
        f"AUTHMW_PROJECT_ID={config.project_id}\nAUTHMW_API_URL={config.api_url}\n"
        f"AUTHMW_SUPER_SECRET_ADMIN_KEY={config.super_secret_admin_key}\n"
    )
    capsys.readouterr()
    for argv in (["project", "show"], ["keys", "list"], ["users", "list", "--anonymous"]):
        assert main([*argv, "--env-file", str(env_file)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    users_row = re.search(r"^Users +(\S+)$", out, re.M)
    assert "two versions" in out
    if service_each_api.api == "2.8":
        assert users_row is None  # 2.8 no longer counts them: the row is left out
    else:
        assert users_row is not None and users_row[1].isdigit()
