"""The Starlette application of the local service."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from .api_version import DEFAULT_API, ApiVersionMiddleware, api_version
from .bootstrap import Bootstrap, ensure_projects, env_values, write_env_file
from .clock import ClockMiddleware
from .db import Database
from .delivery import mark_interrupted
from .end_user import EndUserMiddleware
from .endpoint import NOT_FOUND_TEXT
from .keys import KeyStore
from .middleware import ServiceHeadersMiddleware
from .routes import all_routes
from .seed import InternalKeys
from .service import Service
from .webhooks import Sender


async def _not_found(request: Request, exc: Exception) -> Response:
    if request.url.path == "/api" or request.url.path.startswith("/api/"):
        return PlainTextResponse(NOT_FOUND_TEXT.format(url=str(request.url)), 404)
    return PlainTextResponse("Not found", 404)


async def _method_not_allowed(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("Method not allowed", 405)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return PlainTextResponse(str(exc.detail), exc.status_code)


def create_app(
    data_dir: str | Path,
    access_token_ttl: float = 600,
    *,
    api_url: str | None = None,
    on_first_start: Callable[[Bootstrap], None] | None = None,
    clock: Callable[[], float] = time.time,
    api: str = DEFAULT_API,
    internal_keys: InternalKeys | None = None,
    shared_oauth_server: str | None = None,
    project_name: str | None = None,
    fixed_passkey_challenge: bool = False,
) -> Starlette:
    """Open (or create) the service's data in `data_dir` and build the ASGI app.

    With `api_url`, `<data_dir>/project.env` is (re)written with the AUTHMW_* settings.
    `on_first_start` is called once when the data folder was empty (e.g. to print the keys).
    `clock` is the time requests see (tests pass a `Clock` to stop or move it).
    `api` is the backend version the service answers as ("2.8" or "2.7", api_version.py);
    `api_url` is also the base of the 2.8 token issuers (without it, each request's own URL).
    `internal_keys` (seed.py) become one more key set of the `internal` project.
    `shared_oauth_server`: the OIDC server that serves `shared` OAuth providers (outside_oauth.py).
    `project_name` names the local project (on every start).
    `fixed_passkey_challenge` (testing only) makes every passkey challenge the fixed "MOCK", so
    recorded WebAuthn ceremonies verify (Stack's suite); off, each challenge is random.
    """
    version = api_version(api)
    db = Database.in_dir(data_dir)
    bootstrap = ensure_projects(db, internal_keys, version.name, project_name)
    mark_interrupted(db)
    if bootstrap.created and on_first_start is not None:
        on_first_start(bootstrap)
    if api_url is not None:
        write_env_file(data_dir, env_values(api_url, bootstrap.project))
    app = Starlette(
        routes=all_routes(),
        middleware=[
            Middleware(ServiceHeadersMiddleware),
            Middleware(ClockMiddleware, clock=clock),
            Middleware(ApiVersionMiddleware, api=version),
            Middleware(EndUserMiddleware),
        ],
        exception_handlers={404: _not_found, 405: _method_not_allowed, HTTPException: _http_error},
    )
    app.router.redirect_slashes = False
    app.state.service = Service(
        db=db, keys=KeyStore(db), access_token_ttl=access_token_ttl, api=version, public_url=api_url,
        shared_oauth_server=shared_oauth_server, fixed_passkey_challenge=fixed_passkey_challenge,
    )
    app.state.webhook_sender = Sender(db, clock).start()  # webhooks.py: signed POSTs, retried
    app.state.bootstrap = bootstrap
    app.state.data_dir = Path(data_dir)
    return app
