"""AuthMW: the session on current_user, refresh and cookies, through Flask's test client."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from flask import Flask
from flask_testapp import with_cookies
from middleware.support import CountingSyncTransport, clear_project_env, cookie_header

from authmw.errors import ConfigurationError
from authmw_flask import AuthMW, current_user


def session_cookies(response: Any) -> dict[str, str]:
    """name -> full Set-Cookie value, for the session's cookies."""
    found = {}
    for value in response.headers.getlist("Set-Cookie"):
        name = value.split("=", 1)[0]
        if name.startswith("stack-"):
            found[name] = value
    return found


def value_of(set_cookie: str) -> str:
    return unquote(set_cookie.split(";", 1)[0].split("=", 1)[1])


def unreachable() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_anonymous_without_cookies(app) -> None:
    r = app.test_client().get("/whoami")
    assert r.json == {"id": None, "authenticated": False}
    assert session_cookies(r) == {}


def test_signed_in_with_cookies(app, local_service) -> None:
    s = local_service.sign_up()
    r = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token)).get(
        "/whoami"
    )
    assert r.json == {"id": s.user_id, "authenticated": True}
    assert session_cookies(r) == {}


def test_signed_in_with_x_stack_auth_header(app, local_service) -> None:
    s = local_service.sign_up()
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    assert app.test_client().get("/whoami", headers={"x-stack-auth": header}).json["id"] == s.user_id


def test_invalid_header_is_a_400_and_the_view_does_not_run(app) -> None:
    r = app.test_client().get("/whoami", headers={"x-stack-auth": "null"})
    assert r.status_code == 400
    assert r.json["error"].startswith("Invalid x-stack-auth header: ")


def test_expired_access_token_is_refreshed_and_both_cookies_rewritten(short_app, short_service, expiring) -> None:
    s, pid = expiring, short_service.project_id
    r = with_cookies(short_app.test_client(), cookie_header(pid, s.refresh_token, s.access_token)).get("/whoami")
    assert r.json == {"id": s.user_id, "authenticated": True}
    cookies = session_cookies(r)
    assert set(cookies) == {f"stack-refresh-{pid}", "stack-access", "stack-refresh"}
    assert value_of(cookies[f"stack-refresh-{pid}"]) == s.refresh_token
    assert "Max-Age=31536000" in cookies[f"stack-refresh-{pid}"] and "Path=/" in cookies[f"stack-refresh-{pid}"]
    refresh, access = json.loads(value_of(cookies["stack-access"]))
    assert refresh == s.refresh_token and access != s.access_token
    assert "Max-Age=0" in cookies["stack-refresh"]


def test_responses_carrying_session_cookies_are_never_stored_by_caches(app, local_service) -> None:
    """As under ASGI/WSGI: refreshed or deleted session cookies make the response no-store
    (the view's own Cache-Control is replaced); a response without them keeps the view's."""
    s, pid = local_service.sign_up(), local_service.project_id
    signed_in = with_cookies(app.test_client(), cookie_header(pid, s.refresh_token, s.access_token))
    r = signed_in.get("/cacheable")
    assert session_cookies(r) == {} and r.headers["Cache-Control"] == "public, max-age=600"

    refreshed = with_cookies(app.test_client(), cookie_header(pid, s.refresh_token))  # no access token: refresh
    r = refreshed.get("/cacheable")
    assert r.json["id"] == s.user_id and "stack-access" in session_cookies(r)
    assert r.headers.getlist("Cache-Control") == ["no-store"]

    r = with_cookies(app.test_client(), cookie_header(pid, "refused" * 7)).get("/cacheable")
    assert value_of(session_cookies(r)[f"stack-refresh-{pid}"]) == ""
    assert r.headers.getlist("Cache-Control") == ["no-store"]


def test_expired_access_token_is_refreshed(app_factory, brief) -> None:
    user_id, refresh, access = brief.expired_session()
    client = with_cookies(app_factory(brief.config).test_client(), cookie_header(brief.project_id, refresh, access))
    r = client.get("/whoami")
    assert r.json == {"id": user_id, "authenticated": True}
    cookies = session_cookies(r)
    assert set(cookies) == {f"stack-refresh-{brief.project_id}", "stack-access", "stack-refresh"}
    assert json.loads(value_of(cookies["stack-access"]))[1] != access


def test_a_header_session_is_refreshed_without_cookies(short_app, expiring) -> None:
    s = expiring
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    r = short_app.test_client().get("/whoami", headers={"x-stack-auth": header})
    assert r.json["id"] == s.user_id
    assert session_cookies(r) == {}


def test_refreshed_cookies_reach_the_test_clients_jar(short_app, short_service, expiring) -> None:
    s, pid = expiring, short_service.project_id
    client = with_cookies(short_app.test_client(), cookie_header(pid, s.refresh_token, s.access_token))
    client.get("/whoami")
    assert client.get_cookie(f"stack-refresh-{pid}").value == s.refresh_token
    # The next request carries the rewritten cookies and needs no refresh.
    r = client.get("/whoami")
    assert r.json["id"] == s.user_id and session_cookies(r) == {}


def test_cookies_the_view_set_itself_win(short_app, short_service, expiring) -> None:
    s, pid = expiring, short_service.project_id
    r = with_cookies(short_app.test_client(), cookie_header(pid, s.refresh_token, s.access_token)).get("/sets-cookie")
    cookies = session_cookies(r)
    assert value_of(cookies["stack-access"]) == "" and "Max-Age=0" in cookies["stack-access"]
    assert value_of(cookies[f"stack-refresh-{pid}"]) == s.refresh_token
    assert len(r.headers.getlist("Set-Cookie")) == 4  # app, stack-access (the view's), refresh, legacy


def test_revoked_refresh_token_clears_cookies_and_user_is_anonymous(short_app, short_service, expiring) -> None:
    s = expiring
    short_service.sign_out(s)
    r = with_cookies(
        short_app.test_client(), cookie_header(short_service.project_id, s.refresh_token, s.access_token)
    ).get("/whoami")
    assert r.json == {"id": None, "authenticated": False}
    cookies = session_cookies(r)
    assert set(cookies) == {f"stack-refresh-{short_service.project_id}", "stack-access", "stack-refresh"}
    assert all("Max-Age=0" in v for v in cookies.values())


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_service_unreachable_during_refresh(app_factory, short_service, expiring, mode: str, status: int) -> None:
    s = expiring
    app = app_factory(short_service.config.with_(api_url=unreachable()), on_refresh_unavailable=mode)
    r = with_cookies(app.test_client(), cookie_header(short_service.project_id, s.refresh_token, s.access_token)).get(
        "/whoami"
    )
    assert r.status_code == status
    if status == 200:
        assert r.json == {"id": None, "authenticated": False}
    else:
        assert r.json == {"error": "The authentication service is unavailable; try again shortly."}
    assert session_cookies(r) == {}


def test_threads_needing_the_same_refresh_make_one_call(app_factory, short_service, expiring) -> None:
    s = expiring
    counting = CountingSyncTransport()
    app = app_factory(short_service.config, http=lambda: httpx.Client(transport=counting))
    cookie = cookie_header(short_service.project_id, s.refresh_token, s.access_token)

    def one(_: int) -> tuple[str, int]:
        r = with_cookies(app.test_client(), cookie).get("/whoami")
        return r.json["id"], len(session_cookies(r))

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(one, range(32)))
    assert results == [(s.user_id, 3)] * 32
    assert counting.refreshes == 1


def test_current_user_offers_the_server_view(app, local_service) -> None:
    s = local_service.sign_up()
    r = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token)).get(
        "/server-email"
    )
    assert r.json == {"email": s.email}


def test_a_view_raising_refusal_gets_the_service_envelope(app) -> None:
    r = app.test_client().get("/refuses")
    assert r.status_code == 404
    assert r.json["code"] == "USER_NOT_FOUND" and r.headers["x-stack-known-error"] == "USER_NOT_FOUND"


# -- the extension -------------------------------------------------------------------------


def test_init_app_later_and_app_config(local_service) -> None:
    extension = AuthMW()
    app = Flask(__name__)
    config = local_service.config
    app.config.update(
        AUTHMW_PROJECT_ID=config.project_id,
        AUTHMW_API_URL=config.api_url,
        AUTHMW_SECRET_SERVER_KEY=config.secret_server_key,
        AUTHMW_API_PATHS=["/v2/"],
    )
    extension.init_app(app)
    auth = app.extensions["authmw"]
    assert auth.config.project_id == config.project_id and auth.resolver.options.api_paths == ("/v2/",)


def test_init_app_twice_is_refused(local_service) -> None:
    app = Flask(__name__)
    extension = AuthMW(app, config=local_service.config)
    with pytest.raises(ConfigurationError, match="init_app called twice"):
        extension.init_app(app)


def test_env_file(local_service, tmp_path, monkeypatch) -> None:
    for name in ("AUTHMW_PROJECT_ID", "AUTHMW_SECRET_SERVER_KEY", "AUTHMW_PUBLISHABLE_CLIENT_KEY", "AUTHMW_API_URL"):
        monkeypatch.delenv(name, raising=False)
    env = tmp_path / "project.env"
    env.write_text(f"AUTHMW_PROJECT_ID={local_service.project_id}\nAUTHMW_SECRET_SERVER_KEY=ssk\n")
    app = Flask(__name__)
    app.config["AUTHMW_ENV_FILE"] = str(env)
    AuthMW(app)
    assert app.extensions["authmw"].config.secret_server_key == "ssk"


@pytest.mark.parametrize(
    "config, says",
    [
        ({}, 'app.config["AUTHMW_PROJECT_ID"]'),
        ({"AUTHMW_PROJECT_ID": "internal"}, 'app.config["AUTHMW_SECRET_SERVER_KEY"]'),
        (
            {"AUTHMW_PROJECT_ID": "internal", "AUTHMW_SECRET_SERVER_KEY": "k", "AUTHMW_ON_REFRESH_UNAVAILABLE": "no"},
            "AUTHMW_ON_REFRESH_UNAVAILABLE",
        ),
    ],
)
def test_missing_settings_name_the_fix(monkeypatch, config: dict[str, Any], says: str) -> None:
    clear_project_env(monkeypatch)
    app = Flask(__name__)
    app.config.update(config)
    with pytest.raises(ConfigurationError) as raised:
        AuthMW(app)
    assert says in str(raised.value)


def test_current_user_without_the_extension_names_the_fix() -> None:
    app = Flask(__name__)
    with app.test_request_context("/"), pytest.raises(ConfigurationError, match=r"AuthMW\(app\)"):
        bool(current_user)


def test_hooks_registered_before_the_extension_see_the_user(local_service) -> None:
    from flask import g, jsonify

    app = Flask(__name__)
    seen: dict[str, Any] = {}

    @app.before_request
    def early() -> None:
        seen["id"] = current_user.id

    AuthMW(app, config=local_service.config)

    @app.get("/")
    def index() -> Any:
        return jsonify(id=current_user.id, same=g._authmw.user is current_user._get_current_object())

    s = local_service.sign_up()
    r = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token)).get(
        "/"
    )
    assert r.json == {"id": s.user_id, "same": True}
    assert seen == {"id": s.user_id}
