"""Telling the app's operator that the auth service cannot be reached, without flooding the log.

One warning when the service stops answering, naming the URL that was tried; nothing more
while it stays down (later failures go to the debug level); one warning when it answers
again. When the middleware starts, one background request to the service's ``/health`` says
at once (in the log) when the configured service does not answer; it never delays start-up.
"""

from __future__ import annotations

import logging
import threading

import httpx

from authmw._config import AuthConfig
from authmw._ops import Op, Request, Send, SyncDriver
from authmw.errors import NetworkError

logger = logging.getLogger("authmw.middleware")

#: Seconds the start-up check waits for the service's answer.
STARTUP_CHECK_TIMEOUT = 10.0


class ServiceWatch:
    """Whether the service is known to be down, and the log lines when that changes."""

    def __init__(self, config: AuthConfig) -> None:
        self.api_url = config.api_url
        self.health_url = config.api_url.rstrip("/") + "/health"
        self._down = False
        self._lock = threading.Lock()
        #: Set once the start-up check has an answer (or gave up); tests wait on it.
        self.checked = threading.Event()

    @property
    def down(self) -> bool:
        return self._down

    def failed(self, url: str, reason: str, consequence: str) -> None:
        """A request to ``url`` got no usable answer (network error or 5xx)."""
        with self._lock:
            first, self._down = not self._down, True
        if first:
            logger.warning(
                "authmw: the auth service does not answer: %s failed (%s); %s. "
                "Logged once until the service at %s answers again.",
                url,
                reason,
                consequence,
                self.api_url,
            )
        else:
            logger.debug("authmw: %s failed again (%s); %s", url, reason, consequence)

    def answered(self) -> None:
        """A request to the service got an answer: the end of an outage, if there was one."""
        if not self._down:
            return
        with self._lock:
            was, self._down = self._down, False
        if was:
            logger.warning("authmw: the auth service at %s answers again.", self.api_url)

    def check_in_background(self) -> threading.Thread:
        """One ``GET /health`` in a daemon thread; logs if the service does not answer."""
        thread = threading.Thread(target=self._check, name="authmw-startup-check", daemon=True)
        thread.start()
        return thread

    def _check(self) -> None:
        try:
            with httpx.Client(timeout=STARTUP_CHECK_TIMEOUT) as http:
                status = SyncDriver(http).run(self._health())
            if status == 200:
                self.answered()
            else:
                self.failed(self.health_url, f"HTTP {status}", self._advice())
        except NetworkError as error:
            self.failed(self.health_url, str(error), self._advice())
        except Exception as error:  # noqa: BLE001 (a start-up check must never break the app)
            logger.debug("authmw: the start-up check of %s failed: %r", self.health_url, error)
        finally:
            self.checked.set()

    def _health(self) -> Op[int]:
        response = yield Send(Request("GET", self.health_url, {"accept": "application/json"}))
        return response.status_code  # type: ignore[no-any-return]

    def _advice(self) -> str:
        return (
            "sessions cannot be checked or refreshed until it does. Check AUTHMW_API_URL "
            f"(now {self.api_url}) and that the service runs (locally: `authmw dev`)"
        )


#: Statuses that say "not now" rather than "no": the service is there but will not answer yet.
NOT_NOW = frozenset({408, 429})


def is_transient(exc: Exception, status: int) -> bool:
    """A failure that says nothing about the session or the question asked: the service
    unreachable, a 5xx, or "not now" (a 429 still coming after the transport's retries, a 408)."""
    return isinstance(exc, NetworkError) or status >= 500 or status in NOT_NOW


def failure_reason(exc: Exception, status: int) -> str:
    """What went wrong, without the details some messages carry (tokens in request data)."""
    return f"{type(exc).__name__} {status}" if status else type(exc).__name__
