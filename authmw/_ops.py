"""Operations written once, run by a sync or an async driver.

An operation is a generator that yields effects and returns its result::

    def get_thing(...) -> Op[Thing]:
        response = yield Send(request)
        yield Sleep(1.5)
        return Thing(...)

Drivers perform the effects: :class:`SyncDriver` with blocking I/O, :class:`AsyncDriver` on
an event loop; each has the one loop that runs an operation (``run``). Everything else
(retries, error parsing, refresh-and-retry) lives in the operations, so no call is ever
written twice.

Effects::

    Send(request)            -> Response          (raises NetworkError into the op)
    Sleep(seconds)           -> None
    Shared(key, make_op)     -> result of make_op() run once for all concurrent callers
    AtOnce(op)               -> result of op, run failing where it would wait to retry
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json as _json
import threading
import time
from collections.abc import Callable, Generator, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from .errors import NetworkError

T = TypeVar("T")

__all__ = [
    "AsyncDriver",
    "AtOnce",
    "at_once",
    "Effect",
    "NetworkError",
    "Op",
    "Request",
    "Response",
    "Send",
    "Shared",
    "Sleep",
    "SyncDriver",
]


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    content: bytes | None = None


@dataclass(frozen=True)
class Response:
    status_code: int
    headers: Mapping[str, str]  # keys lower-cased
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return _json.loads(self.content)


class Effect:
    __slots__ = ()


@dataclass(frozen=True)
class Send(Effect):
    request: Request


@dataclass(frozen=True)
class Sleep(Effect):
    seconds: float


@dataclass(frozen=True)
class Shared(Effect):
    """Run ``make_op()`` once for every concurrent caller that yields the same key.

    Re-entrant: an operation that yields a key it is itself leading (say a wrapper and
    the wrapped call sharing one key) runs ``make_op()`` directly instead of waiting on
    itself.
    """

    key: Hashable
    make_op: Callable[[], Op[Any]]


@dataclass(frozen=True)
class AtOnce(Effect):
    """Run ``op`` failing where it would wait to retry (a ``Sleep``): the error that made it
    retry is raised instead (a guard answers 503 at once rather than hold the request
    through the transport's backoff)."""

    op: Op[Any]


Op = Generator[Effect, Any, T]


def at_once(op: Op[T]) -> Op[T]:
    """``op`` run :class:`AtOnce`, as an operation (for a :class:`Shared` flight's maker)."""
    result: T = yield AtOnce(op)
    return result


def _no_waiting(op: Op[Any], error: BaseException | None) -> BaseException:
    """What an operation run :class:`AtOnce` raises where it would sleep before a retry."""
    op.close()
    return error if error is not None else NetworkError("the service asked to retry later")


def _to_response(r: httpx.Response) -> Response:
    return Response(r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.content)


class _Flight:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class SyncDriver:
    """Runs operations with blocking I/O. Thread-safe: shared effects coalesce across threads."""

    def __init__(
        self,
        http: httpx.Client | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30.0,
    ) -> None:
        self.http = http or httpx.Client(timeout=timeout)
        self._sleep = sleep
        self._flights: dict[Hashable, _Flight] = {}
        self._lock = threading.Lock()
        self._leading = threading.local()  # keys this thread is leading

    def run(self, op: Op[T], *, wait: bool = True) -> T:
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = op.throw(error) if error is not None else op.send(value)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            if not wait and isinstance(effect, Sleep):
                raise _no_waiting(op, error)
            value, error = None, None
            try:
                value = self._perform(effect)
            except BaseException as exc:  # handed to the operation, which decides
                error = exc

    def _perform(self, effect: Effect) -> Any:
        if isinstance(effect, Send):
            req = effect.request
            try:
                r = self.http.request(req.method, req.url, headers=dict(req.headers), content=req.content)
            except httpx.TransportError as exc:
                raise NetworkError(f"{type(exc).__name__}: {exc}") from exc
            return _to_response(r)
        if isinstance(effect, Sleep):
            self._sleep(effect.seconds)
            return None
        if isinstance(effect, Shared):
            return self._shared(effect)
        if isinstance(effect, AtOnce):
            return self.run(effect.op, wait=False)
        raise TypeError(f"unknown effect {effect!r}")

    def _shared(self, effect: Shared) -> Any:
        leading: set[Hashable] = self._leading.__dict__.setdefault("keys", set())
        if effect.key in leading:
            return self.run(effect.make_op())
        with self._lock:
            flight = self._flights.get(effect.key)
            leader = flight is None
            if leader:
                flight = self._flights[effect.key] = _Flight()
        assert flight is not None
        if not leader:
            flight.done.wait()
        else:
            leading.add(effect.key)
            try:
                flight.result = self.run(effect.make_op())
            except BaseException as exc:
                flight.error = exc
            finally:
                leading.discard(effect.key)
                with self._lock:
                    del self._flights[effect.key]
                flight.done.set()
        if flight.error is not None:
            raise flight.error
        return flight.result

    def close(self) -> None:
        self.http.close()


#: (driver id, key) of the shared effects the current task is leading.
_LEADING: contextvars.ContextVar[frozenset[tuple[int, Hashable]]] = contextvars.ContextVar(
    "authmw_leading", default=frozenset()
)


class AsyncDriver:
    """Runs operations on an asyncio event loop. Shared effects coalesce across tasks."""

    def __init__(
        self,
        http: httpx.AsyncClient | None = None,
        *,
        sleep: Callable[[float], Any] = asyncio.sleep,
        timeout: float = 30.0,
    ) -> None:
        self.http = http or httpx.AsyncClient(timeout=timeout)
        self._sleep = sleep
        self._flights: dict[Hashable, asyncio.Future[Any]] = {}

    async def run(self, op: Op[T], *, wait: bool = True) -> T:
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = op.throw(error) if error is not None else op.send(value)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            if not wait and isinstance(effect, Sleep):
                raise _no_waiting(op, error)
            value, error = None, None
            try:
                value = await self._perform(effect)
            except BaseException as exc:
                error = exc

    async def _perform(self, effect: Effect) -> Any:
        if isinstance(effect, Send):
            req = effect.request
            try:
                r = await self.http.request(req.method, req.url, headers=dict(req.headers), content=req.content)
            except httpx.TransportError as exc:
                raise NetworkError(f"{type(exc).__name__}: {exc}") from exc
            return _to_response(r)
        if isinstance(effect, Sleep):
            await self._sleep(effect.seconds)
            return None
        if isinstance(effect, Shared):
            return await self._shared(effect)
        if isinstance(effect, AtOnce):
            return await self.run(effect.op, wait=False)
        raise TypeError(f"unknown effect {effect!r}")

    async def _shared(self, effect: Shared) -> Any:
        mine = (id(self), effect.key)
        leading = _LEADING.get()
        if mine in leading:
            return await self.run(effect.make_op())
        flight = self._flights.get(effect.key)
        if flight is None:
            # The shared work runs in a task of its own: a caller that is cancelled (say a
            # client went away) stops waiting without cancelling it for everyone else.
            token = _LEADING.set(leading | {mine})
            try:
                flight = asyncio.ensure_future(self.run(effect.make_op()))
            finally:
                _LEADING.reset(token)
            self._flights[effect.key] = flight
            flight.add_done_callback(functools.partial(self._landed, effect.key))
        return await asyncio.shield(flight)

    def _landed(self, key: Hashable, flight: asyncio.Future[Any]) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]
        if not flight.cancelled():
            flight.exception()  # retrieved: every waiter may have gone

    async def aclose(self) -> None:
        await self.http.aclose()
