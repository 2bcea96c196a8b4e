"""One real local service per test session, reached over HTTP with httpx."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from authmw.dev import Clock, LocalService
from authmw_local.api_version import DEFAULT_API
from authmw_local.bootstrap import ProjectKeys

_emails = itertools.count()
#: Settings the 2.8 admin view does not show (they can only be written), with the local
#: service's value, which the fixtures below put back after a test changed them.
WRITE_ONLY = {"require_email_verification": False, "require_publishable_client_key": True}


class Api:
    """Requests to one project of a running service, with the headers of a tier."""

    def __init__(self, url: str, keys: ProjectKeys, data_dir: Path | None = None, version: str = "2.8") -> None:
        self.url = url
        self.keys = keys
        self.data_dir = data_dir
        #: The API version the service answers as ("2.7" or "2.8").
        self.version = version
        self.http = httpx.Client(base_url=url, timeout=10)
        #: The LocalService itself, when made by `Api.of` (its keys, clock, ...).
        self.running: LocalService | None = None

    @classmethod
    def of(cls, service: LocalService, keys: ProjectKeys | None = None) -> Api:
        api = cls(service.url, keys or service.bootstrap.project, service.data_dir, service.api)
        api.running = service
        return api

    @property
    def admin_project_path(self) -> str:
        """Where the admin tier reads and changes the project (2.8 moved it: service-api B14.4)."""
        return "/internal/projects/current" if self.version == "2.8" else "/projects/current"

    @property
    def project_id(self) -> str:
        return self.keys.project_id

    def headers(self, tier: str | None = "client", *, access_token: str | None = None, **extra: str) -> dict[str, str]:
        headers: dict[str, str] = {}
        if tier is not None:
            headers["x-stack-project-id"] = self.keys.project_id
            headers["x-stack-access-type"] = tier
            headers[
                {
                    "client": "x-stack-publishable-client-key",
                    "server": "x-stack-secret-server-key",
                    "admin": "x-stack-super-secret-admin-key",
                }[tier]
            ] = {
                "client": self.keys.publishable_client_key,
                "server": self.keys.secret_server_key,
                "admin": self.keys.super_secret_admin_key,
            }[tier]
        if access_token:
            headers["x-stack-access-token"] = access_token
        headers.update({k.replace("_", "-"): v for k, v in extra.items()})
        return headers

    def call(
        self,
        method: str,
        path: str,
        tier: str | None = "client",
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        all_headers = {**self.headers(tier, access_token=token), **(headers or {})}
        return self.http.request(method, "/api/v1" + path, headers=all_headers, **kwargs)

    def sign_up(
        self, email: str | None = None, password: str = "correct horse", tier: str = "client"
    ) -> dict[str, str]:
        response = self.call(
            "POST",
            "/auth/password/sign-up",
            tier,
            json={
                "email": email or unique_email(),
                "password": password,
                "verification_callback_url": "http://localhost:3000/handler/email-verification",
            },
        )
        assert response.status_code == 200, response.text
        return response.json()

    def create_owned_project(self, owner: dict[str, str], body: dict[str, Any] | None = None) -> httpx.Response:
        """POST /internal/projects as `owner` (a user of `internal`; this Api must be on `internal`).

        API 2.8 projects belong to a team of `internal` (service-api B14.4): a team the owner
        creates is given as `owner_team_id` unless the body names one."""
        body = {"display_name": "Owned project", **(body or {})}
        if self.version == "2.8" and "owner_team_id" not in body:
            team = self.call(
                "POST", "/teams", "server", json={"display_name": "Owners", "creator_user_id": owner["user_id"]}
            )
            assert team.status_code == 201, team.text
            body["owner_team_id"] = team.json()["id"]
        return self.call("POST", "/internal/projects", token=owner["access_token"], json=body)

    def set_config(self, **config: Any) -> None:
        response = self.call("PATCH", self.admin_project_path, "admin", json={"config": config})
        assert response.status_code == 200, response.text


def team_roles(api: Api) -> tuple[str, str]:
    """The creator's and the member's default team permission of the service's own projects:
    2.8.86's `team_admin` / `team_member`, 2.7.16's `admin` / `member`."""
    return ("team_admin", "team_member") if api.version == "2.8" else ("admin", "member")


def unique_email() -> str:
    return f"user{next(_emails)}@example.com"


def assert_known_error(response: httpx.Response, code: str, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["x-stack-known-error"] == code
    body = response.json()
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    return body


@pytest.fixture(scope="session")
def service_clock() -> Clock:
    return Clock()


class Services:
    """One local service per API version, started when a test first needs it, sharing one clock."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, clock: Clock) -> None:
        self._tmp = tmp_path_factory
        self._clock = clock
        self._running: dict[str, LocalService] = {}

    def get(self, version: str) -> LocalService:
        if version not in self._running:
            folder = self._tmp.mktemp(f"authmw-dev-{version.replace('.', '')}")
            self._running[version] = LocalService(folder, quiet=True, clock=self._clock, api=version).start()
        return self._running[version]

    def stop(self) -> None:
        for running in self._running.values():
            running.stop()


@pytest.fixture(scope="session")
def services(tmp_path_factory: pytest.TempPathFactory, service_clock: Clock) -> Iterator[Services]:
    pool = Services(tmp_path_factory, service_clock)
    try:
        yield pool
    finally:
        pool.stop()


@pytest.fixture(scope="module")
def service(request: pytest.FixtureRequest, services: Services) -> LocalService:
    """The service of the module's API version: `API_VERSION = "2.7"` at the top of a test
    module that checks 2.7 behaviour, else the default version (2.8)."""
    return services.get(getattr(request.module, "API_VERSION", DEFAULT_API))


@pytest.fixture
def clock(service_clock: Clock) -> Iterator[Clock]:
    """The service's clock, stopped for this test (move it with `advance`); real time again afterwards."""
    service_clock.freeze()
    try:
        yield service_clock
    finally:
        service_clock.reset()


@pytest.fixture(scope="module")
def api(service: LocalService) -> Api:
    return Api.of(service)


@pytest.fixture(scope="session")
def api_27(services: Services) -> Api:
    """The service answering as backend 2.7.16 (`LocalService(..., api="2.7")`)."""
    return Api.of(services.get("2.7"))


@pytest.fixture(scope="session")
def api_28(services: Services) -> Api:
    """The service answering as backend 2.8.86 (`LocalService(..., api="2.8")`)."""
    return Api.of(services.get("2.8"))


@pytest.fixture
def config_28(api_28: Api) -> Iterator[Any]:
    """Set config flags of the 2.8 service for one test; put back afterwards."""
    before = api_28.call("GET", "/internal/projects/current", "admin").json()["config"]
    changed: set[str] = set()

    def set_config(**config: Any) -> None:
        changed.update(config)
        api_28.set_config(**config)

    yield set_config
    if changed:
        api_28.set_config(**{key: before[key] if key in before else WRITE_ONLY[key] for key in changed})


@pytest.fixture(scope="module")
def internal_api(service: LocalService) -> Api:
    return Api.of(service, service.bootstrap.internal)


@pytest.fixture
def user(api: Api) -> dict[str, str]:
    """A freshly signed-up user: access_token, refresh_token, user_id, email, password."""
    email = unique_email()
    tokens = api.sign_up(email, "correct horse")
    return {**tokens, "email": email, "password": "correct horse"}


@pytest.fixture
def project_config(api: Api) -> Iterator[Any]:
    """Set config flags for one test; they are put back afterwards."""
    before = api.call("GET", api.admin_project_path, "admin").json()["config"]
    changed: set[str] = set()

    def set_config(**config: Any) -> None:
        changed.update(config)
        api.set_config(**config)

    yield set_config
    if changed:
        api.set_config(**{key: before[key] if key in before else WRITE_ONLY[key] for key in changed})
