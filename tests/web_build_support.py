"""The built React app served by the app itself: a build folder and the checks every framework's
test (tests/*/test_*web_build.py) runs with its own test client."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

INDEX = '<!doctype html><div id="root"></div><!--CONFIG--><script src="/assets/index-3f9a1c.js"></script>'
ASSET = "console.log('app')"


def make_dist(tmp_path: Path) -> Path:
    """What `vite build` writes, and a secret beside the build folder."""
    (tmp_path / "dist" / "assets").mkdir(parents=True)
    (tmp_path / "dist" / "index.html").write_text(INDEX)
    (tmp_path / "dist" / "assets" / "index-3f9a1c.js").write_text(ASSET)
    (tmp_path / "dist" / "favicon.svg").write_text("<svg/>")
    (tmp_path / "secret.txt").write_text("not for the web")
    return tmp_path / "dist"


def fill(html: str) -> str:
    return html.replace("<!--CONFIG-->", "<script>window.config = {}</script>")


#: get(path) -> (status, headers with lower-case names, body text), per framework.
Get = Callable[[str], tuple[int, dict[str, str], str]]


def fastapi_client(dist: Path) -> Get:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from authmw_fastapi import web_routes

    app = FastAPI()

    @app.get("/api/me")
    def me() -> dict[str, str]:
        return {"id": "ada"}

    @app.get("/handler/oauth-callback")
    def callback() -> dict[str, str]:
        return {"route": "oauth-callback"}

    app.router.routes.extend(web_routes(dist, server_paths=["/handler/oauth-callback"], index_html=fill))
    client = TestClient(app)

    def get(path: str) -> tuple[int, dict[str, str], str]:
        r = client.get(path)
        return r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.text

    return get


def flask_client(dist: Path) -> Get:
    from flask import Flask

    from authmw_flask import serve_web

    app = Flask(__name__)

    @app.get("/api/me")
    def me() -> dict[str, str]:
        return {"id": "ada"}

    @app.get("/handler/oauth-callback")
    def callback() -> dict[str, str]:
        return {"route": "oauth-callback"}

    serve_web(app, dist, server_paths=["/handler/oauth-callback"], index_html=fill)
    client = app.test_client()

    def get(path: str) -> tuple[int, dict[str, str], str]:
        r = client.get(path)
        return r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.get_data(as_text=True)

    return get


def quart_client(dist: Path) -> Get:
    from quart import Quart

    from authmw_quart import serve_web

    app = Quart(__name__)

    @app.get("/api/me")
    async def me() -> dict[str, str]:
        return {"id": "ada"}

    @app.get("/handler/oauth-callback")
    async def callback() -> dict[str, str]:
        return {"route": "oauth-callback"}

    serve_web(app, dist, server_paths=["/handler/oauth-callback"], index_html=fill)

    def get(path: str) -> tuple[int, dict[str, str], str]:
        async def call() -> tuple[int, dict[str, str], str]:
            r = await app.test_client().get(path)
            return r.status_code, {k.lower(): v for k, v in r.headers.items()}, await r.get_data(as_text=True)

        return asyncio.run(call())

    return get


def django_client(dist: Path) -> Get:
    from django.http import JsonResponse
    from django.test import Client, override_settings
    from django.urls import path as url

    from authmw_django import web_urls

    module = type("urls", (), {})()
    module.urlpatterns = [
        url("api/me", lambda request: JsonResponse({"id": "ada"})),
        url("handler/oauth-callback", lambda request: JsonResponse({"route": "oauth-callback"})),
        *web_urls(dist, server_paths=["/handler/oauth-callback"], index_html=fill),
    ]

    def get(path: str) -> tuple[int, dict[str, str], str]:
        with override_settings(ROOT_URLCONF=module, MIDDLEWARE=[]):
            r = Client().get(path)
            body = b"".join(r.streaming_content).decode() if r.streaming else r.content.decode()
            return r.status_code, {k.lower(): v for k, v in r.headers.items()}, body

    return get


def check_served(get: Get) -> None:
    """Pages, assets, the API and the server's routes, 404s and nothing outside the build."""
    # Pages: index.html (as the app changed it), never cached without asking again
    for page in ("/", "/index.html", "/handler/sign-in", "/handler/account-settings/teams", "/teams/3"):
        status, headers, body = get(page)
        assert status == 200, (page, status, body)
        assert body == fill(INDEX)
        assert headers["content-type"].startswith("text/html") and headers["cache-control"] == "no-cache"
    # Hashed assets: for good; the build's other files: asked again
    status, headers, body = get("/assets/index-3f9a1c.js")
    assert (status, body) == (200, ASSET)
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "javascript" in headers["content-type"]
    status, headers, _ = get("/favicon.svg")
    assert status == 200 and headers["cache-control"] == "no-cache" and headers["content-type"].startswith("image/svg")
    # The same origin's API and the server's own routes answer as themselves
    assert get("/api/me")[0] == 200 and '"ada"' in get("/api/me")[2]
    assert get("/handler/oauth-callback")[0] == 200 and "oauth-callback" in get("/handler/oauth-callback")[2]
    # ... and what they do not answer is a 404, never the app's page
    for missing in ("/api/nothing", "/api", "/handler/oauth-callback/x", "/assets/gone-123.js", "/gone.png"):
        status, _, body = get(missing)
        assert status == 404 and "root" not in body, (missing, status)
    # Nothing outside the build folder
    for outside in ("/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt", "/..%5csecret.txt"):
        status, _, body = get(outside)
        assert "not for the web" not in body, outside
