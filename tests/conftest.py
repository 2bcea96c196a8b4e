"""Fixtures shared by the middleware and browser suites: the local service over real HTTP,
sessions of real users, the built React example, and Chromium through Playwright."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import deployment
import httpx
import jwt
import pyotp
import pytest
from hypothesis import HealthCheck, settings

# Property tests check behaviour, never speed: on a loaded 2-core machine generating or running
# one example can take seconds, so neither a per-example deadline nor the too-slow health
# check may fail a test. (A test that does measure speed says so with its own @settings.)
settings.register_profile("authmw", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("authmw")

ROOT = Path(__file__).resolve().parent.parent
WEB_DIST = ROOT / "examples" / "web" / "dist"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "correct horse battery"
#: Seconds left on the access token of an ``expiring`` session: under the 20 s refresh margin
#: from the start, and unexpired for far longer than any request of a test takes.
EXPIRING_SECONDS_LEFT = 19


@dataclass(frozen=True)
class Session:
    user_id: str
    email: str
    access_token: str
    refresh_token: str


class Service(deployment.LiveService):
    """The service the suites run against (the local one, or a deployment: tests/deployment.py)
    and the helpers tests need against it."""

    @property
    def service(self):  # type: ignore[no-untyped-def]
        """The ``LocalService`` itself (its clock, token lifetime, port); skips the test when
        the suites target another deployment."""
        return self.running

    def _headers(self, **extra: str) -> dict[str, str]:
        return {**deployment.client_headers(self._running), **extra}

    def sign_up(self, email: str | None = None) -> Session:
        email = email or f"user-{uuid.uuid4().hex[:12]}@example.com"
        r = httpx.post(
            f"{self.url}/api/v1/auth/password/sign-up",
            headers=self._headers(),
            json={"email": email, "password": PASSWORD, "verification_callback_url": "http://localhost/verify"},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        return Session(body["user_id"], email, body["access_token"], body["refresh_token"])

    def sign_out(self, session: Session) -> None:
        """End the session: 2.7 reads the refresh token, 2.8 the access token's session."""
        r = httpx.request(
            "DELETE",
            f"{self.url}/api/v1/auth/sessions/current",
            headers=self._headers(
                **{
                    "x-stack-refresh-token": session.refresh_token,
                    "x-stack-access-token": session.access_token,
                    "content-type": "application/json",
                }
            ),
            content=b"{}",
        )
        assert r.status_code == 200, r.text


def _start(
    tmp_path_factory: pytest.TempPathFactory, name: str, *, other_project: bool = False, **options: object
) -> Iterator[Service]:
    with deployment.running(tmp_path_factory.mktemp(name), other_project=other_project, **options) as running:
        yield Service(running)


@pytest.fixture(scope="session")
def local_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    yield from _start(tmp_path_factory, "service")


@pytest.fixture(scope="session")
def service_27(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A local service answering as backend 2.7.16 (``authmw dev --api 2.7``)."""
    yield from _start(tmp_path_factory, "service-27", api="2.7")


@pytest.fixture(scope="session")
def service_28(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A local service answering as backend 2.8.86 (``authmw dev --api 2.8``)."""
    yield from _start(tmp_path_factory, "service-28", api="2.8")


@pytest.fixture(scope="session", params=["2.7", "2.8"])
def service_each_api(request: pytest.FixtureRequest) -> Service:
    """The same test against a local service of each API version (``service.api`` tells which)."""
    fixture: Service = request.getfixturevalue(f"service_{request.param.replace('.', '')}")
    return fixture


@pytest.fixture(scope="session")
def short_service(local_service: Service) -> Service:
    """The service whose sessions ``expiring`` hands out (the local service itself)."""
    return local_service


@pytest.fixture(scope="session")
def other_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A second service with its own project and signing key."""
    yield from _start(tmp_path_factory, "other-service", other_project=True)


class OAuthService(Service):
    """A service with mock GitHub, Google and GitLab sign-in, trusting ``http://testserver`` (test
    clients) and ``PUBLIC_ORIGIN`` (an app behind a proxy, reached as testserver by the test client)."""

    PUBLIC_ORIGIN: ClassVar[str] = "https://proxied.example.org"
    clock: Any  # the service's authmw.dev.Clock

    PROVIDERS: ClassVar[list[dict[str, object]]] = [
        {"id": "github", "type": "shared", "enabled": True},
        {"id": "google", "type": "shared", "enabled": True},  # on in the local project from the start
        {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "id", "client_secret": "secret"},
    ]

    def configure(self) -> None:
        self.set_project_config(
            oauth_providers=self.PROVIDERS,
            domains=[
                {"domain": "http://testserver", "handler_path": "/handler"},
                {"domain": self.PUBLIC_ORIGIN, "handler_path": "/handler"},
            ],
        )

    def provider_round_trip(self, authorize_url: str, email: str, action: str = "authorize") -> str:
        """What a browser does between the authorize URL and the app's callback (Authorize, or
        Deny with ``action="deny"``); the URL the service sends the browser back to."""
        from authmw.dev import sign_in_at_mock_provider

        return sign_in_at_mock_provider(authorize_url, email=email, deny=action == "deny")

    def totp_user(self, email: str) -> pyotp.TOTP:
        """A user made by an OAuth sign-up (the mock GitHub), then given TOTP by the server tier;
        the authenticator app that holds its secret."""
        from authmw import ClientApp, ServerApp

        with ClientApp(self.config) as client:
            flow = client.get_oauth_authorize_url("github", redirect_uri="http://testserver/handler/oauth-callback")
            back = self.provider_round_trip(flow.url, email)
            client.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
            user = client.get_user()
        assert user is not None
        secret = os.urandom(20)
        with ServerApp(self.config) as server:
            server.users.update(user.id, totp_secret_base64=base64.b64encode(secret).decode())
        return pyotp.TOTP(base64.b32encode(secret).decode())


@pytest.fixture
def oauth_clock_frozen(oauth_service: OAuthService) -> Iterator[float]:
    """The OAuth service's clock, stopped for the test (real time afterwards): no TOTP code
    races a step. Yields the instant."""
    try:
        yield oauth_service.clock.freeze()
    finally:
        oauth_service.clock.reset()


@pytest.fixture(scope="session")
def oauth_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthService]:
    from authmw.dev import Clock, LocalService

    clock = Clock()  # real time; a test that types TOTP codes freezes it (and resets it)
    service = LocalService(tmp_path_factory.mktemp("oauth-service"), port=0, quiet=True, clock=clock).start()
    try:
        own = OAuthService(service)
        own.clock = clock
        own.configure()
        yield own
    finally:
        service.stop()


def reissued(service: Service, access_token: str, seconds_left: float) -> str:
    """``access_token`` re-signed with the service's own project key, expiring ``seconds_left``
    seconds from now (negative: already expired). Nothing waits for real time to pass."""
    claims = jwt.decode(access_token, options={"verify_signature": False})
    claims["exp"] = time.time() + seconds_left
    claims["iat"] = min(claims["iat"], claims["exp"] - 1)
    return str(service.service.app.state.service.keys.for_project(service.project_id).sign(claims))


@pytest.fixture(scope="session")
def reissue():  # type: ignore[no-untyped-def]
    """reissue(service, access_token, seconds_left): see :func:`reissued`."""
    return reissued


@pytest.fixture
def expiring(local_service: Service) -> Session:
    """A new user's session whose access token needs refreshing now: it has
    EXPIRING_SECONDS_LEFT (19) seconds left, under the 20 s margin, and is still valid."""
    s = local_service.sign_up()
    return Session(s.user_id, s.email, reissued(local_service, s.access_token, EXPIRING_SECONDS_LEFT), s.refresh_token)


@pytest.fixture(scope="session")
def web_dist() -> Path:
    """The built React example; built with npm when missing (never skipped silently)."""
    if (WEB_DIST / "index.html").is_file():
        return WEB_DIST
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            f"{WEB_DIST}/index.html is missing and npm is not installed to build it (js/: npm run build:example)"
        )
    js = ROOT / "js"
    steps = ([[npm, "ci", "--no-audit", "--no-fund"]] if not (js / "node_modules").is_dir() else []) + [
        [npm, "run", "build"],
        [npm, "run", "build:example"],
    ]
    for step in steps:
        done = subprocess.run(step, cwd=js, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.fail(f"`{' '.join(step[1:])}` in js/ failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    if not (WEB_DIST / "index.html").is_file():
        pytest.fail(f"`npm run build:example` did not produce {WEB_DIST}/index.html")
    return WEB_DIST


@pytest.fixture
def chromium_with():  # type: ignore[no-untyped-def]
    """``chromium_with(*switches)``: Chromium with more command-line switches (e.g. a
    ``--host-resolver-rules`` of the test's own), closed after the test."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium is needed at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched: list[Any] = []

        def launch(*switches: str) -> Any:
            launched.append(playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *switches]))
            return launched[-1]

        try:
            yield launch
        finally:
            for chromium in launched:
                chromium.close()


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Chromium driven by Playwright's sync API (plain tests only, not asyncio ones).

    Module-scoped on purpose: while Playwright's sync API is open its event loop counts as
    running in this thread, which breaks every asyncio test that would run meanwhile.
    """
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium is needed at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
