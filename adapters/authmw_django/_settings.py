"""``settings.AUTHMW`` (or flat ``AUTHMW_*`` settings), then the environment, then an env file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from authmw import AuthConfig
from authmw._apps import ServerApp
from authmw.errors import ConfigurationError
from authmw.middleware._resolver import SessionResolver
from authmw.middleware._settings import (
    KEYS,
    AdapterSettings,
    read_settings,
    secret_key_needed,
)

#: Every key ``settings.AUTHMW`` may hold.
KNOWN_KEYS = frozenset(KEYS) | {"HTTP_CLIENT", "ASYNC_HTTP_CLIENT"}


def setting_name(key: str) -> str:
    return f'AUTHMW["{key}"]'


@dataclass(frozen=True)
class DjangoAuth:
    """What the middleware, the decorators and the DRF classes share for one site."""

    config: AuthConfig
    resolver: SessionResolver
    api_paths: tuple[str, ...]

    def team_server(self) -> ServerApp:
        """The server app team guards ask; raises ImproperlyConfigured without the secret key."""
        if self.resolver.server is None:
            raise ImproperlyConfigured(secret_key_needed(setting_name))
        return self.resolver.server


def load() -> DjangoAuth:
    """Read the settings; raises ``ImproperlyConfigured`` naming the setting to fix."""
    site = _read()
    resolver = SessionResolver(
        site.config,
        on_refresh_unavailable=site.on_refresh_unavailable,
        http=_factory(_lookup("HTTP_CLIENT"), "HTTP_CLIENT"),
        async_http=_factory(_lookup("ASYNC_HTTP_CLIENT"), "ASYNC_HTTP_CLIENT"),
    )
    return DjangoAuth(site.config, resolver, site.api_paths)


def get_auth_config() -> AuthConfig:
    """The :class:`AuthConfig` the settings describe (to show the browser its public part,
    or to make a :class:`authmw.ServerApp`)."""
    return _read().config


def _options() -> Mapping[str, Any]:
    options = getattr(settings, "AUTHMW", None) or {}
    if not isinstance(options, Mapping):
        raise ImproperlyConfigured(
            'settings.AUTHMW must be a dict, e.g. AUTHMW = {"PROJECT_ID": "...", "SECRET_SERVER_KEY": "..."}.'
        )
    unknown = sorted(set(options) - KNOWN_KEYS)
    if unknown:
        raise ImproperlyConfigured(f"settings.AUTHMW has unknown keys {unknown}; known keys are {sorted(KNOWN_KEYS)}.")
    return options


def _lookup(key: str) -> Any:
    value = _options().get(key)
    return value if value is not None else getattr(settings, f"AUTHMW_{key}", None)


def _read() -> AdapterSettings:
    _options()
    try:
        return read_settings(_lookup, setting_name)
    except ConfigurationError as exc:
        raise ImproperlyConfigured(str(exc)) from None


def _factory(value: Any, key: str) -> Callable[[], Any] | None:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        return import_string(value)  # type: ignore[no-any-return]
    raise ImproperlyConfigured(f"{setting_name(key)} must be a callable returning an httpx client, or its dotted path.")
