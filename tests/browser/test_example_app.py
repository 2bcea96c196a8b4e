"""The FastAPI example without a browser: pages, files, config injection, /api/me."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from .conftest import load_example


@pytest.fixture
def client(local_service, web_dist: Path):  # type: ignore[no-untyped-def]
    with TestClient(load_example().create_app(local_service.config, web_dist=web_dist)) as client:
        yield client


def test_every_page_path_serves_index_with_the_browser_config(client, local_service) -> None:
    for path in ["/", "/handler/sign-up", "/handler/sign-in?after_auth_return_to=%2F", "/some/page"]:
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        config = json.loads(re.search(r"window.__AUTHMW_CONFIG__ = (\{.*?\})</script>", r.text).group(1))
        assert config == {
            "projectId": local_service.project_id,
            "publishableClientKey": local_service.config.publishable_client_key,
            "apiUrl": local_service.url,
            "handlerPath": "/handler",
            "allowAnonymous": False,
        }
        assert "<!--AUTHMW_CONFIG-->" not in r.text
        assert local_service.config.secret_server_key not in r.text


def test_built_files_are_served_by_name(client, web_dist: Path) -> None:
    r = client.get("/app.js")
    assert r.status_code == 200
    assert r.content == (web_dist / "app.js").read_bytes()


def test_paths_outside_the_build_are_not_served(client) -> None:
    for path in ["/..%2f..%2fpyproject.toml", "/%2e%2e/%2e%2e/pyproject.toml"]:
        r = client.get(path)
        assert r.status_code == 404 and "[project]" not in r.text  # a path out of the build: nothing
    page = client.get("/index.html")
    assert "window.__AUTHMW_CONFIG__" in page.text  # the app's page (authmw.adapter.WebBuild)


def test_unknown_api_paths_are_json_404s(client) -> None:
    r = client.post("/api/nothing")
    assert r.status_code == 404 and r.json() == {"error": "No API route /api/nothing"}


def test_api_me(client, local_service) -> None:
    assert client.get("/api/me").status_code == 401
    s = local_service.sign_up()
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    r = client.get("/api/me", headers={"x-stack-auth": header})
    assert r.json() == {"id": s.user_id, "primary_email": s.email, "display_name": None}


def test_api_me_of_a_user_deleted_since_sign_in_is_a_401(client, local_service) -> None:
    s = local_service.sign_up()
    deleted = httpx.delete(
        f"{local_service.url}/api/v1/users/{s.user_id}",
        headers={
            "x-stack-project-id": local_service.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": local_service.config.secret_server_key,
        },
    )
    assert deleted.status_code == 200, deleted.text
    header = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    r = client.get("/api/me", headers={"x-stack-auth": header})
    assert (r.status_code, r.json()["code"]) == (401, "USER_AUTHENTICATION_REQUIRED")
