"""The local service's clock: real time unless a test stops or moves it.

    clock = Clock()
    service = LocalService(data_dir, clock=clock)
    clock.freeze()       # time stands still: a test computes the TOTP code for clock() and it stays valid
    clock.advance(301)   # five minutes and a second later: an MFA attempt code has expired
    clock.reset()        # real time again

Every request reads its service's clock through `now()` (set per request by `ClockMiddleware`),
so verification codes, refresh-token lifetimes and TOTP steps follow it. Signed access tokens
keep real time: their readers check them against their own clocks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

_current: ContextVar[Callable[[], float]] = ContextVar("authmw_dev_clock", default=time.time)


def now() -> float:
    """Seconds since the epoch on the clock of the request being served (real time outside one)."""
    return _current.get()()


class Clock:
    """Real time, or a frozen instant, plus an offset; safe to change while the service runs."""

    def __init__(self, source: Callable[[], float] = time.time) -> None:
        self._source = source
        self._frozen_at: float | None = None
        self._offset = 0.0

    def __call__(self) -> float:
        base = self._source() if self._frozen_at is None else self._frozen_at
        return base + self._offset

    def freeze(self, at: float | None = None) -> float:
        """Stop the clock at `at` (default: its current reading) and return that instant."""
        self._frozen_at = self() if at is None else at
        self._offset = 0.0
        return self._frozen_at

    def advance(self, seconds: float) -> None:
        self._offset += seconds

    def reset(self) -> None:
        self._frozen_at = None
        self._offset = 0.0


class ClockMiddleware:
    """Makes `now()` read `clock` while a request of this app is served."""

    def __init__(self, app: ASGIApp, clock: Callable[[], float]) -> None:
        self.app = app
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _current.set(self.clock)
        try:
            await self.app(scope, receive, send)
        finally:
            _current.reset(token)
