"""Django configured once for this folder; each test gets a site with its own AUTHMW."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django
import pytest
from django.conf import settings
from django.test import AsyncClient, Client, override_settings
from service_support import BriefService, brief_service

from authmw import AuthConfig

#: A file, not ":memory:": async views reach the database from another thread.
DATABASE = Path(tempfile.mkdtemp(prefix="authmw-django-")) / "db.sqlite3"

if not settings.configured:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="authmw-django-tests",
        ALLOWED_HOSTS=["testserver", "localhost"],
        ROOT_URLCONF="authmw_django_testsite",
        MIDDLEWARE=["authmw_django.AuthMiddleware"],
        # django.contrib.* and linked_testapp (a model with a ForeignKey to the user) serve the
        # linked-users tests; the other tests use authmw's own request.user only.
        INSTALLED_APPS=[
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "rest_framework",
            "authmw_django",
            "linked_testapp",
        ],
        AUTHENTICATION_BACKENDS=["authmw_django.backends.AuthmwBackend", "django.contrib.auth.backends.ModelBackend"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATABASE)}},
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                        "django.contrib.messages.context_processors.messages",
                    ]
                },
            }
        ],
        REST_FRAMEWORK={
            "DEFAULT_AUTHENTICATION_CLASSES": ["authmw_django.rest_framework.AuthMWAuthentication"],
            "UNAUTHENTICATED_USER": "authmw.middleware.AnonymousUser",
        },
        USE_TZ=True,
    )
    django.setup()


def authmw_settings(config: AuthConfig, **options: Any) -> dict[str, Any]:
    return {
        "PROJECT_ID": config.project_id,
        "API_URL": config.api_url,
        "PUBLISHABLE_CLIENT_KEY": config.publishable_client_key,
        "SECRET_SERVER_KEY": config.secret_server_key,
        **options,
    }


class Site:
    """Django test clients for a service's project, with extra ``AUTHMW`` options.

    A client's handler reads the settings when it loads its middleware, done here.
    """

    def __init__(self, config: AuthConfig) -> None:
        self.config = config

    def client(self, middleware: list[str] | None = None, **options: Any) -> Client:
        client = Client()
        extra = {} if middleware is None else {"MIDDLEWARE": middleware}
        with override_settings(AUTHMW=authmw_settings(self.config, **options), **extra):
            client.handler.load_middleware()
        return client

    def async_client(self, **options: Any) -> AsyncClient:
        client = AsyncClient()
        with override_settings(AUTHMW=authmw_settings(self.config, **options)):
            client.handler.load_middleware(is_async=True)
        return client


@pytest.fixture
def site(local_service: Any) -> Site:
    return Site(local_service.config)


@pytest.fixture
def short_site(short_service: Any) -> Site:
    return Site(short_service.config)


@pytest.fixture
def make_site() -> type[Site]:
    return Site


@pytest.fixture(scope="session")
def brief(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BriefService]:
    """A local service whose access tokens expire a second after issue."""
    yield from brief_service(tmp_path_factory.mktemp("brief-service"))


@pytest.fixture(scope="session")
def database() -> None:
    """The test database, migrated once (linked Django users, the admin, sessions)."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


@pytest.fixture
def settings_for() -> Any:
    """``AUTHMW`` settings for a config plus options (for override_settings in a test)."""
    return authmw_settings
