"""``settings.AUTHMW`` (or flat ``AUTHMW_*`` settings), then the environment, then an env file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from authmw import AuthConfig, ServerApp
from authmw.adapter import (
    KEYS,
    AdapterSettings,
    SessionResolver,
    read_settings,
)
from authmw.errors import ConfigurationError
from authmw.middleware import AnonymousUser, AuthUser

from ._linked import LinkedUsers, PermissionRule, check_installed

#: Every key ``settings.AUTHMW`` may hold.
KNOWN_KEYS = frozenset(KEYS) | {
    "HTTP_CLIENT",
    "ASYNC_HTTP_CLIENT",
    "DJANGO_USERS",
    "STAFF_PERMISSION",
    "SUPERUSER_PERMISSION",
}


#: The middleware's dotted path in settings.MIDDLEWARE.
MIDDLEWARE_PATH = "authmw_django.AuthMiddleware"
#: Sets request.user too: it must run first, or it replaces authmw's user.
DJANGO_AUTH_MIDDLEWARE = "django.contrib.auth.middleware.AuthenticationMiddleware"


def setting_name(key: str) -> str:
    return f'AUTHMW["{key}"]'


@dataclass(frozen=True)
class DjangoAuth:
    """What the middleware, the decorators and the DRF classes share for one site."""

    config: AuthConfig
    #: The request handler; its cross-site check is not used when Django's CsrfViewMiddleware
    #: is installed.
    resolver: SessionResolver
    #: Django's ``CsrfViewMiddleware`` (or a subclass) is in ``settings.MIDDLEWARE``.
    django_csrf: bool
    #: Linked Django users (``DJANGO_USERS``), else None: request.user is authmw's user.
    linked: LinkedUsers | None = None

    def team_server(self) -> ServerApp:
        """The server app team guards ask; raises ImproperlyConfigured without the secret key."""
        return self.resolver.team_server(setting_name, ImproperlyConfigured)


def load() -> DjangoAuth:
    """Read the settings; raises ``ImproperlyConfigured`` naming the setting to fix."""
    site = _read()
    resolver = SessionResolver(
        site.config,
        site.options,
        http=_factory(_lookup("HTTP_CLIENT"), "HTTP_CLIENT"),
        async_http=_factory(_lookup("ASYNC_HTTP_CLIENT"), "ASYNC_HTTP_CLIENT"),
    )
    return DjangoAuth(
        site.config,
        resolver,
        _django_csrf(settings.MIDDLEWARE),
        _linked_users(site.config),
    )


def _linked_users(config: AuthConfig) -> LinkedUsers | None:
    if not _lookup("DJANGO_USERS"):
        for key in ("STAFF_PERMISSION", "SUPERUSER_PERMISSION"):
            if _lookup(key) is not None:
                raise ImproperlyConfigured(
                    f"{setting_name(key)} applies to linked Django users: set {setting_name('DJANGO_USERS')} = True."
                )
        return None
    check_installed(
        list(settings.INSTALLED_APPS),
        list(settings.MIDDLEWARE),
        list(getattr(settings, "AUTHENTICATION_BACKENDS", ())),
        setting_name("DJANGO_USERS"),
    )
    if not config.secret_server_key:
        raise ImproperlyConfigured(
            f"{setting_name('DJANGO_USERS')} = True reads each user's profile and permissions at sign-in "
            f"and needs the secret server key: set {setting_name('SECRET_SERVER_KEY')}."
        )
    return LinkedUsers(
        staff=PermissionRule.parse(_lookup("STAFF_PERMISSION"), setting_name("STAFF_PERMISSION")),
        superuser=PermissionRule.parse(_lookup("SUPERUSER_PERMISSION"), setting_name("SUPERUSER_PERMISSION")),
    )


def _django_csrf(middleware: list[str]) -> bool:
    from django.middleware.csrf import CsrfViewMiddleware

    for path in middleware:
        try:
            found = import_string(path)
        except ImportError:
            continue  # Django itself explains a middleware it cannot import
        if isinstance(found, type) and issubclass(found, CsrfViewMiddleware):
            return True
    return False


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
    flat = sorted(name for name in dir(settings) if name.startswith("AUTHMW_") and name[7:] not in KNOWN_KEYS)
    if flat:
        # A misspelt flat setting (AUTHMW_CSRF_CHEK) would otherwise be left out without a word.
        raise ImproperlyConfigured(
            f"settings has {', '.join(flat)}, which authmw does not read; its flat settings are AUTHMW_ and one of "
            f"{sorted(KNOWN_KEYS)}."
        )
    try:
        return read_settings(_lookup, setting_name)
    except ConfigurationError as exc:
        raise ImproperlyConfigured(str(exc)) from None


def _factory(value: Any, key: str) -> Callable[[], Any] | None:
    if value is None or callable(value):
        factory: Callable[[], Any] | None = value
        return factory
    if isinstance(value, str):
        return import_string(value)  # type: ignore[no-any-return]
    raise ImproperlyConfigured(f"{setting_name(key)} must be a callable returning an httpx client, or its dotted path.")


def check_order(middleware: list[str]) -> None:
    names = list(middleware)
    both = MIDDLEWARE_PATH in names and DJANGO_AUTH_MIDDLEWARE in names
    if both and names.index(DJANGO_AUTH_MIDDLEWARE) > names.index(MIDDLEWARE_PATH):
        raise ImproperlyConfigured(
            f"{DJANGO_AUTH_MIDDLEWARE!r} comes after {MIDDLEWARE_PATH!r} in settings.MIDDLEWARE and would "
            "replace authmw's request.user; move authmw's middleware after it."
        )


def site_auth(request: Any, needed_by: str) -> DjangoAuth:
    """The middleware's settings for this request; explains the fix when it did not run."""
    auth = getattr(request, "_authmw", None)
    if auth is None:
        raise ImproperlyConfigured(
            f"{needed_by} needs authmw's middleware: add {MIDDLEWARE_PATH!r} to settings.MIDDLEWARE."
        )
    return auth  # type: ignore[no-any-return]


def request_user(request: Any, needed_by: str) -> AuthUser | AnonymousUser:
    """The request's authmw user (``request.authmw_user`` with linked Django users)."""
    if site_auth(request, needed_by).linked is not None:
        return request.authmw_user  # type: ignore[no-any-return]
    user = request.user
    if not isinstance(user, (AuthUser, AnonymousUser)):
        raise ImproperlyConfigured(
            f"{needed_by} found a request.user that is not authmw's ({type(user).__name__}): another "
            "middleware replaced it. Put "
            f"{MIDDLEWARE_PATH!r} after {DJANGO_AUTH_MIDDLEWARE!r} in settings.MIDDLEWARE."
        )
    return user
