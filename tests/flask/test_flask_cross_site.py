"""Flask: cross-site requests with the session cookies, through Flask's test client."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, request
from flask_testapp import make_app, with_cookies
from middleware.cross_site import EVIL, TRUSTED, run_cases, run_header_sessions
from middleware.support import cookie_header

from authmw.errors import ConfigurationError
from authmw_flask import current_user

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PURGE"]


def with_action(app: Flask) -> list[tuple[str, Any]]:
    actions: list[tuple[str, Any]] = []

    @app.route("/action", methods=METHODS)
    def action() -> Any:
        actions.append((request.method, current_user.id))
        return {"done": True}

    return actions


def post(app: Flask, method: str, headers: dict[str, str]) -> Any:
    """One request from a fresh client (the test client's jar replaces a Cookie header)."""
    headers = dict(headers)
    client = app.test_client()
    if "cookie" in headers:
        with_cookies(client, headers.pop("cookie"))
    return client.open("/action", method=method, headers=headers)


def session(service: Any) -> tuple[str, Any, str]:
    s = service.sign_up()
    return cookie_header(service.project_id, s.refresh_token, s.access_token), s, s.user_id


@pytest.mark.parametrize("where", ["argument", "app.config"])
def test_cookie_sessions_are_checked(local_service, where: str) -> None:
    cookie, header, user_id = session(local_service)
    if where == "argument":
        app = make_app(local_service.config, trusted_origins=TRUSTED)
    else:
        app = Flask(__name__)
        app.config.update(AUTHMW_TRUSTED_ORIGINS=TRUSTED)
        from authmw_flask import AuthMW

        AuthMW(app, config=local_service.config)
    actions = with_action(app)

    def send(method: str, headers: dict[str, str]) -> Any:
        return post(app, method, headers)

    run_cases(send, actions, cookie, user_id, own="http://localhost")
    run_header_sessions(send, actions, header)


def test_the_check_can_be_turned_off(local_service) -> None:
    cookie, _, user_id = session(local_service)
    app = Flask(__name__)
    app.config.update(AUTHMW_CSRF_CHECK=False)
    from authmw_flask import AuthMW

    AuthMW(app, config=local_service.config)
    actions = with_action(app)
    r = post(app, "POST", {"cookie": cookie, "origin": EVIL})
    assert r.status_code == 200 and actions == [("POST", user_id)]


def test_refused_requests_keep_the_refreshed_cookies(local_service) -> None:
    s = local_service.sign_up()
    app = make_app(local_service.config)
    actions = with_action(app)
    # Only the refresh token: the session is refreshed, then the request refused.
    r = post(app, "POST", {"cookie": cookie_header(local_service.project_id, s.refresh_token), "origin": EVIL})
    assert r.status_code == 403 and actions == []
    written = r.headers.getlist("Set-Cookie")
    assert {v.split("=", 1)[0] for v in written} == {
        f"stack-refresh-{local_service.project_id}",
        "stack-access",
        "stack-refresh",
    }
    assert all("SameSite=Lax" in v and "Max-Age=0" not in v for v in written if not v.startswith("stack-refresh="))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"AUTHMW_TRUSTED_ORIGINS": "https://a.example"}, r'app.config\["AUTHMW_TRUSTED_ORIGINS"\] must be a list'),
        ({"AUTHMW_CSRF_CHECK": "off"}, r'app.config\["AUTHMW_CSRF_CHECK"\] must be True or False'),
        ({"AUTHMW_COOKIE_SAME_SITE": "None"}, r'app.config\["AUTHMW_COOKIE_SECURE"\] to True'),
    ],
)
def test_bad_settings_name_the_flask_setting(local_service, config: dict[str, Any], message: str) -> None:
    from authmw_flask import AuthMW

    app = Flask(__name__)
    app.config.update(config)
    with pytest.raises(ConfigurationError, match=message):
        AuthMW(app, config=local_service.config)


def test_a_misspelt_argument_is_refused_and_every_setting_is_an_argument(local_service) -> None:
    from authmw_flask import AuthMW

    with pytest.raises(ConfigurationError, match="no setting trusted_origin; its settings are .*trusted_origins"):
        AuthMW(Flask(__name__), config=local_service.config, trusted_origin=["https://a.example"])  # type: ignore[call-arg]
    app = Flask(__name__)  # the control: any setting of the table, in lower case (docs/flask.md)
    keys = {"project_id": local_service.project_id, "api_url": local_service.config.api_url}
    AuthMW(app, **keys, secret_server_key=local_service.config.secret_server_key, csrf_check=False)  # type: ignore[arg-type]
    assert app.extensions["authmw"].config.project_id == local_service.project_id
