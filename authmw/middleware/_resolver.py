"""The request path, written once for every framework.

Each shell (the ASGI and WSGI middlewares; the Django, Flask and Quart adapters) describes one
request as a :class:`SessionRequest` (its method, scheme and a way to read a header), hands it
to the app's one :class:`SessionResolver`, and translates the :class:`Resolved` it gets back
into its framework's terms: the user on the request, ``Set-Cookie`` headers on the response, a
refusal answered instead of the view::

    resolved = resolver.resolve(SessionRequest(method, scheme, header))        # sync frameworks
    resolved = await resolver.aresolve(SessionRequest(method, scheme, header)) # on an event loop

Every decision is made here or below: which headers carry a session (:meth:`SessionResolver.
credentials`, the one place a new kind of credential is read), who the user is
(:class:`~authmw.middleware._core.Authenticator`), whether a cookie session's request comes
from another site (:class:`~authmw.middleware._origin.OriginPolicy`), and which driver and
server app serve the user (one :class:`SyncDriver` for threads; one :class:`AsyncDriver` per
event loop).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

import httpx

from authmw._apps import AsyncServerApp, ServerApp
from authmw._config import AuthConfig
from authmw._ops import AsyncDriver, Op, SyncDriver
from authmw.errors import ConfigurationError

from ._core import NO_SESSION, UNCONFIRMED_SESSION, Authenticator, Outcome
from ._credentials import Tokens, bearer_token
from ._origin import own_origin
from ._refusal import Refusal
from ._settings import Options, secret_key_needed
from ._user import ANONYMOUS, UNCONFIRMED, AnonymousUser, ApiKeyUser, AuthUser, UnadmittedUser, key_principal

T = TypeVar("T")
D = TypeVar("D", covariant=True)
#: A request header by lower-case name, None when absent.
HeaderReader = Callable[[str], "str | None"]

#: The headers :meth:`SessionResolver.credentials` and the cross-site check read (lower case):
#: a shell that gathers headers up front (the ASGI middleware) gathers these.
READ_HEADERS = frozenset(
    {
        "cookie",
        "x-stack-auth",
        "authorization",
        "x-stack-access-token",
        "x-forwarded-proto",
        "host",
        "origin",
        "referer",
        "sec-fetch-site",
    }
)


class SessionRequest(NamedTuple):
    """What the handler needs of one request; each shell fills it from its framework's request."""

    method: str
    #: "http" or "https" ("ws"/"wss" for a WebSocket handshake), as the server received it.
    scheme: str
    header: HeaderReader
    websocket: bool = False
    #: The host the framework vouches for (Django's ``get_host()``); None: the Host header.
    host: str | None = None


class Credentials(NamedTuple):
    """The session-bearing headers of a request, as :meth:`Authenticator.decide` takes them."""

    cookie: str | None
    auth_header: str | None
    bearer: str | None


class Resolved(NamedTuple):
    """Who the request is from, the ``Set-Cookie`` values its response must carry, and the
    refusal to answer instead of running the app (None: run it)."""

    user: AuthUser | AnonymousUser
    cookies: tuple[str, ...] = ()
    #: The user was signed in from the session cookies (not from a header): a request of
    #: this session is subject to the cross-site check (see ``_origin``).
    from_cookies: bool = False
    #: The cross-site check refused the request (403); the cookies are still written.
    refusal: Refusal | None = None

    def __repr__(self) -> str:  # never the cookies: their values carry the session's tokens
        return f"Resolved(user={self.user!r}, cookies={len(self.cookies)}, refusal={self.refusal!r})"


NOBODY = Resolved(ANONYMOUS)
#: A request whose session or key could not be checked (the auth service did not answer).
UNCONFIRMED_RESOLVED = Resolved(UNCONFIRMED)

#: ``tuple.__new__``: ``tuple_new(Resolved, (user, cookies, from_cookies, refusal))`` makes the
#: NamedTuple from every field without running its Python-level ``__new__``, which calling the
#: class does (about 0.3 µs of the hot path per NamedTuple; shells make their SessionRequest so).
tuple_new = tuple.__new__


class SessionResolver:
    """The one request handler: reads a request's session, refreshing it when needed, and
    decides the cross-site check. Raises ``Refusal`` (400/401/503) for a request to answer
    at once; a cross-site refusal comes back in :attr:`Resolved.refusal` with the cookies.

    ``user.server`` is a :class:`ServerApp` on the resolver's sync driver after
    :meth:`resolve`, an :class:`AsyncServerApp` on the loop's driver after :meth:`aresolve`
    (None without the secret server key). ``run`` and ``arun`` run further operations (team
    checks) on the same drivers. ``http`` and ``async_http`` make the ``httpx`` clients.
    """

    def __init__(
        self,
        config: AuthConfig,
        options: Options = Options(),
        *,
        http: Callable[[], httpx.Client] | None = None,
        async_http: Callable[[], httpx.AsyncClient] | None = None,
    ) -> None:
        self.config = config
        self.options = options
        self.origin = options.origin
        self.core = Authenticator(
            config,
            verifier=options.verifier,
            refresher=options.refresher,
            on_refresh_unavailable=options.on_refresh_unavailable,
            clock=options.clock,
            cookie_attributes=options.cookie_attributes,
        )
        self._http = http
        self._async_http = async_http
        self._lock = threading.Lock()
        self._sync: _Side[SyncDriver] | None = None  # made on first use: an ASGI app may never need it
        self._threads: _Side[_InThreads] | None = None  # async code on a loop without a driver of its own
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Side[AsyncDriver]] = (
            weakref.WeakKeyDictionary()
        )
        #: The loop :meth:`_loop_side` served last (by weak reference) and its side: most
        #: processes run one loop, and a WeakKeyDictionary lookup makes a weakref per call.
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], _Side[AsyncDriver]] | None = None

    # -- one request ---------------------------------------------------------------------

    @staticmethod
    def credentials(request: SessionRequest) -> Credentials:
        """The headers that may carry a session: the Cookie header, ``x-stack-auth``, and a
        bearer token (``Authorization: Bearer`` or ``x-stack-access-token``)."""
        return Credentials(*_credentials(request.header))

    def resolve(self, request: SessionRequest, *, check_origin: bool = True) -> Resolved:
        """The request's user and cookies, on the sync driver (threads share one refresh)."""
        decided = self._decide(request)
        if decided is NO_SESSION:
            return NOBODY
        if not isinstance(decided, Outcome):
            decided = self.driver.run(self.core.settle(decided))
        return self._resolved(decided, request, check_origin, self._sync_side)

    async def aresolve(self, request: SessionRequest, *, check_origin: bool = True, sync_user: bool = False) -> Resolved:
        """:meth:`resolve` on this event loop's driver; ``sync_user``: the user's server app
        is the sync one all the same (Django's ``request.user`` in an async chain)."""
        decided = self._decide(request)
        if not isinstance(decided, Outcome):
            decided = await self._loop_side().driver.run(self.core.settle(decided))
        # A signed-in request makes this loop's driver now (if it has none), so that arun()
        # on this loop uses it later.
        return self._resolved(decided, request, check_origin, self._sync_side if sync_user else self._loop_side)

    def resolve_ready(self, request: SessionRequest) -> Resolved | Tokens:
        """:meth:`aresolve` without a coroutine while no I/O is needed (the steady state): the
        :class:`Resolved`, else the :class:`Tokens` for :meth:`asettle`, which finishes it.
        For the ASGI middleware, whose every request pays for each coroutine frame."""
        decided = self._decide(request)
        if decided is NO_SESSION:
            return NOBODY
        if isinstance(decided, Outcome):
            return self._resolved(decided, request, True, self._loop_side)
        return decided

    async def asettle(self, tokens: Tokens, request: SessionRequest) -> Resolved:
        """:meth:`aresolve`'s end for the Tokens :meth:`resolve_ready` handed back."""
        outcome = await self._loop_side().driver.run(self.core.settle(tokens))
        return self._resolved(outcome, request, True, self._loop_side)

    def cross_site(self, request: SessionRequest) -> Refusal | None:
        """The 403 to answer when a request whose session came from the cookies comes from
        another site, else None (see ``_origin``)."""
        method, header = request.method, request.header
        if not self.origin.applies(method, websocket=request.websocket):
            return None
        forwarded_proto = header("x-forwarded-proto")
        own = own_origin(request.scheme, request.host or header("host"), forwarded_proto)
        return self.origin.refusal(method, header, own, websocket=request.websocket)

    def _decide(self, request: SessionRequest) -> Outcome | Tokens:
        header = request.header
        cookie, auth_header, bearer = _credentials(header)  # (a plain tuple: no Credentials made)
        # X-Forwarded-Proto only says whether cookies written back must be Secure.
        forwarded_proto = header("x-forwarded-proto") if cookie is not None else None
        return self.core.decide(cookie, auth_header, bearer, request.scheme, forwarded_proto)

    def _resolved(
        self, outcome: Outcome, request: SessionRequest, check_origin: bool, side: Callable[[], _Side[object]]
    ) -> Resolved:
        # (one unpacking reads every field for the price of about one attribute read)
        claims, access_token, refresh_token, cookies, from_cookies, api_key, refused = outcome
        if api_key is not None:  # a user's or a team's API key (API 2.8)
            return Resolved(key_principal(api_key, side().server, self.config))
        if claims is None or access_token is None:
            if refused is not None:  # a user the app does not sign in: guards say where to go
                return Resolved(UnadmittedUser(refused), cookies)
            if outcome is UNCONFIRMED_SESSION:  # the service did not answer: nobody, nothing ended
                return UNCONFIRMED_RESOLVED
            return Resolved(ANONYMOUS, cookies) if cookies else NOBODY
        if check_origin and from_cookies and self.origin.applies(request.method, request.websocket):
            refusal = self.cross_site(request)
            if refusal is not None:
                if request.websocket and self.origin.websocket == "anonymous":
                    return NOBODY  # let in without the user
                return Resolved(ANONYMOUS, cookies, refusal=refusal)
        user = AuthUser(claims, access_token, refresh_token, side().server)
        return tuple_new(Resolved, (user, cookies, from_cookies, None))

    # -- drivers: one for threads, one per event loop -------------------------------------

    @property
    def driver(self) -> SyncDriver:
        return self._sync_side().driver

    @property
    def server(self) -> ServerApp | None:
        """The server app on the sync driver; None without the secret server key."""
        return self._sync_side().server  # type: ignore[return-value]

    def team_server(self, name: Callable[[str], str], error: Callable[[str], Exception] = ConfigurationError) -> ServerApp:
        """The server app guards ask about teams and permissions; without the secret server key
        raises ``error`` naming the setting (``name(key)``: how the adapter's settings spell it)."""
        server = self.server
        if server is None:
            raise error(secret_key_needed(name))
        return server

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
        if not isinstance(user, AuthUser) or not self.config.secret_server_key:
            return user
        if isinstance(user, ApiKeyUser):
            return ApiKeyUser(user.key, self._async_side().server, user.restricted_reason)
        return AuthUser(user.claims, user.access_token, user.refresh_token, self._async_side().server)

    def _sync_side(self) -> _Side[SyncDriver]:
        side = self._sync
        if side is None:
            with self._lock:  # one driver, so that threads share one refresh from the start
                if self._sync is None:
                    self._sync = _Side(self.config, SyncDriver(self._http() if self._http else None), ServerApp)
                side = self._sync
        return side

    def _async_side(self) -> _Side[AsyncDriver] | _Side[_InThreads]:
        side = self._loops.get(asyncio.get_running_loop())
        if side is not None:
            return side
        if self._threads is None:
            self._threads = _Side(self.config, _InThreads(self.driver), AsyncServerApp)
        return self._threads

    def _loop_side(self) -> _Side[AsyncDriver]:
        loop = asyncio.get_running_loop()
        last = self._last  # (read once: another thread's loop may replace it meanwhile)
        if last is not None and last[0]() is loop:  # the loop of the previous call: no weakref made
            return last[1]
        side = self._loops.get(loop)
        if side is None:
            driver = AsyncDriver(self._async_http() if self._async_http else None)
            side = self._loops[loop] = _Side(self.config, driver, AsyncServerApp)
        # Forgotten when the loop is collected, as the WeakKeyDictionary forgets its entry.
        self._last = (weakref.ref(loop, self._forget_last), side)
        return side

    def _forget_last(self, ref: weakref.ref[asyncio.AbstractEventLoop]) -> None:
        last = self._last
        if last is not None and last[0] is ref:
            self._last = None

    def close(self) -> None:
        if self._sync is not None:
            self._sync.driver.close()

    async def aclose(self) -> None:
        """Close this event loop's connections (an ASGI app's lifespan shutdown)."""
        side = self._loops.pop(asyncio.get_running_loop(), None)
        self._last = None
        if side is not None:
            await side.driver.aclose()


def _credentials(header: HeaderReader) -> tuple[str | None, str | None, str | None]:
    """:meth:`SessionResolver.credentials` as a plain tuple (cookie, x-stack-auth, bearer)."""
    authorization, access_token = header("authorization"), header("x-stack-access-token")
    bearer = None if authorization is None and access_token is None else bearer_token(authorization, access_token)
    return header("cookie") or None, header("x-stack-auth"), bearer


class _Side(Generic[D]):
    """A driver and the server app on it (made on first use; None without the secret key)."""

    __slots__ = ("_make", "config", "driver", "server")

    server: ServerApp | AsyncServerApp | None

    def __init__(
        self,
        config: AuthConfig,
        driver: D,
        make: type[ServerApp] | type[AsyncServerApp],
    ) -> None:
        self.config = config
        self.driver = driver
        self._make = make
        if not config.secret_server_key:
            self.server = None  # nothing to make without the key

    def __getattr__(self, name: str) -> ServerApp | AsyncServerApp:
        # Called only while the ``server`` slot is empty: made here on first use, then a
        # plain slot read (no property call on every signed-in request).
        if name != "server":
            raise AttributeError(name)
        self.server = server = self._make(self.config, driver=self.driver)  # type: ignore[arg-type]
        return server


class _InThreads:
    """Runs operations on a sync driver in worker threads, for event loops that do not live
    long enough to own connections."""

    def __init__(self, driver: SyncDriver) -> None:
        self._driver = driver

    async def run(self, op: Op[T]) -> T:
        return await asyncio.to_thread(self._driver.run, op)

    async def aclose(self) -> None:
        pass  # the sync driver's connections belong to it
