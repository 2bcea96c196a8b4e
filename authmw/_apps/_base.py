"""What every app shares: construction, closing, model parsing, calls of every tier."""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NoReturn, TypeVar, get_origin, overload
from urllib.parse import urlsplit

import pydantic

from .._config import AuthConfig
from .._ops import AsyncDriver, Op, SyncDriver
from .._session import Session
from .._transport import MAX_ATTEMPTS, Tier, Transport
from ..errors import FeatureNotSupported, InvalidServerResponse
from ..models import Page, Project, WireModel
from ._binding import AsyncRunner, SyncRunner, operation

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

M = TypeVar("M", bound=WireModel)
N = TypeVar("N", bound="_Namespace")

#: More open apps than this (each with its own connection pool) earn a warning, as in the official SDK.
OPEN_APPS_WARNING_THRESHOLD = 10

logger = logging.getLogger("authmw")
_open_apps: weakref.WeakSet[Any] = weakref.WeakSet()
_warned_open_apps = False


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


#: "Leave unchanged" in update calls (None means "clear").
UNSET: Any = _Unset()


def changes(**fields: Any) -> dict[str, Any]:
    """The fields that were given (not UNSET): the body of an update call."""
    return {name: value for name, value in fields.items() if value is not UNSET}


def parse(model: type[M], body: Any) -> M:
    """The model of a wire body; a body that does not fit is an invalid server response."""
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        # Field locations and messages only: the input may hold tokens.
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
        raise InvalidServerResponse(f"The service's answer is not a valid {model.__name__} ({problems}).") from None


def require_callback_url(url: Any, parameter: str = "callback_url", page: str = "") -> str:
    """``url`` if it is an absolute http(s) URL, else a ValueError naming the parameter.

    E-mailed links point at ``url`` with ``?code=...`` appended. A browser SDK would fall
    back to the current page; a back end has none, so the URL must be given.
    """
    example = f"https://app.example.com/handler/{page}" if page else "https://app.example.com/handler/..."
    if not url:
        raise ValueError(
            f"{parameter} is required: the absolute URL of your page that receives the e-mailed code "
            f"(for example {example}). There is no current page to fall back to on a server."
        )
    if not isinstance(url, str):
        raise TypeError(f"{parameter} must be a string, not {type(url).__name__}.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{parameter} must be an absolute http(s) URL such as {example}, got {url!r}.")
    return url


def parse_items(model: type[M], body: Any) -> list[M]:
    """The items of a list answer (``{"items": [...], "is_paginated": ...}``)."""
    return parse(Page[model], body).items  # type: ignore[valid-type]


class _Api:
    """What operations see: the config, the transport and (client apps) the session."""

    config: AuthConfig
    _transport: Transport
    _driver: Any
    #: The user's session on client apps (sent with every call), None on other tiers.
    _session: Session | None = None


class _App(_Api):
    _tier: ClassVar[Tier]
    _driver_class: ClassVar[type[SyncDriver | AsyncDriver]]

    def __init__(
        self,
        config: AuthConfig | None = None,
        /,
        *,
        driver: SyncDriver | AsyncDriver | None = None,
        timeout: float = 30.0,
        max_attempts: int = MAX_ATTEMPTS,
        **settings: Any,
    ) -> None:
        """``config``, or ``AuthConfig`` settings as keywords (the rest from ``AUTHMW_*``).

        ``driver`` shares an existing driver (and its connections) instead of opening one;
        the app then leaves closing it to its owner. ``timeout`` is in seconds per request;
        ``max_attempts`` bounds the retries of a call (1: no retry, say for a command line).
        """
        if config is None:
            config = AuthConfig.from_env(**settings)
        elif settings:
            config = config.with_(**settings)
        self.config = config
        self._transport = self._new_transport(config)
        self._transport.max_attempts = max_attempts
        self._owns_driver = driver is None
        self._driver = driver if driver is not None else self._driver_class(timeout=timeout)
        if self._owns_driver:
            _opened(self)

    def _new_transport(self, config: AuthConfig) -> Transport:
        return Transport(config, self._tier)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(project_id={self.config.project_id!r}, api_url={self.config.api_url!r})"


def _opened(app: _App) -> None:
    global _warned_open_apps
    _open_apps.add(app)
    if len(_open_apps) > OPEN_APPS_WARNING_THRESHOLD and not _warned_open_apps:
        _warned_open_apps = True
        logger.warning(
            "authmw: %d apps are open, each with its own connection pool. Create one app at start-up "
            "and share it (or close apps with `with` / close()).",
            len(_open_apps),
        )


class _SyncApp(_App, SyncRunner):
    _driver_class = SyncDriver

    def close(self) -> None:
        """Close the HTTP connections (only those the app opened itself)."""
        if self._owns_driver:
            _open_apps.discard(self)
            self._driver.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _AsyncApp(_App, AsyncRunner):
    _driver_class = AsyncDriver

    async def aclose(self) -> None:
        """Close the HTTP connections (only those the app opened itself)."""
        if self._owns_driver:
            _open_apps.discard(self)
            await self._driver.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _CommonOps(_Api):
    """Calls every tier has."""

    @operation
    def get_project(self) -> Op[Project]:
        """The project's public settings (client view, also for the server tier)."""
        body = yield from self._transport.call_json("GET", "/projects/current")
        return parse(Project, body)

    @operation
    def check_feature_support(self, /, feature: str, **details: Any) -> Op[NoReturn]:
        """Tell the service a feature was asked for that this client does not support: always
        raises :class:`~authmw.errors.FeatureNotSupported` with the service's answer (its
        ``/check-feature-support`` always answers with an error).

        ``details`` go with the name in the body (JSON values).
        """
        if not isinstance(feature, str) or not feature.strip():
            raise ValueError("feature must name the feature, such as 'passkey sign-up'.")
        body = {**details, "feature_name": feature, "name": feature}  # the service reads feature_name
        response = yield from self._transport.call("POST", "/check-feature-support", json=body)
        raise FeatureNotSupported(feature, response.text.strip() or f"{feature} is not supported.")


class _Namespace(_Api):
    """A group of calls of an app (``server.users``); shares the app's transport and driver."""

    def __init__(self, app: _Api) -> None:
        self.config = app.config
        self._transport = app._transport
        self._driver = app._driver
        self._session = app._session

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of project {self.config.project_id!r}>"


class namespace(Generic[N]):  # lower case: used like a property
    """A group of calls on an app (``users = namespace(ServerUsers[SyncRunner])``), made on first use."""

    def __init__(self, cls: type[N]) -> None:
        self.cls = cls
        self.__doc__ = (get_origin(cls) or cls).__doc__  # a Twin's, not its alias's

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> namespace[N]: ...
    @overload
    def __get__(self, obj: _Api, owner: type | None = None) -> N: ...
    def __get__(self, obj: _Api | None, owner: type | None = None) -> namespace[N] | N:
        if obj is None:
            return self
        group = self.cls(obj)
        obj.__dict__[self.name] = group  # later lookups find it without the descriptor
        return group
