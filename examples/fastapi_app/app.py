"""The example: the React app (examples/web) and a protected API, on one FastAPI server.

    uvicorn --factory examples.fastapi_app.app:create_app        (or scripts/run_example.sh)

Configuration comes from the environment (``AUTHMW_*``) or else from the local service's
``.authmw/project.env`` (``AUTHMW_ENV_FILE`` names another file).
"""

from __future__ import annotations

import json
import os
from html import escape
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, Response

from authmw import AuthConfig
from authmw.errors import UserAuthenticationRequired
from authmw.middleware import AuthUser, Refusal
from authmw_fastapi import CurrentUser, Guard, PageUser, install, web_routes

ROOT = Path(__file__).resolve().parents[2]
#: Where `npm run build:example` (in js/) puts the React app.
WEB_DIST = ROOT / "examples" / "web" / "dist"
#: Replaced in index.html by the browser's configuration.
CONFIG_MARKER = "<!--AUTHMW_CONFIG-->"


#: AuthConfig fields a person may turn on for the example: guests (/guest) and API keys (/api/export).
EXAMPLE_SWITCHES = {"allow_anonymous": "AUTHMW_ALLOW_ANONYMOUS", "accept_api_keys": "AUTHMW_ACCEPT_API_KEYS"}


def load_config() -> AuthConfig:
    if any(os.environ.get(name) for name in ("AUTHMW_PROJECT_ID", "STACK_PROJECT_ID")):
        return AuthConfig.from_env()
    env_file = Path(os.environ.get("AUTHMW_ENV_FILE", ROOT / ".authmw" / "project.env"))
    if not env_file.is_file():
        raise SystemExit(f"No configuration: set AUTHMW_PROJECT_ID etc., or run `authmw dev` to write {env_file}.")
    # The switches of this example's features also come from the environment with the file.
    switches = {field: os.environ[name] for field, name in EXAMPLE_SWITCHES.items() if name in os.environ}
    return AuthConfig.from_env_file(env_file, **switches)


def browser_config_script(config: AuthConfig) -> str:
    # Only what the browser may see: never the server or admin key.
    public = {
        "projectId": config.project_id,
        "publishableClientKey": config.publishable_client_key,
        "apiUrl": config.api_url,
        "handlerPath": config.handler_path,
        # The app signs anonymous users in (AUTHMW_ALLOW_ANONYMOUS): the pages show them too.
        "allowAnonymous": config.allow_anonymous,
    }
    text = json.dumps(public).replace("<", "\\u003c")
    return f"<script>window.__AUTHMW_CONFIG__ = {text}</script>"


async def user_view(user: AuthUser) -> dict[str, Any]:
    """The user as the API shows it: the server's view when the secret key is configured."""
    if user.server is None:  # only what the token says
        return {"id": user.id, "primary_email": user.email, "display_name": user.display_name}
    full = await user.get_server_user()
    if full is None:  # deleted since the token was issued
        raise Refusal.of(UserAuthenticationRequired())
    return {"id": full.id, "primary_email": full.primary_email, "display_name": full.display_name}


def create_app(config: AuthConfig | None = None, *, web_dist: Path = WEB_DIST) -> FastAPI:
    config = config or load_config()
    web_dist = web_dist.resolve()
    if not (web_dist / "index.html").is_file():
        raise SystemExit(f"{web_dist / 'index.html'} is missing: run `npm ci && npm run build && npm run build:example` in js/.")

    def with_config(index_html: str) -> str:
        return index_html.replace(CONFIG_MARKER, browser_config_script(config))

    app = FastAPI(title="authmw example", docs_url=None, redoc_url=None, openapi_url=None)
    install(app, config)

    @app.get("/api/me")
    async def me(user: CurrentUser) -> dict[str, Any]:
        return await user_view(user)

    @app.get("/account", response_class=HTMLResponse)
    async def account(user: PageUser) -> str:
        """A server-rendered page: anonymous visitors are sent to sign in, then back here."""
        return f'<p data-testid="account">Signed in as {escape(user.id)}</p>'

    #: How often each user called POST /api/actions: the example's state-changing endpoint.
    actions: dict[str, int] = {}

    @app.post("/api/actions")
    async def act(user: CurrentUser) -> dict[str, int]:
        """Does something for the user. Signed in from cookies, only the app's own pages (or
        trusted origins) may call it: the middleware answers 403 to other sites."""
        actions[user.id] = actions.get(user.id, 0) + 1
        return {"count": actions[user.id]}

    @app.get("/api/actions")
    async def action_count(user: CurrentUser) -> dict[str, int]:
        return {"count": actions.get(user.id, 0)}

    @app.get("/api/export")
    async def export(user: Any = Depends(Guard(api_keys=True))) -> dict[str, Any]:  # noqa: B008
        """For scripts: a signed-in browser, or a user's API key made in account settings
        (``Authorization: Bearer sk_...``) when the app accepts keys (``AUTHMW_ACCEPT_API_KEYS=true``
        and API keys on in the project). ``via`` tells a person from a key."""
        return {"id": user.id, "via": user.via, "actions": actions.get(user.id, 0)}

    @app.api_route("/api/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"], include_in_schema=False)
    async def api_not_found(path: str) -> Response:
        return JSONResponse({"error": f"No API route /api/{path}"}, status_code=404)

    # The built React app, last: its files (hashed assets cached for good) and index.html, with
    # the browser's settings in it, for every page path; never /api or /account.
    app.router.routes.extend(web_routes(web_dist, server_paths=["/account"], index_html=with_config))
    return app
