"""The Flask test app: the extension, current_user and every guard, over the local service."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from flask import Flask, jsonify

from authmw import AuthConfig
from authmw.errors import UserNotFound
from authmw.middleware import AnonymousUser, AuthUser, Refusal
from authmw_flask import (
    AuthMW,
    current_user,
    team_member_required,
    team_permission_required,
    user_required,
)


def _load_service_support() -> Any:
    # Shared with tests/django, which is not a package (a package named "django" would
    # shadow Django itself).
    path = Path(__file__).resolve().parent.parent / "django" / "service_support.py"
    spec = importlib.util.spec_from_file_location("authmw_service_support", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


service_support = _load_service_support()


def _view(user: Any) -> dict[str, Any]:
    assert isinstance(user, (AuthUser, AnonymousUser))
    return {"id": user.id, "authenticated": user.is_authenticated}


def make_app(config: AuthConfig | None = None, **options: Any) -> Flask:
    app = Flask(__name__)
    app.config["TESTING"] = True
    AuthMW(app, config=config, **options)

    @app.get("/whoami")
    def whoami() -> Any:
        return _view(current_user)

    @app.get("/cacheable")
    def cacheable() -> Any:
        response = jsonify(_view(current_user))
        response.headers["Cache-Control"] = "public, max-age=600"
        return response

    @app.get("/sets-cookie")
    def sets_cookie() -> Any:
        response = jsonify(_view(current_user))
        response.set_cookie("app", "1")
        response.delete_cookie("stack-access")  # the view's own decision wins
        return response

    @app.get("/server-email")
    def server_email() -> Any:
        return {"email": current_user.get_server_user().primary_email}  # type: ignore[union-attr]

    @app.get("/refuses")
    def refuses() -> Any:
        raise Refusal.of(UserNotFound())

    @app.get("/page")
    @user_required
    def page() -> str:
        return f"hello {current_user.id}"

    @app.route("/api/me", methods=["GET", "OPTIONS"])
    @user_required()
    def api_me() -> Any:
        return _view(current_user)

    @app.get("/async/me")
    @user_required(api=True)
    async def async_me() -> Any:
        return _view(current_user)

    @app.get("/teams/<team_id>/")
    @team_member_required
    def team_home(team_id: str) -> Any:
        return {"team": team_id}

    @app.get("/api/orgs/<org>/")
    @team_member_required(team=lambda org: org)
    async def org_home(org: str) -> Any:
        return {"team": org}

    @app.get("/teams/<team_id>/settings")
    @team_permission_required("$update_team")
    def team_settings(team_id: str) -> Any:
        return {"team": team_id, "may": "update"}

    @app.get("/api/teams/<team>/people")
    @team_permission_required("$read_members", team="team")
    def team_people(team: str) -> Any:
        return {"team": team, "may": "read members"}

    @app.get("/wrong-arg/<org>/")
    @team_member_required
    def wrong_arg(org: str) -> Any:
        raise AssertionError("the guard reads team_id, which this view does not get")

    return app


def with_cookies(client: Any, cookie_header: str) -> Any:
    """``client`` carrying the cookies of a ``Cookie`` header (the test client's jar
    replaces a Cookie header passed by hand)."""
    for part in cookie_header.split("; "):
        name, _, value = part.partition("=")
        client.set_cookie(name, value)
    return client
