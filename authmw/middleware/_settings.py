"""The settings every shell takes (:class:`Options`), and how framework adapters (Django,
Flask, Quart) read them: each framework's own settings first, then the environment, then the
local service's ``project.env``.

Adapters pass a lookup of their settings by key (``"PROJECT_ID"``, ...) and how to name a
key in messages, so every error names the exact setting to fix in that framework::

    site = read_settings(lambda key: settings.AUTHMW.get(key), lambda key: f'AUTHMW["{key}"]')
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from authmw._config import _ENV_NAMES, AuthConfig, read_env_file
from authmw.errors import ConfigurationError

from ._cookies import DEFAULT_ATTRIBUTES, CookieAttributes
from ._core import OnRefreshUnavailable, Refresher
from ._origin import OriginPolicy, WebSocketCrossSite

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from authmw._tokens import TokenVerifier

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
    "WEBSOCKET_CROSS_SITE",  # only adapters that serve websockets (Quart) use it
)
#: Paths under which refused requests get 401/403 JSON instead of a redirect to sign-in.
DEFAULT_API_PATHS = ("/api/",)
#: What a request gets when its session needs refreshing and the service is unreachable.
DEFAULT_ON_REFRESH_UNAVAILABLE: OnRefreshUnavailable = "anonymous"


class SettingKeywords(TypedDict, total=False):
    """The settings every shell takes as keyword arguments (an adapter's upper-case keys)."""

    on_refresh_unavailable: OnRefreshUnavailable
    csrf_check: bool
    trusted_origins: Iterable[str]
    cookie_same_site: str
    cookie_secure: bool | None


class AdapterKeywords(SettingKeywords, total=False):
    """The keyword arguments of the Flask and Quart ``AuthMW(...)``: every setting of
    :data:`KEYS` in lower case (the configuration's keys too, instead of ``config=``)."""

    project_id: str
    api_url: str
    publishable_client_key: str
    secret_server_key: str
    handler_path: str
    public_api_url: str
    allow_anonymous: bool
    allow_restricted: bool
    accept_api_keys: bool
    env_file: str


class OptionKeywords(SettingKeywords, total=False):
    """The keyword arguments of :class:`~authmw.middleware.AuthMiddleware` and
    :class:`~authmw.middleware.WSGIAuthMiddleware` (see :meth:`Options.of`)."""

    websocket_cross_site: WebSocketCrossSite
    #: Path prefixes where guards answer JSON rather than as a page (``api=None``).
    api_paths: tuple[str, ...]
    verifier: TokenVerifier | None
    refresher: Refresher | None
    clock: Callable[[], float]


@dataclass(frozen=True)
class Options:
    """What every shell (middleware or framework adapter) hands the request handler besides
    the :class:`AuthConfig`: one object, whichever way the settings were given.

    ``on_refresh_unavailable``: "anonymous" or "error" (503) when the service cannot be
    reached; ``origin``: the cross-site check of cookie sessions; ``cookie_attributes``:
    ``SameSite`` and ``Secure`` of the session cookies; ``api_paths``: where guards answer
    JSON rather than redirect. ``verifier``, ``refresher`` and ``clock`` replace the real
    ones in tests.
    """

    on_refresh_unavailable: OnRefreshUnavailable = DEFAULT_ON_REFRESH_UNAVAILABLE
    origin: OriginPolicy = OriginPolicy()
    cookie_attributes: CookieAttributes = DEFAULT_ATTRIBUTES
    api_paths: tuple[str, ...] = DEFAULT_API_PATHS
    verifier: TokenVerifier | None = None
    refresher: Refresher | None = None
    clock: Callable[[], float] = time.time

    @classmethod
    def of(cls, **keywords: Unpack[OptionKeywords]) -> Options:
        """The options of the middlewares' keyword arguments (:class:`OptionKeywords`); an
        unknown one (a misspelt ``csrf_chek=``) raises :class:`ConfigurationError`."""
        refuse_unknown(keywords, OptionKeywords.__optional_keys__, "the middleware")
        return cls(
            keywords.get("on_refresh_unavailable", DEFAULT_ON_REFRESH_UNAVAILABLE),
            OriginPolicy(
                keywords.get("csrf_check", True),
                keywords.get("trusted_origins", ()),
                keywords.get("websocket_cross_site", "refuse"),
            ),
            CookieAttributes(keywords.get("cookie_same_site", "Lax"), keywords.get("cookie_secure")),
            tuple(keywords.get("api_paths", DEFAULT_API_PATHS)),
            verifier=keywords.get("verifier"),
            refresher=keywords.get("refresher"),
            clock=keywords.get("clock", time.time),
        )


def refuse_unknown(given: Iterable[str], known: Iterable[str], owner: str) -> None:
    """Raises :class:`ConfigurationError` naming the keyword arguments of ``given`` that are
    not settings: a misspelt setting would otherwise be left out without a word."""
    known = sorted(known)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ConfigurationError(f"{owner} has no setting {', '.join(unknown)}; its settings are {', '.join(known)}.")


def given_settings(keywords: dict[str, Any], owner: str) -> dict[str, Any]:
    """An adapter's keyword arguments (``csrf_check=False``) as its setting keys
    (``"CSRF_CHECK"``); an argument that is no setting raises :class:`ConfigurationError`."""
    refuse_unknown(keywords, (key.lower() for key in KEYS), owner)
    return {name.upper(): value for name, value in keywords.items()}


@dataclass(frozen=True)
class AdapterSettings:
    config: AuthConfig
    options: Options


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
    websocket: WebSocketCrossSite = lookup("WEBSOCKET_CROSS_SITE") or "refuse"
    origin = OriginPolicy(True if check is None else check, lookup("TRUSTED_ORIGINS") or (), websocket, name=name)
    same_site = lookup("COOKIE_SAME_SITE")
    cookies = CookieAttributes(same_site or "Lax", lookup("COOKIE_SECURE"), name=name)
    return AdapterSettings(config, Options(mode, origin, cookies, tuple(api_paths)))


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
