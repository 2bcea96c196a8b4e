"""Django configured once for this folder; each test gets a site with its own AUTHMW."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import django
import pytest
from django.conf import settings
from django.test import AsyncClient, Client, override_settings
from service_support import BriefService, brief_service

from authmw import AuthConfig

if not settings.configured:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="authmw-django-tests",
        ALLOWED_HOSTS=["testserver", "localhost"],
        ROOT_URLCONF="authmw_django_testsite",
        MIDDLEWARE=["authmw_django.AuthMiddleware"],
        INSTALLED_APPS=["rest_framework"],
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
