"""The middleware's decision for frameworks that bring their own request objects.

:class:`AuthMiddleware` and :class:`WSGIAuthMiddleware` wrap a whole app. Django and Flask
adapters instead hand over one request's ``Cookie``, ``x-stack-auth`` and scheme and get
back the user and the ``Set-Cookie`` values to add to their own response::

    resolver = SessionResolver(config)
    resolved = resolver.resolve(cookie=..., auth_header=..., secure=...)        # sync views
    resolved = await resolver.aresolve(cookie=..., auth_header=..., secure=...) # on a loop

Same :class:`~authmw.middleware._core.Authenticator`, so the same decisions; the sync call
runs on one thread-safe :class:`SyncDriver` (threads needing the same refresh share one
call), the async call on one :class:`AsyncDriver` per event loop.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import httpx

from authmw._apps import AsyncServerApp, ServerApp
from authmw._config import AuthConfig
from authmw._ops import AsyncDriver, Op, SyncDriver
from authmw._tokens import TokenVerifier

from ._cookies import DEFAULT_ATTRIBUTES, CookieAttributes
from ._core import Authenticator, OnRefreshUnavailable, Outcome, Refresher
from ._user import ANONYMOUS, AnonymousUser, ApiKeyUser, AuthUser, key_principal

T = TypeVar("T")


@dataclass(frozen=True)
class Resolved:
    """Who the request is from, and the ``Set-Cookie`` values its response must carry."""

    user: AuthUser | AnonymousUser
    #: (not in the repr: the values carry the session's tokens)
    cookies: tuple[str, ...] = field(default=(), repr=False)
    #: The user was signed in from the session cookies (not from a header): a request of
    #: this session is subject to the cross-site check (see ``_origin``).
    from_cookies: bool = False


class SessionResolver:
    """Reads one request's session, refreshing it when needed. Raises ``Refusal`` (400/503).

    ``user.server`` is a synchronous :class:`ServerApp` on the resolver's own driver (None
    without the secret server key); :meth:`async_user` gives the same user with an
    :class:`AsyncServerApp`. ``run`` and ``arun`` run further operations (team checks) on
    the resolver's drivers.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        on_refresh_unavailable: OnRefreshUnavailable = "anonymous",
        http: Callable[[], httpx.Client] | None = None,
        async_http: Callable[[], httpx.AsyncClient] | None = None,
        verifier: TokenVerifier | None = None,
        refresher: Refresher | None = None,
        clock: Callable[[], float] = time.time,
        cookie_attributes: CookieAttributes = DEFAULT_ATTRIBUTES,
    ) -> None:
        self.config = config
        self.core = Authenticator(
            config,
            verifier=verifier,
            refresher=refresher,
            on_refresh_unavailable=on_refresh_unavailable,
            clock=clock,
            cookie_attributes=cookie_attributes,
        )
        self.driver = SyncDriver(http() if http else None)
        self.server = ServerApp(config, driver=self.driver) if config.secret_server_key else None
        self._async_http = async_http
        self._in_threads = _AsyncSide(self.config, _InThreads(self.driver))
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncSide] = weakref.WeakKeyDictionary()

    # -- sessions ------------------------------------------------------------------------

    def resolve(
        self, *, cookie: str | None, auth_header: str | None, secure: bool, bearer: str | None = None
    ) -> Resolved:
        decided = self.core.decide(cookie, auth_header, bearer, "https" if secure else "http")
        outcome = decided if isinstance(decided, Outcome) else self.driver.run(self.core.settle(decided))
        return self._resolved(outcome)

    async def aresolve(
        self, *, cookie: str | None, auth_header: str | None, secure: bool, bearer: str | None = None
    ) -> Resolved:
        # The loop serving requests gets its driver now, so that arun() uses it later.
        driver = self._loop_side().driver
        decided = self.core.decide(cookie, auth_header, bearer, "https" if secure else "http")
        outcome = decided if isinstance(decided, Outcome) else await driver.run(self.core.settle(decided))
        return self._resolved(outcome)

    def _resolved(self, outcome: Outcome) -> Resolved:
        if outcome.api_key is not None:
            return Resolved(key_principal(outcome.api_key, self.server))
        if outcome.claims is None or outcome.access_token is None:
            return Resolved(ANONYMOUS, outcome.cookies)
        user = AuthUser(outcome.claims, outcome.access_token, outcome.refresh_token, self.server)
        return Resolved(user, outcome.cookies, outcome.from_cookies)

    # -- further operations ------------------------------------------------------------

    def run(self, op: Op[T]) -> T:
        return self.driver.run(op)

    async def arun(self, op: Op[T]) -> T:
        """Run on this loop's driver if :meth:`aresolve` ran on this loop, else on the sync
        driver in a worker thread.

        A loop without a driver is typically a throwaway one (Django runs an async view
        served under WSGI in a loop of its own); connections made there would outlive it.
        """
        return await self._async_side().driver.run(op)

    def async_user(self, user: AuthUser | AnonymousUser) -> AuthUser | AnonymousUser:
        """``user`` for async code on the running loop: its ``server`` is an
        :class:`AsyncServerApp` on the driver :meth:`arun` uses."""
        if not isinstance(user, AuthUser) or self.server is None:
            return user
        if isinstance(user, ApiKeyUser):
            return ApiKeyUser(user.key, self._async_side().server)
        return AuthUser(user.claims, user.access_token, user.refresh_token, server=self._async_side().server)

    def _async_side(self) -> _AsyncSide:
        return self._loops.get(asyncio.get_running_loop()) or self._in_threads

    def _loop_side(self) -> _AsyncSide:
        loop = asyncio.get_running_loop()
        side = self._loops.get(loop)
        if side is None:
            side = self._loops[loop] = _AsyncSide(
                self.config, AsyncDriver(self._async_http() if self._async_http else None)
            )
        return side

    def close(self) -> None:
        self.driver.close()

    async def aclose(self) -> None:
        side = self._loops.pop(asyncio.get_running_loop(), None)
        if side is not None:
            await side.driver.aclose()


class _AsyncSide:
    """An async driver and the server app on it (made on first use)."""

    __slots__ = ("_server", "config", "driver")

    def __init__(self, config: AuthConfig, driver: AsyncDriver | _InThreads) -> None:
        self.config = config
        self.driver = driver
        self._server: AsyncServerApp | None = None

    @property
    def server(self) -> AsyncServerApp:
        if self._server is None:
            self._server = AsyncServerApp(self.config, driver=self.driver)  # type: ignore[arg-type]
        return self._server


class _InThreads:
    """Runs operations on a sync driver in worker threads, for event loops that do not live
    long enough to own connections."""

    def __init__(self, driver: SyncDriver) -> None:
        self._driver = driver

    async def run(self, op: Op[T]) -> T:
        return await asyncio.to_thread(self._driver.run, op)

    async def aclose(self) -> None:
        pass  # the sync driver's connections belong to it
