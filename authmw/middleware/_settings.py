"""Settings of framework adapters (Django, Flask): each framework's own settings first,
then the environment, then the local service's ``project.env``.

Adapters pass a lookup of their settings by key (``"PROJECT_ID"``, ...) and how to name a
key in messages, so every error names the exact setting to fix in that framework::

    site = read_settings(lambda key: settings.AUTHMW.get(key), lambda key: f'AUTHMW["{key}"]')
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from authmw._config import _ENV_NAMES, AuthConfig, read_env_file
from authmw.errors import ConfigurationError

from ._cookies import CookieAttributes
from ._core import OnRefreshUnavailable
from ._origin import OriginPolicy

#: Setting keys that build the :class:`AuthConfig`, and its field names.
CONFIG_KEYS = {
    "PROJECT_ID": "project_id",
    "API_URL": "api_url",
    "PUBLISHABLE_CLIENT_KEY": "publishable_client_key",
    "SECRET_SERVER_KEY": "secret_server_key",
    "HANDLER_PATH": "handler_path",
    "PUBLIC_API_URL": "public_api_url",
    "ALLOW_ANONYMOUS": "allow_anonymous",
    "ALLOW_RESTRICTED": "allow_restricted",
    "ACCEPT_API_KEYS": "accept_api_keys",
}
#: Every key :func:`read_settings` looks up.
KEYS = (
    *CONFIG_KEYS,
    "ENV_FILE",
    "ON_REFRESH_UNAVAILABLE",
    "API_PATHS",
    "CSRF_CHECK",
    "TRUSTED_ORIGINS",
    "COOKIE_SAME_SITE",
    "COOKIE_SECURE",
)
#: Paths under which refused requests get 401/403 JSON instead of a redirect to sign-in.
DEFAULT_API_PATHS = ("/api/",)
#: What a request gets when its session needs refreshing and the service is unreachable.
DEFAULT_ON_REFRESH_UNAVAILABLE: OnRefreshUnavailable = "anonymous"


@dataclass(frozen=True)
class AdapterSettings:
    config: AuthConfig
    on_refresh_unavailable: OnRefreshUnavailable
    api_paths: tuple[str, ...]
    origin: OriginPolicy
    cookie_attributes: CookieAttributes


def read_settings(
    lookup: Callable[[str], Any], name: Callable[[str], str], *, config: AuthConfig | None = None
) -> AdapterSettings:
    """Raises :class:`ConfigurationError` naming the setting (``name(key)``) to fix.

    An explicit ``config`` is used as it is; the other keys are still looked up.
    """
    config = config or _config(lookup, name)
    mode = lookup("ON_REFRESH_UNAVAILABLE") or DEFAULT_ON_REFRESH_UNAVAILABLE
    if mode not in ("anonymous", "error"):
        raise ConfigurationError(f'{name("ON_REFRESH_UNAVAILABLE")} must be "anonymous" or "error", not {mode!r}.')
    api_paths = lookup("API_PATHS")
    api_paths = DEFAULT_API_PATHS if api_paths is None else api_paths
    if isinstance(api_paths, str) or not all(isinstance(p, str) and p.startswith("/") for p in api_paths):
        raise ConfigurationError(f'{name("API_PATHS")} must be a list of path prefixes such as ["/api/"].')
    check = lookup("CSRF_CHECK")
    origin = OriginPolicy(True if check is None else check, lookup("TRUSTED_ORIGINS") or (), name=name)
    same_site = lookup("COOKIE_SAME_SITE")
    cookies = CookieAttributes(same_site or "Lax", lookup("COOKIE_SECURE"), name=name)
    return AdapterSettings(config, mode, tuple(api_paths), origin, cookies)


def _config(lookup: Callable[[str], Any], name: Callable[[str], str]) -> AuthConfig:
    env: dict[str, str] = {}
    env_file = lookup("ENV_FILE") or os.environ.get("AUTHMW_ENV_FILE")
    if env_file:
        if not os.path.isfile(env_file):
            raise ConfigurationError(
                f"{name('ENV_FILE')} is {str(env_file)!r}, which is not a file. Point it to the project.env "
                "that `authmw dev` writes into its data folder, or remove it and set the keys themselves."
            )
        env.update(read_env_file(env_file))
    env.update(os.environ)
    given = {field: lookup(key) for key, field in CONFIG_KEYS.items()}

    if not (given["project_id"] or any(env.get(var) for var in _ENV_NAMES["project_id"])):
        raise ConfigurationError(
            f"authmw needs the project id: set {name('PROJECT_ID')} (or AUTHMW_PROJECT_ID in the environment, "
            f"or {name('ENV_FILE')} to the project.env written by `authmw dev`)."
        )
    try:
        config = AuthConfig.from_env(env, **given)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{exc} (settings: {name('PROJECT_ID')}, {name('API_URL')}, ...)") from None
    if not (config.secret_server_key or config.publishable_client_key):
        raise ConfigurationError(
            f"authmw refreshes sessions with the secret server key: set {name('SECRET_SERVER_KEY')} (or at least "
            f"{name('PUBLISHABLE_CLIENT_KEY')}), or AUTHMW_SECRET_SERVER_KEY in the environment. "
            "The local service writes both to project.env."
        )
    return config


def secret_key_needed(name: Callable[[str], str]) -> str:
    """The message for a team guard used without the secret server key."""
    return (
        f"Team guards ask the service about teams with the secret server key: set {name('SECRET_SERVER_KEY')} "
        "(or AUTHMW_SECRET_SERVER_KEY in the environment)."
    )
