"""The refresh policy of a session's access token, read from ``authmw/refresh_policy.json``:
the one table the React package is generated from too (docs/architecture.md, "Refresh policy").

- When: an access token with less than :data:`REQUIRED_VALIDITY_MS` left is refreshed before
  use; callers may ask for more, up to :data:`MAX_MIN_VALIDITY_MS` (exclusive).
- Where: :func:`refresh_endpoint`.
- What is retried: 429 and 508 answers, as for every call; a network failure when the
  holder says so (:data:`RETRY_NETWORK_FAILURE`): a session held by an app (the Python
  ``Session``, the browser's store) retries it, since a refresh rotates nothing; a server
  refreshing inside a request does not (the request is answered at once, cookies kept).
- What signs a user out: only the errors of :data:`SIGNS_OUT` (the refresh token is refused).
  Anything else (network, 5xx, a malformed answer) raises and keeps every token and cookie.
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from typing import Any, Literal

from ._config import AuthConfig
from .errors import KnownError

__all__ = [
    "MAX_MIN_VALIDITY_MS",
    "REQUIRED_VALIDITY_MS",
    "RETRY_NETWORK_FAILURE",
    "SIGNS_OUT",
    "ShortLivedWarning",
    "refresh_endpoint",
    "signs_out",
]

_TABLE: dict[str, Any] = json.loads(resources.files("authmw").joinpath("refresh_policy.json").read_text("utf-8"))

#: An access token with less validity than this left is refreshed before use.
REQUIRED_VALIDITY_MS: int = _TABLE["required_validity_ms"]
#: Callers may require less than this.
MAX_MIN_VALIDITY_MS: int = _TABLE["max_min_validity_ms"]
#: Holder -> whether a refresh that could not reach the service is tried again (with the
#: transport's backoff): "session" (an app holding a user's session), "request" (a server
#: refreshing inside a request).
RETRY_NETWORK_FAILURE: dict[Literal["session", "request"], bool] = _TABLE["retry_network_failure"]
#: Codes (with their whole family) of the refusals that end the session.
SIGNS_OUT: tuple[str, ...] = tuple(_TABLE["signs_out"])


def refresh_endpoint(config: AuthConfig) -> tuple[Literal["server", "client"], str]:
    """(tier, path) of the refresh call: with the secret server key,
    ``POST /auth/sessions/current/refresh`` at the server tier; else the OAuth refresh grant
    ``POST /auth/oauth/token`` with the publishable client key."""
    tier: Literal["server", "client"] = "server" if config.secret_server_key else "client"
    return tier, _TABLE["endpoints"][tier]["path"]


def signs_out(error: BaseException) -> bool:
    """Whether ``error`` of a refresh ends the session (the service refused the refresh token)."""
    if not isinstance(error, KnownError):
        return False
    lineage = {cls.code for cls in type(error).__mro__ if issubclass(cls, KnownError)}
    return any(code in lineage for code in SIGNS_OUT)


class ShortLivedWarning:
    """One warning per holder when the service hands out an access token with less validity
    than wanted: a fresh token is still the best there is (a short development lifetime, or a
    skewed clock), so it is used, and tokens are then refreshed on every use."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger
        self._warned = False

    def check(self, remaining_ms: float, wanted_ms: float = REQUIRED_VALIDITY_MS) -> None:
        if self._warned or remaining_ms >= wanted_ms:
            return
        self._warned = True
        self._logger.warning(
            _TABLE["short_lived_warning"].format(remaining_s=f"{remaining_ms / 1000:.1f}", wanted_s=f"{wanted_ms / 1000:.1f}")
        )
