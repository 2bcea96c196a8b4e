"""The example: the React app (examples/web) and a protected API, on one Flask server.

    flask --app examples/flask_app/app.py:create_app run --port 8000

Configuration comes from the environment (``AUTHMW_*``) or else from the local service's
``.authmw/project.env`` (``AUTHMW_ENV_FILE`` names another file).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from flask import Flask, Response, jsonify
from markupsafe import escape

from authmw import AuthConfig
from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AuthUser, Refusal
from authmw_flask import AuthMW, current_user, get_user, serve_web, user_required

ROOT = Path(__file__).resolve().parents[2]
#: Where `npm run build:example` (in js/) puts the React app.
WEB_DIST = ROOT / "examples" / "web" / "dist"
#: Replaced in index.html by the browser's configuration.
CONFIG_MARKER = "<!--AUTHMW_CONFIG-->"


def public_config(config: AuthConfig) -> str:
    """A script giving the browser its settings: never the server key."""
    public = {
        "projectId": config.project_id,
        "publishableClientKey": config.publishable_client_key,
        "apiUrl": config.api_url,
        "handlerPath": config.handler_path,
    }
    return "<script>window.__AUTHMW_CONFIG__ = " + json.dumps(public).replace("<", "\\u003c") + "</script>"


def create_app(config: AuthConfig | None = None, *, web_dist: Path = WEB_DIST) -> Flask:
    web_dist = web_dist.resolve()
    index = web_dist / "index.html"
    if not index.is_file():
        raise SystemExit(f"{index} is missing: run `npm ci && npm run build && npm run build:example` in js/.")

    app = Flask(__name__, static_folder=None)
    env_file = Path(os.environ.get("AUTHMW_ENV_FILE", ROOT / ".authmw" / "project.env"))
    if env_file.is_file():
        app.config["AUTHMW_ENV_FILE"] = str(env_file)  # variables in the environment win over it
    AuthMW(app, config=config)

    def with_config(index_html: str) -> str:
        return index_html.replace(CONFIG_MARKER, public_config(app.extensions["authmw"].config))

    @app.get("/api/me")
    @user_required
    def me() -> Response:
        user = get_user()
        assert isinstance(user, AuthUser)  # user_required lets only signed-in users through
        if user.server is None:  # no secret server key: only what the token says
            return jsonify(id=user.id, primary_email=user.email, display_name=user.display_name)
        full = user.get_server_user()
        if full is None:  # deleted since the token was issued
            raise Refusal.of(UserAuthenticationRequired())
        return jsonify(id=full.id, primary_email=full.primary_email, display_name=full.display_name)

    @app.get("/account")
    @user_required
    def account() -> str:
        """A server-rendered page: anonymous visitors are sent to sign in, then back here."""
        return f'<p data-testid="account">Signed in as {escape(current_user.id)}</p>'

    @app.route("/api/<path:path>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    def api_not_found(path: str) -> tuple[Response, int]:
        return jsonify(error=f"No API route /api/{path}"), 404

    # The built React app: its files (hashed assets cached for good) and index.html, with the
    # browser's settings in it, for every page path; never /api or /account.
    serve_web(app, web_dist, server_paths=["/account"], index_html=with_config)
    return app
