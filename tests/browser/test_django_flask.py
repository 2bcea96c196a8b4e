"""The Django and Flask examples in Chromium: sign up on the React pages, then each back
end reads the user from the session cookies (GET /api/me)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from ports import free_port
from werkzeug.serving import make_server

from authmw import AuthConfig

from .test_signup_flow import (
    api_me,
    calls_to_the_service_on_opening,
    session_cookies,
    sign_in_through_the_guarded_page,
    sign_out,
    sign_up,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DJANGO_APP = ROOT / "examples" / "django_app"


def wait_until_serving(base: str, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 120  # generous: the example starts slowly on a loaded machine
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            output = process.stdout.read().decode(errors="replace") if process.stdout else ""
            pytest.fail(f"the example exited with {process.returncode}:\n{output[-3000:]}")
        try:
            if httpx.get(base + "/", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"the example did not answer at {base}")


@contextmanager
def django_example(config: AuthConfig, web_dist: Path, server: str) -> Iterator[str]:
    """The Django example in its own process (Django's settings are per process)."""
    port = free_port()
    env = {
        **os.environ,
        "AUTHMW_PROJECT_ID": config.project_id,
        "AUTHMW_API_URL": config.api_url,
        "AUTHMW_PUBLISHABLE_CLIENT_KEY": config.publishable_client_key or "",
        "AUTHMW_SECRET_SERVER_KEY": config.secret_server_key or "",
        "AUTHMW_WEB_DIST": str(web_dist),
        "PYTHONUNBUFFERED": "1",
    }
    if server == "wsgi":
        command = [sys.executable, str(DJANGO_APP / "manage.py"), "runserver", "--noreload", f"127.0.0.1:{port}"]
    else:
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "--app-dir",
            str(DJANGO_APP),
            "example_site.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base = f"http://localhost:{port}"
        wait_until_serving(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def load_flask_example() -> Any:
    path = ROOT / "examples" / "flask_app" / "app.py"
    spec = importlib.util.spec_from_file_location("authmw_example_flask", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def flask_example(config: AuthConfig, web_dist: Path) -> Iterator[str]:
    """The Flask example on Werkzeug's threaded WSGI server, in a thread."""
    app = load_flask_example().create_app(config, web_dist=web_dist)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://localhost:{server.server_port}"
        wait_until_serving(base)
        yield base
    finally:
        server.shutdown()
        thread.join(timeout=10)


def check_the_user_server_side(local_service: Any, context: Any, base: str) -> None:
    anonymous = context.request.get(f"{base}/api/me", headers={"accept": "application/json"})
    assert anonymous.status == 401
    assert anonymous.json()["code"] == "USER_AUTHENTICATION_REQUIRED"

    page = context.new_page()
    email = sign_up(page, base)
    page.reload()
    expect(page.get_by_test_id("user-email")).to_have_text(email)
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "200")
    user_id = page.get_by_test_id("user-id").inner_text()

    r = api_me(context, base)
    assert r.status == 200
    assert r.json() == {"id": user_id, "primary_email": email, "display_name": None}
    refresh, access = session_cookies(context, local_service.project_id)
    assert refresh and access and access[0] == refresh

    sign_out(page, base)
    expect(page.get_by_test_id("user-status")).to_have_attribute("data-status", "signed-out")
    expect(page.get_by_test_id("api-me")).to_have_attribute("data-status", "401")


@pytest.mark.parametrize("server", ["wsgi", "asgi"])
def test_django_example_reads_the_browser_session(local_service, web_dist, context, server: str) -> None:
    with django_example(local_service.config, web_dist, server) as base:
        check_the_user_server_side(local_service, context, base)


def test_flask_example_reads_the_browser_session(local_service, web_dist, context) -> None:
    with flask_example(local_service.config, web_dist) as base:
        check_the_user_server_side(local_service, context, base)


def sign_in_through_a_guarded_page(local_service: Any, context: Any, base: str) -> None:
    page = context.new_page()
    email = sign_up(page, base)
    sign_out(page, base)
    sign_in_through_the_guarded_page(page, base, email)
    # The handler pages leave with a full page load, so the server's own page renders at once.
    expect(page.get_by_test_id("account")).to_have_text(f"Signed in as {page_user_id(context, base)}")


def page_user_id(context: Any, base: str) -> str:
    return str(api_me(context, base).json()["id"])


def test_django_page_guard_sends_the_browser_to_sign_in_and_back(local_service, web_dist, context) -> None:
    with django_example(local_service.config, web_dist, "wsgi") as base:
        sign_in_through_a_guarded_page(local_service, context, base)


def test_flask_page_guard_sends_the_browser_to_sign_in_and_back(local_service, web_dist, context) -> None:
    with flask_example(local_service.config, web_dist) as base:
        sign_in_through_a_guarded_page(local_service, context, base)


def react_takes_the_cookies_the_back_end_rewrote(local_service: Any, context: Any, base: str) -> None:
    """Without its access cookie the back end refreshes and writes both cookies (Django
    through its own cookie jar); the React store then uses that access token as it is."""
    pid = local_service.project_id
    page = context.new_page()
    email = sign_up(page, base)
    page.close()
    refresh, _ = session_cookies(context, pid)
    context.clear_cookies(name="stack-access")

    assert api_me(context, base).status == 200
    kept, (owner, access) = session_cookies(context, pid)
    assert kept == owner == refresh

    to_service = calls_to_the_service_on_opening(context, base, local_service.url, email)
    assert to_service and not [url for url, _ in to_service if "/refresh" in url or "/oauth/token" in url]
    assert {token for _, token in to_service if token is not None} <= {access}


@pytest.mark.parametrize("server", ["wsgi", "asgi"])
def test_react_takes_the_cookies_django_rewrote(local_service, web_dist, context, server: str) -> None:
    with django_example(local_service.config, web_dist, server) as base:
        react_takes_the_cookies_the_back_end_rewrote(local_service, context, base)


def test_react_takes_the_cookies_flask_rewrote(local_service, web_dist, context) -> None:
    with flask_example(local_service.config, web_dist) as base:
        react_takes_the_cookies_the_back_end_rewrote(local_service, context, base)
