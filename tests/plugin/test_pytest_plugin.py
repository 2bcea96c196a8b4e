"""The pytest plugin as an app team uses it: throw-away FastAPI, Flask and Django apps in a
temporary folder, no conftest.py, whose tests sign users in with the plugin's fixtures. Each
runs in its own pytest process (the entry point registers the plugin there, as in any app)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

FASTAPI_APP = """
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from authmw.middleware import AuthMiddleware
from authmw_fastapi import require_user


def make_app(config):
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=config)

    @app.get("/api/me")
    def me(user=Depends(require_user)):
        return {"id": user.id, "email": user.claims.email}

    return app


def test_the_guarded_route_with_the_react_cookies(authmw_config, authmw_user):
    user = authmw_user(display_name="Ada")
    client = TestClient(make_app(authmw_config))
    client.cookies.update(user.cookies)
    assert client.get("/api/me").json() == {"id": user.id, "email": user.email}


def test_the_guarded_route_with_the_header_and_signed_out(authmw_config, authmw_user):
    user = authmw_user(email="grace@example.com", password="s3cret pass")
    client = TestClient(make_app(authmw_config))
    assert client.get("/api/me", headers=user.headers).json()["email"] == "grace@example.com"
    assert client.get("/api/me").status_code == 401
    assert user.client.get_user().display_name is None
    assert user.password == "s3cret pass"


def test_the_service(authmw_service):
    assert authmw_service.url.startswith("http://127.0.0.1:")
    assert authmw_service.local is not None and authmw_service.data_dir.is_dir()
"""

FLASK_APP = """
from flask import Flask

from authmw_flask import AuthMW, current_user, user_required


def make_app(config):
    app = Flask(__name__)
    AuthMW(app, config=config)

    @app.get("/api/me")
    @user_required(api=True)
    def me():
        return {"id": current_user.id}

    return app


def test_flask(authmw_config, authmw_user):
    user = authmw_user()
    client = make_app(authmw_config).test_client()
    for name, value in user.cookies.items():
        client.set_cookie(name, value)
    assert client.get("/api/me").get_json() == {"id": user.id}
    client.delete_cookie(next(iter(user.cookies)))
    assert make_app(authmw_config).test_client().get("/api/me").status_code == 401
    assert make_app(authmw_config).test_client().get("/api/me", headers=user.headers).get_json() == {"id": user.id}
"""

DJANGO_APP = """
import django
import pytest
from django.conf import settings
from django.http import JsonResponse
from django.urls import path

from authmw_django import user_required


@user_required(api=True)
def me(request):
    return JsonResponse({"id": request.user.id})


urlpatterns = [path("api/me", me)]


@pytest.fixture(scope="session", autouse=True)
def django_site(authmw_config):
    settings.configure(
        ROOT_URLCONF=__name__,
        ALLOWED_HOSTS=["testserver"],
        MIDDLEWARE=["authmw_django.AuthMiddleware"],
        AUTHMW={
            "PROJECT_ID": authmw_config.project_id,
            "API_URL": authmw_config.api_url,
            "PUBLISHABLE_CLIENT_KEY": authmw_config.publishable_client_key,
            "SECRET_SERVER_KEY": authmw_config.secret_server_key,
        },
    )
    django.setup()


def test_django(authmw_user):
    from django.test import Client

    user = authmw_user()
    client = Client()
    for name, value in user.cookies.items():
        client.cookies[name] = value
    assert client.get("/api/me").json() == {"id": user.id}
    assert Client().get("/api/me").status_code == 401
    assert Client(headers=user.headers).get("/api/me").json() == {"id": user.id}
"""


@pytest.mark.parametrize(
    ("app", "passed"), [(FASTAPI_APP, 3), (FLASK_APP, 1), (DJANGO_APP, 1)], ids=["fastapi", "flask", "django"]
)
def test_an_apps_tests_use_the_fixtures_without_a_conftest(pytester: pytest.Pytester, app: str, passed: int) -> None:
    pytester.makepyfile(test_app=app)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=passed)


def test_users_made_for_a_test_are_deleted_after_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_cleanup="""
from authmw import ServerApp

made = []


def test_make(authmw_user):
    made.append(authmw_user().id)


def test_gone(authmw_config):
    assert ServerApp(authmw_config).get_user(made[0]) is None
"""
    )
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_running_service_named_by_the_option(pytester: pytest.Pytester, local_service) -> None:
    """--authmw-url with an env file: the fixtures use that service instead of starting one."""
    env = pytester.path / "project.env"
    env.write_text(
        f"AUTHMW_PROJECT_ID={local_service.project_id}\n"
        f"AUTHMW_PUBLISHABLE_CLIENT_KEY={local_service.config.publishable_client_key}\n"
        f"AUTHMW_SECRET_SERVER_KEY={local_service.config.secret_server_key}\n"
    )
    pytester.makepyfile(
        test_remote=f'''
def test_remote(authmw_service, authmw_user):
    assert authmw_service.url == "{local_service.url}" and authmw_service.local is None
    assert authmw_user().client.get_user().primary_email.endswith("@example.com")
'''
    )
    result = pytester.runpytest_subprocess(
        "-q", "-p", "no:cacheprovider", "--authmw-url", local_service.url, "--authmw-env-file", str(env)
    )
    result.assert_outcomes(passed=1)


def test_a_missing_env_file_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x(authmw_service):\n    pass\n")
    result = pytester.runpytest_subprocess("--authmw-url", "http://127.0.0.1:9", "--authmw-env-file", "nope.env")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--authmw-env-file*nope.env*"])
