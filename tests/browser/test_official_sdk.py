"""The official Stack Auth JavaScript SDK (2.7 and the newest 2.8) and authmw share one session.

A page on the app's own origin runs the official SDK (bundled from tests/browser/official_sdk);
the app behind authmw's middleware answers /api/me. Each side must accept the cookies the
other wrote, also after it refreshed and rewrote them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from authmw import AuthConfig
from authmw.middleware import AuthMiddleware

from .conftest import serve

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).parent / "official_sdk"
BUNDLE = FIXTURE / "dist" / "official-sdk.js"
PASSWORD = "correct horse battery"

PAGE = """<!doctype html><meta charset="utf-8"><title>official SDK</title>
<script type="module" src="/official-sdk.js"></script><p>official SDK page</p>"""


@pytest.fixture(scope="module")
def bundle() -> Path:
    """The official SDKs bundled for the browser; built with npm when missing (never skipped)."""
    if BUNDLE.is_file():
        return BUNDLE
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"{BUNDLE} is missing and npm is not installed to build it ({FIXTURE}: npm ci && npm run build)")
    steps = ([[npm, "ci", "--no-audit", "--no-fund"]] if not (FIXTURE / "node_modules").is_dir() else []) + [
        [npm, "run", "build"]
    ]
    for step in steps:
        done = subprocess.run(step, cwd=FIXTURE, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.fail(f"`{' '.join(step[1:])}` in {FIXTURE} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return BUNDLE


def make_site(config: AuthConfig, bundle: Path) -> Starlette:
    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def script(request: Request) -> Response:
        return FileResponse(bundle, media_type="text/javascript")

    async def me(request: Request) -> Response:
        user = request.user
        if not user.is_authenticated:
            return JSONResponse({"id": None}, status_code=401)
        return JSONResponse({"id": user.id})

    return Starlette(
        routes=[Route("/", page), Route("/official-sdk.js", script), Route("/api/me", me)],
        middleware=[Middleware(AuthMiddleware, config=config)],
    )


@pytest.fixture(scope="module")
def sites(local_service: Any, bundle: Path) -> Iterator[dict[str, str]]:
    """The site with authmw writing each cookie format: {"2.7": url, "2.8": url}."""
    with (
        serve(make_site(local_service.config, bundle)) as port27,
        serve(make_site(local_service.config.with_(cookie_format="2.8"), bundle)) as port28,
    ):
        yield {"2.7": f"http://localhost:{port27}", "2.8": f"http://localhost:{port28}"}


#: The official SDK probes public hosts when a call fails; nothing leaves this machine.
OFF_MACHINE = re.compile(r"^(?!https?://(localhost|127\.0\.0\.1)[:/])")


def open_sdk(context: Any, site: str, local_service: Any, version: str) -> Any:
    context.route(OFF_MACHINE, lambda route: route.abort())
    page = context.new_page()
    page.goto(site + "/")
    start_sdk(page, local_service, version)
    return page


def start_sdk(page: Any, local_service: Any, version: str) -> None:
    """A new official-SDK app on the loaded page, reading the session from the cookies."""
    page.wait_for_function("() => window.officialSdk !== undefined")
    options = {
        "projectId": local_service.project_id,
        "publishableClientKey": local_service.config.publishable_client_key,
        "baseUrl": local_service.url,
    }
    page.evaluate(
        "([version, options]) => { window.sdk = window.officialSdk.make(version, options); }", [version, options]
    )


def sdk_user_id(page: Any) -> str | None:
    return page.evaluate("async () => (await window.sdk.getUser())?.id ?? null")


def api_me(page: Any) -> tuple[int, str | None]:
    result = page.evaluate("async () => { const r = await fetch('/api/me'); return [r.status, (await r.json()).id]; }")
    return result[0], result[1]


def cookie_names(context: Any) -> set[str]:
    return {cookie["name"] for cookie in context.cookies()}


@pytest.mark.parametrize(("version", "authmw_format"), [("2.7", "2.7"), ("2.8", "2.7"), ("2.8", "2.8")])
def test_the_official_sdk_and_the_middleware_share_one_session(
    version: str, authmw_format: str, local_service: Any, sites: dict[str, str], context: Any
) -> None:
    site = sites[authmw_format]
    pid = local_service.project_id
    page = open_sdk(context, site, local_service, version)
    email = f"sdk-{uuid.uuid4().hex[:10]}@example.com"
    result = page.evaluate(
        """async ([email, password]) => {
            const r = await window.sdk.signUpWithCredential({ email, password, noRedirect: true });
            return r.status === "ok" ? "ok" : String(r.error?.message ?? r.error);
        }""",
        [email, PASSWORD],
    )
    assert result == "ok"
    user_id = sdk_user_id(page)  # the SDK accepts the local service's access token
    assert user_id
    written = cookie_names(context)
    if version == "2.7":
        assert f"stack-refresh-{pid}" in written
    else:  # 2.8.108 writes the hexclave family
        assert any(name.startswith(f"hexclave-refresh-{pid}--") for name in written), written
    # The middleware reads the cookies the official SDK wrote.
    assert api_me(page) == (200, user_id)

    # The middleware refreshes and rewrites the cookies; the official SDK still sees the user.
    context.clear_cookies(name="stack-access")
    context.clear_cookies(name="hexclave-access")
    with page.expect_response(lambda response: response.url.endswith("/api/me")) as answer:
        assert api_me(page) == (200, user_id)
    # What the middleware wrote, read from its answer: the official SDK on the page polls the
    # jar and may already have renamed the cookies by the time the test could look there.
    written = [h["value"] for h in answer.value.headers_array() if h["name"].lower() == "set-cookie"]
    rewritten = {value.split("=", 1)[0] for value in written if "Max-Age=0" not in value}
    assert "stack-access" in rewritten
    assert (f"stack-refresh-{pid}--default" in rewritten) == (authmw_format == "2.8")
    assert all("SameSite=Lax" in value for value in written)
    page.reload()
    start_sdk(page, local_service, version)
    assert sdk_user_id(page) == user_id

    # The other way round: the official SDK refreshes and rewrites; the middleware sees the user.
    context.clear_cookies(name="stack-access")
    context.clear_cookies(name="hexclave-access")
    token = page.evaluate("async () => (await window.sdk.getUser())?.currentSession.getTokens()")
    assert token and token["accessToken"]
    assert api_me(page) == (200, user_id)

    # Signing out with the official SDK signs the middleware's request out too.
    page.evaluate("async () => { await (await window.sdk.getUser()).signOut(); }")
    assert api_me(page) == (401, None)
    assert not {name for name in cookie_names(context) if "refresh" in name}
    assert api_me(page) == (401, None)
