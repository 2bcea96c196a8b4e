"""``settings.AUTHMW`` (or flat ``AUTHMW_*`` settings), then the environment, then an env file."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from authmw import AuthConfig
from authmw._config import _ENV_NAMES, read_env_file
from authmw._transport import Transport
from authmw.errors import ConfigurationError
from authmw.middleware._core import OnRefreshUnavailable
from authmw.middleware._resolver import SessionResolver

#: ``settings.AUTHMW`` keys that build the :class:`AuthConfig`, and its field names.
CONFIG_KEYS = {
    "PROJECT_ID": "project_id",
    "API_URL": "api_url",
    "PUBLISHABLE_CLIENT_KEY": "publishable_client_key",
    "SECRET_SERVER_KEY": "secret_server_key",
    "HANDLER_PATH": "handler_path",
}
#: Paths under which refused requests get 401/403 JSON instead of a redirect to sign-in.
DEFAULT_API_PATHS = ("/api/",)
#: What a request gets when the session needs refreshing and the service is unreachable.
DEFAULT_ON_REFRESH_UNAVAILABLE: OnRefreshUnavailable = "anonymous"
#: Every key ``settings.AUTHMW`` may hold.
KNOWN_KEYS = frozenset(CONFIG_KEYS) | {
    "ENV_FILE",
    "ON_REFRESH_UNAVAILABLE",
    "API_PATHS",
    "HTTP_CLIENT",
    "ASYNC_HTTP_CLIENT",
}


@dataclass(frozen=True)
class DjangoAuth:
    """What the middleware, the decorators and the DRF classes share for one site."""

    config: AuthConfig
    resolver: SessionResolver
    api_paths: tuple[str, ...]

    def team_transport(self) -> Transport:
        if not self.config.secret_server_key:
            raise ImproperlyConfigured(
                'Team guards ask the service about teams with the secret server key: set AUTHMW["SECRET_SERVER_KEY"] '
                "in your settings (or AUTHMW_SECRET_SERVER_KEY in the environment)."
            )
        return self.resolver.server_transport


def _setting(options: Mapping[str, Any], key: str) -> Any:
    value = options.get(key)
    return value if value is not None else getattr(settings, f"AUTHMW_{key}", None)


def _factory(value: Any, key: str) -> Callable[[], Any] | None:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        return import_string(value)  # type: ignore[no-any-return]
    raise ImproperlyConfigured(f'AUTHMW["{key}"] must be a callable returning an httpx client, or its dotted path.')


def load() -> DjangoAuth:
    """Read the settings; raises ``ImproperlyConfigured`` naming the setting to fix."""
    options = getattr(settings, "AUTHMW", None) or {}
    if not isinstance(options, Mapping):
        raise ImproperlyConfigured('settings.AUTHMW must be a dict, e.g. AUTHMW = {"PROJECT_ID": "...", "SECRET_SERVER_KEY": "..."}.')
    unknown = sorted(set(options) - KNOWN_KEYS)
    if unknown:
        raise ImproperlyConfigured(f"settings.AUTHMW has unknown keys {unknown}; known keys are {sorted(KNOWN_KEYS)}.")

    env: dict[str, str] = {}
    env_file = _setting(options, "ENV_FILE") or os.environ.get("AUTHMW_ENV_FILE")
    if env_file:
        if not os.path.isfile(env_file):
            raise ImproperlyConfigured(
                f'AUTHMW["ENV_FILE"] is {str(env_file)!r}, which is not a file. Point it to the project.env '
                "that `authmw dev` writes into its data folder, or remove it and set the keys themselves."
            )
        env.update(read_env_file(env_file))
    env.update(os.environ)
    given = {field: _setting(options, key) for key, field in CONFIG_KEYS.items()}

    if not (given["project_id"] or any(env.get(name) for name in _ENV_NAMES["project_id"])):
        raise ImproperlyConfigured(
            'authmw needs the project id: set AUTHMW = {"PROJECT_ID": "<project id>", ...} in your settings '
            '(or AUTHMW_PROJECT_ID in the settings or the environment, or AUTHMW["ENV_FILE"] to the '
            "project.env written by `authmw dev`)."
        )
    try:
        config = AuthConfig.from_env(env, **given)
    except ConfigurationError as exc:
        raise ImproperlyConfigured(f"settings.AUTHMW: {exc}") from None
    if not (config.secret_server_key or config.publishable_client_key):
        raise ImproperlyConfigured(
            'authmw refreshes sessions with the secret server key: set AUTHMW["SECRET_SERVER_KEY"] '
            '(or at least AUTHMW["PUBLISHABLE_CLIENT_KEY"]) in your settings, or AUTHMW_SECRET_SERVER_KEY '
            "in the environment. The local service writes both to project.env."
        )

    mode: OnRefreshUnavailable = _setting(options, "ON_REFRESH_UNAVAILABLE") or DEFAULT_ON_REFRESH_UNAVAILABLE
    if mode not in ("anonymous", "error"):
        raise ImproperlyConfigured(f'AUTHMW["ON_REFRESH_UNAVAILABLE"] must be "anonymous" or "error", not {mode!r}.')
    api_paths = _setting(options, "API_PATHS")
    api_paths = DEFAULT_API_PATHS if api_paths is None else api_paths
    if isinstance(api_paths, str) or not all(isinstance(p, str) and p.startswith("/") for p in api_paths):
        raise ImproperlyConfigured('AUTHMW["API_PATHS"] must be a list of path prefixes such as ["/api/"].')

    resolver = SessionResolver(
        config,
        on_refresh_unavailable=mode,
        http=_factory(_setting(options, "HTTP_CLIENT"), "HTTP_CLIENT"),
        async_http=_factory(_setting(options, "ASYNC_HTTP_CLIENT"), "ASYNC_HTTP_CLIENT"),
    )
    return DjangoAuth(config, resolver, tuple(api_paths))
