"""The README's React install, as a new user follows it: `npm pack` of js/, a fresh Vite + React +
TypeScript app made by the README's own commands, the README's App.tsx, a production build
(`vite build`, where a linked package would load a second React), served by `vite preview`,
opened in Chromium, signed in on its handler pages against the local service, showing the user.

Needs the npm registry (create-vite, Vite, React), as a new user does.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ports import free_port

from authmw import ServerApp

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PASSWORD = "correct horse battery"
#: Terminal colour codes, in case a tool colours its output anyway.
ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: Generous bounds for npm on a loaded machine: an end, not a stopwatch.
NPM_TIMEOUT = 600


def readme_block(contains: str, language: str) -> str:
    """The body of the README's ``language`` block that contains ``contains``."""
    for match in re.finditer(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```", README.read_text(), re.MULTILINE | re.DOTALL):
        if match["info"].split()[:1] == [language] and contains in match["body"]:
            return match["body"]
    raise AssertionError(f"README.md has no {language} block with {contains!r}")


def run(command: str | list[str], cwd: Path) -> str:
    done = subprocess.run(
        command,
        cwd=cwd,
        shell=isinstance(command, str),
        executable="/bin/bash" if isinstance(command, str) else None,
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def fresh_app(tmp_path_factory: pytest.TempPathFactory, web_dist: Path) -> Path:
    """The front end the README makes, installed from the packed package (built by test.sh)."""
    folder = tmp_path_factory.mktemp("fresh-react-app")
    # The clone's part: the package is built (scripts/test.sh did `npm ci && npm run build`); pack it.
    packed = run(["npm", "pack", "--pack-destination", str(folder)], ROOT / "js").strip().splitlines()[-1]
    assert readme_block("npm pack", "bash").count("authmw-react-0.2.0.tgz") == 1
    assert packed == "authmw-react-0.2.0.tgz", packed  # the name the README installs
    # The app's part: the README's own commands, the clone's path put in for ../../authmw/js.
    commands = readme_block("npm create", "bash").replace("../../authmw/js/", f"{folder}/")
    run(f"set -e -o pipefail\n{commands}", folder)
    return folder / "web"


@pytest.fixture
def served(fresh_app: Path, local_service: Any) -> Iterator[tuple[str, str]]:
    """The production build of the README's App.tsx for the local service, served by vite preview."""
    app = readme_block("AuthProvider", "tsx")
    app = app.replace("<AUTHMW_PROJECT_ID>", local_service.project_id)
    app = app.replace("<AUTHMW_PUBLISHABLE_CLIENT_KEY>", local_service.config.publishable_client_key)
    app = app.replace("http://localhost:8102", local_service.url)
    (fresh_app / "src" / "App.tsx").write_text(app)
    shutil.rmtree(fresh_app / "dist", ignore_errors=True)
    run(["npm", "run", "build"], fresh_app)
    # one React: the package's own copy would be a second one (the linked install's blank page)
    assert not (fresh_app / "node_modules" / "@authmw" / "react" / "node_modules").exists()
    assert not (fresh_app / "node_modules" / "@authmw" / "react").is_symlink()
    port = free_port()
    preview = subprocess.Popen(
        ["npx", "vite", "preview", "--host", "127.0.0.1", "--port", str(port), "--strictPort"],
        cwd=fresh_app,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        # CI=true turns Vite's colours on, and a coloured address splits ":" from the port
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert preview.stdout is not None
        output = []
        for line in preview.stdout:  # it prints its address once it listens
            output.append(line)
            if f":{port}" in ANSI.sub("", line):
                break
        else:
            raise AssertionError("vite preview ended:\n" + "".join(output))
        base = f"http://localhost:{port}"
        index = httpx.get(f"{base}/handler/sign-in")  # every page path gets index.html
        assert index.status_code == 200 and '<div id="root">' in index.text
        email = f"fresh-{uuid.uuid4().hex[:8]}@example.com"
        with ServerApp(local_service.config) as server:
            server.users.create(
                primary_email=email, primary_email_auth_enabled=True, primary_email_verified=True, password=PASSWORD
            )
        yield base, email
    finally:
        os.killpg(preview.pid, signal.SIGTERM)
        preview.wait(timeout=30)


def test_the_readme_react_app_built_for_production_signs_in_and_shows_the_user(served, browser) -> None:
    base, email = served
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{base}/")
        page.get_by_role("link", name="Sign in").click()
        form = page.get_by_test_id("sign-in-form")
        form.get_by_label("E-mail").fill(email)
        form.get_by_label("Password", exact=True).fill(PASSWORD)
        form.get_by_role("button", name="Sign in", exact=True).click()
        page.get_by_text(f"Signed in as {email}").wait_for()
        page.reload()  # the session is in the site's cookies
        page.get_by_text(f"Signed in as {email}").wait_for()
        assert errors == []  # no "Cannot read properties of null (reading 'useState')"
    finally:
        context.close()


def test_the_handler_pages_keep_their_look_under_vites_own_stylesheet(served, browser) -> None:
    """The fresh app keeps Vite's `src/index.css` (56 px titles, centred text, its colours): the
    sign-in page's title, labels, buttons and links look as they do without it."""
    from .test_host_page_styles import LOOK, SIGN_IN_PARTS, changes

    base, _ = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{base}/handler/sign-in")
        page.get_by_test_id("sign-in-form").wait_for()
        # Vite's stylesheet is on the page (the control): its 56 px title rule applies to a host h1.
        page.evaluate("() => document.body.insertAdjacentHTML('beforeend', '<h1 id=host-h1>host</h1>')")
        assert page.evaluate("() => getComputedStyle(document.getElementById('host-h1')).fontSize") == "56px"
        page.evaluate("() => document.getElementById('host-h1').remove()")
        under_vite = page.evaluate(LOOK, SIGN_IN_PARTS)
        assert None not in under_vite.values(), under_vite
        # The same page without the app's own stylesheets (the package's stays)
        page.evaluate(
            """() => document.querySelectorAll('link[rel=stylesheet], style').forEach((sheet) => {
                const name = sheet.getAttribute('href') || sheet.getAttribute('data-href') || '';
                if (!name.startsWith('authmw-')) sheet.remove();
            })"""
        )
        assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "16px"
        alone = page.evaluate(LOOK, SIGN_IN_PARTS)
        changed = changes(alone, under_vite)
        assert not any(changed.values()), f"Vite's stylesheet changed the page: {changed}"
    finally:
        context.close()
