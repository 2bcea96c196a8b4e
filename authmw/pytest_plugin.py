"""pytest fixtures for apps that use authmw: a real service and signed-in users, no conftest.py.

Installed with authmw (the ``pytest11`` entry point), so an app's tests just ask for them::

    def test_profile_needs_a_user(authmw_user, client):          # client: your app's test client
        user = authmw_user(display_name="Ada")
        assert client.get("/api/me", cookies=user.cookies).json()["id"] == user.id
        assert client.get("/api/me").status_code == 401

- ``authmw_service`` (session): the local development service on a free port with a temporary
  data folder (needs ``pip install "authmw[local]"``), or an already running service named by
  ``--authmw-url`` / ``AUTHMW_TEST_API_URL`` with its project's keys from ``--authmw-env-file`` /
  ``AUTHMW_TEST_ENV_FILE`` or the ``AUTHMW_*`` environment variables.
- ``authmw_config``: the :class:`~authmw.AuthConfig` of that service's project; configure
  your app with it.
- ``authmw_user(email=None, password=None, **fields)``: creates a user through the server tier
  (``fields`` as in ``ServerApp.users.create``) and returns an :class:`AuthmwTestUser` with the
  cookies the React package would write, the ``x-stack-auth`` header and a signed-in
  ``ClientApp``. The users a test creates are deleted after it.

See docs/testing.md.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ._config import AuthConfig, read_env_file
from .errors import ConfigurationError, UserNotFound

URL_OPTION = "--authmw-url"
ENV_FILE_OPTION = "--authmw-env-file"
URL_VARIABLE = "AUTHMW_TEST_API_URL"
ENV_FILE_VARIABLE = "AUTHMW_TEST_ENV_FILE"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("authmw", "authmw test fixtures")
    group.addoption(
        URL_OPTION,
        default=None,
        help=f"use the service at this URL instead of starting the local one (or set {URL_VARIABLE})",
    )
    group.addoption(
        ENV_FILE_OPTION,
        default=None,
        help=f"the project's keys for --authmw-url, a KEY=value file such as project.env (or set {ENV_FILE_VARIABLE}); "
        "without it the AUTHMW_* environment variables are read",
    )


def pytest_configure(config: pytest.Config) -> None:
    # A wrong --authmw-url / --authmw-env-file stops the run at once, naming the fix.
    config.stash[_CONFIGURED] = _configured(config)


@dataclass(frozen=True)
class AuthmwService:
    """The service the tests run against and its project's keys."""

    config: AuthConfig
    #: The local service's data folder; None for a service you started elsewhere.
    data_dir: Path | None = None
    #: The ``authmw.dev.LocalService`` (its clock, outbox); None for a service you started elsewhere.
    local: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return self.config.api_url

    @property
    def project_id(self) -> str:
        return self.config.project_id

    @property
    def publishable_client_key(self) -> str | None:
        return self.config.publishable_client_key

    @property
    def secret_server_key(self) -> str | None:
        return self.config.secret_server_key

    @property
    def super_secret_admin_key(self) -> str | None:
        return self.config.super_secret_admin_key


@dataclass(frozen=True)
class AuthmwTestUser:
    """A user made for one test, signed in."""

    id: str
    email: str | None
    password: str | None = field(repr=False)
    #: Cookie name -> value, exactly as the React package writes them: pass to any test client.
    cookies: dict[str, str] = field(repr=False)
    #: ``{"x-stack-auth": ...}``: the session as a header (what ``ClientApp.get_auth_headers`` gives).
    headers: dict[str, str] = field(repr=False)
    #: A ``ClientApp`` signed in as this user.
    client: Any = field(repr=False)


_CONFIGURED = pytest.StashKey["AuthmwService | None"]()


def _configured(config: pytest.Config) -> AuthmwService | None:
    url = config.getoption(URL_OPTION) or os.environ.get(URL_VARIABLE)
    if not url:
        return None
    env_file = config.getoption(ENV_FILE_OPTION) or os.environ.get(ENV_FILE_VARIABLE)
    values = dict(os.environ)
    if env_file:
        try:
            values = read_env_file(env_file)
        except (OSError, ValueError) as error:  # SettingsFileNotFound names the file and the fix
            raise pytest.UsageError(f"{ENV_FILE_OPTION}: {error}") from None
    try:
        return AuthmwService(AuthConfig.from_env(values, api_url=url.rstrip("/")))
    except ConfigurationError as error:
        raise pytest.UsageError(
            f"{URL_OPTION} {url}: the project's id and keys are missing ({error}); pass {ENV_FILE_OPTION} "
            "or set AUTHMW_PROJECT_ID, AUTHMW_PUBLISHABLE_CLIENT_KEY and AUTHMW_SECRET_SERVER_KEY"
        ) from None


@pytest.fixture(scope="session")
def authmw_service(pytestconfig: pytest.Config) -> Iterator[AuthmwService]:
    """The local service on a free port with a temporary data folder (or the one you named)."""
    configured = pytestconfig.stash.get(_CONFIGURED, None)
    if configured is not None:
        yield configured
        return
    try:
        from .dev import LocalService
    except ImportError as error:
        pytest.fail(
            f"the authmw_service fixture starts the local development service, which needs "
            f'`pip install "authmw[local]"` ({error}); or pass {URL_OPTION} to use a running service',
            pytrace=False,
        )
    with tempfile.TemporaryDirectory(prefix="authmw-test-") as data_dir, LocalService(data_dir, quiet=True) as local:
        yield AuthmwService(AuthConfig.from_env(local.config), data_dir=Path(data_dir), local=local)


@pytest.fixture(scope="session")
def authmw_config(authmw_service: AuthmwService) -> AuthConfig:
    """The AuthConfig of the test service's project: give it to your app."""
    return authmw_service.config


@pytest.fixture
def authmw_user(authmw_config: AuthConfig) -> Iterator[Callable[..., AuthmwTestUser]]:
    """``authmw_user(email=None, password=None, **fields)``: a new signed-in user (deleted after the test)."""
    from . import ClientApp, ServerApp
    from .middleware._cookies import session_cookie_values

    if not authmw_config.secret_server_key:
        pytest.fail("authmw_user creates users with the secret server key; the test project has none", pytrace=False)
    server = ServerApp(authmw_config)
    made: list[str] = []

    def make(email: str | None = None, password: str | None = None, **fields: Any) -> AuthmwTestUser:
        if email is None:
            email = f"test-{secrets.token_hex(6)}@example.com"
        if password is None and "password_hash" not in fields:
            password = secrets.token_urlsafe(12)
        fields.setdefault("primary_email_verified", True)
        fields.setdefault("primary_email_auth_enabled", True)
        user = server.users.create(primary_email=email, password=password, **fields)
        made.append(user.id)
        tokens = server.sessions.create(user.id)
        client = ClientApp(authmw_config, access_token=tokens.access_token, refresh_token=tokens.refresh_token)
        cookies = session_cookie_values(
            authmw_config.project_id,
            tokens.refresh_token,
            tokens.access_token,
            now=time.time(),
            secure=False,
            cookie_format="2.8" if authmw_config.cookie_format == "2.8" else "2.7",
        )
        return AuthmwTestUser(
            id=user.id,
            email=email,
            password=password,
            cookies=cookies,
            headers=client.get_auth_headers(),
            client=client,
        )

    yield make
    for user_id in made:
        with contextlib.suppress(UserNotFound):  # the test deleted it itself
            server.users.delete(user_id)
    server.close()
