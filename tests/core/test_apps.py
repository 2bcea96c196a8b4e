"""The apps' own logic (binding, payloads, session effects) over a fake network."""

from __future__ import annotations

import inspect
import json
import time

import httpx
import pytest

from authmw import AsyncClientApp, AsyncServerApp, AuthConfig, ClientApp, ServerApp
from authmw._apps import operation
from authmw.errors import ConfigurationError, HttpStatusError

from .conftest import Recorder, known_error, unsigned_token

RT = "r" * 45


def access() -> str:
    return unsigned_token({"sub": "u", "exp": time.time() + 600})


def user_json(**overrides):
    return {"id": "u1", "signed_up_at_millis": 1_700_000_000_000, "auth_with_email": True, **overrides}


def test_sync_and_async_apps_share_each_operation():
    for name in ("sign_in_with_password", "get_user", "update_user", "get_project"):
        assert getattr(ClientApp, name) is getattr(AsyncClientApp, name)
        assert isinstance(getattr(ClientApp, name), operation)
    assert ServerApp.create_session is AsyncServerApp.create_session
    assert type(ServerApp.get_project) is operation and ServerApp.get_project is ClientApp.get_project


def test_bound_operations_look_like_plain_methods(config):
    with ClientApp(config) as app:
        assert str(inspect.signature(app.sign_in_with_password)) == "(email: 'str', password: 'str')"
        assert app.get_user.__name__ == "get_user" and "signed-in user" in app.get_user.__doc__
        assert not inspect.iscoroutinefunction(app.get_user)
    app = AsyncClientApp(config)
    assert inspect.iscoroutinefunction(app.get_user)


def test_constructors(config, monkeypatch):
    assert ClientApp(config).config is config
    assert ClientApp(config, api_url="http://other.test").config.api_url == "http://other.test"
    assert (
        ClientApp(project_id=config.project_id, publishable_client_key="pck_x").config.project_id == config.project_id
    )
    monkeypatch.setenv("AUTHMW_PROJECT_ID", config.project_id)
    monkeypatch.setenv("AUTHMW_SECRET_SERVER_KEY", "ssk_from_env")
    assert ServerApp().config.secret_server_key == "ssk_from_env"
    monkeypatch.delenv("AUTHMW_SECRET_SERVER_KEY")
    with pytest.raises(ConfigurationError, match="AUTHMW_SECRET_SERVER_KEY"):
        ServerApp()


def test_repr_shows_no_secret(config):
    for app in (ClientApp(config, refresh_token=RT), ServerApp(config)):
        text = repr(app) + repr(getattr(app, "session", ""))
        assert "ssk_" not in text and "pck_" not in text and RT not in text


def test_context_managers_close_only_their_own_driver(config, jwks_server):
    with ClientApp(config) as app:
        pass
    assert app._driver.http.is_closed
    driver = jwks_server.sync_driver()
    with ServerApp(config, driver=driver):
        pass
    assert not driver.http.is_closed


async def test_async_context_manager(config):
    async with AsyncServerApp(config) as app:
        pass
    assert app._driver.http.is_closed


def test_sign_in_stores_the_tokens_and_reports_the_change(config):
    token = access()
    service = Recorder(
        lambda r: httpx.Response(200, json={"access_token": token, "refresh_token": RT, "user_id": "u1"})
    )
    app = ClientApp(config, driver=service.sync_driver())
    seen = []
    app.session.on_change(lambda s: seen.append(s.refresh_token))
    result = app.sign_in_with_password("a@b.example.com", "pw")
    assert result.user_id == "u1" and app.session.access_token == token and seen == [RT]
    assert json.loads(service.requests[0].content) == {"email": "a@b.example.com", "password": "pw"}
    assert "x-stack-access-token" not in service.requests[0].headers
    assert token not in repr(result)


def test_sign_up_sends_a_verification_callback(config):
    service = Recorder(lambda r: httpx.Response(200, json={"access_token": access(), "refresh_token": RT}))
    app = ClientApp(config, driver=service.sync_driver())
    app.sign_up_with_password("a@b.example.com", "pw", "https://app.example.com/handler/email-verification")
    app.sign_up_with_password("a@b.example.com", "pw")
    first, second = (json.loads(r.content)["verification_callback_url"] for r in service.requests)
    assert first == "https://app.example.com/handler/email-verification"
    assert second == "http://auth.test/handler/email-verification"


def test_get_user_without_user_is_none(config):
    service = Recorder(lambda r: known_error(r, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400))
    app = ClientApp(config, access_token=access(), refresh_token=RT, driver=service.sync_driver())
    assert app.get_user() is None
    assert ClientApp(config, driver=service.sync_driver()).get_user() is None
    assert len(service.requests) == 1  # no call at all without a session


def test_update_user_sends_only_given_fields(config):
    service = Recorder(lambda r: httpx.Response(200, json=user_json(display_name=None)))
    app = ClientApp(config, access_token=access(), refresh_token=RT, driver=service.sync_driver())
    user = app.update_user(display_name=None, client_metadata={"a": 1})
    assert json.loads(service.requests[0].content) == {"display_name": None, "client_metadata": {"a": 1}}
    assert service.requests[0].method == "PATCH" and user.email_auth_enabled


def test_delete_user_invalidates_the_session(config):
    service = Recorder(lambda r: httpx.Response(200, json={"success": True}))
    app = ClientApp(config, access_token=access(), refresh_token=RT, driver=service.sync_driver())
    app.delete_user()
    assert app.session.is_known_invalid and app.session.refresh_token is None


def test_failed_delete_keeps_the_session(config):
    service = Recorder(lambda r: httpx.Response(400, text="Client user deletion is not enabled for this project"))
    app = ClientApp(config, access_token=access(), refresh_token=RT, driver=service.sync_driver())
    with pytest.raises(HttpStatusError):
        app.delete_user()
    assert app.session.is_signed_in


def test_server_calls(config):
    def handler(request):
        if request.url.path == "/api/v1/auth/sessions":
            return httpx.Response(200, json={"access_token": "a", "refresh_token": "r"})
        if request.url.path.endswith("/missing"):
            return known_error(request, "USER_NOT_FOUND", 404)
        return httpx.Response(200, json=user_json(server_metadata={"x": 1}, last_active_at_millis=1))

    service = Recorder(handler)
    server = ServerApp(config, driver=service.sync_driver())
    assert server.get_user("u1").server_metadata == {"x": 1}
    assert server.users.get("missing") is None
    pair = server.create_session("u1")
    assert (pair.access_token, pair.refresh_token) == ("a", "r")
    assert json.loads(service.requests[-1].content) == {"user_id": "u1", "expires_in_millis": 31_536_000_000}
    assert all(r.headers["x-stack-access-type"] == "server" for r in service.requests)


def test_client_app_needs_the_publishable_key(project_id):
    with pytest.raises(ConfigurationError, match="publishable_client_key"):
        ClientApp(AuthConfig(project_id=project_id))


def test_answer_that_does_not_fit_the_model_is_an_invalid_server_response(config):
    from authmw.errors import InvalidServerResponse

    service = Recorder(lambda r: httpx.Response(200, json={"id": 5, "signed_up_at_millis": "yesterday"}))
    app = ClientApp(config, access_token=access(), refresh_token=RT, driver=service.sync_driver())
    with pytest.raises(InvalidServerResponse, match="User"):
        app.get_user()


def test_invalid_sign_in_answer_does_not_leak_tokens(config):
    from authmw.errors import InvalidServerResponse

    service = Recorder(lambda r: httpx.Response(200, json={"access_token": "secret-access", "refresh_token": 5}))
    app = ClientApp(config, driver=service.sync_driver())
    with pytest.raises(InvalidServerResponse) as info:
        app.sign_in_with_password("a@b.example.com", "pw")
    assert "secret-access" not in str(info.value) and "refresh_token" in str(info.value)


@pytest.mark.parametrize("user_id", ["..", "", "."])
def test_ids_cannot_escape_their_path(config, user_id):
    server = ServerApp(config, driver=Recorder(lambda r: httpx.Response(500)).sync_driver())
    with pytest.raises(ValueError):
        server.get_user(user_id)


def test_ids_are_percent_encoded(config):
    service = Recorder(lambda r: known_error(r, "USER_NOT_FOUND", 404))
    ServerApp(config, driver=service.sync_driver()).get_user("../projects/current?x=1")
    assert service.requests[0].url.raw_path == b"/api/v1/users/..%2Fprojects%2Fcurrent%3Fx%3D1"


def test_auth_headers_forward_the_session(config):
    token = access()
    app = ClientApp(
        config, access_token=token, refresh_token=RT, driver=Recorder(lambda r: httpx.Response(500)).sync_driver()
    )
    headers = app.get_auth_headers()
    assert json.loads(headers["x-stack-auth"]) == {"accessToken": token, "refreshToken": RT}
    assert json.loads(ClientApp(config).get_auth_headers()["x-stack-auth"]) == {
        "accessToken": None,
        "refreshToken": None,
    }


def test_many_open_apps_earn_one_warning(config, caplog, monkeypatch):
    from authmw._apps import _base as _apps

    monkeypatch.setattr(_apps, "_warned_open_apps", False)
    monkeypatch.setattr(_apps, "_open_apps", type(_apps._open_apps)())
    apps = [ServerApp(config) for _ in range(12)]
    warnings = [r for r in caplog.records if "apps are open" in r.getMessage()]
    assert len(warnings) == 1
    for app in apps:
        app.close()
    assert len(_apps._open_apps) == 0
