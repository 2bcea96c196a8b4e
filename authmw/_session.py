"""A user's session: the access and refresh tokens and their rules.

- Signed out (no tokens) or signed in. A session with neither token is known to be
  invalid from the start; so is one whose refresh yields nothing, or that signed out. An
  invalid session holds no tokens.
- The access token is refreshed under the refresh policy (:mod:`authmw._refresh_policy`):
  on demand when less than the required validity remains, a network failure retried, only
  a refused refresh token (``REFRESH_TOKEN_ERROR``) clearing the tokens; any other failure
  raises and keeps them. Concurrent refreshes of the same refresh token share one call.
- An access token is only used together with a refresh token, as the official SDK does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from ._config import AuthConfig
from ._ops import Op, Shared, at_once
from ._refresh_policy import (
    MAX_MIN_VALIDITY_MS,
    REQUIRED_VALIDITY_MS,
    RETRY_NETWORK_FAILURE,
    ShortLivedWarning,
    refresh_endpoint,
    signs_out,
)
from ._tokens import has_validity, token_expiry
from ._transport import Transport
from .errors import ConfigurationError, InvalidServerResponse, KnownError, RefreshTokenError, UnparsableAccessToken

logger = logging.getLogger("authmw.session")

__all__ = [
    "MAX_MIN_VALIDITY_MS",
    "REQUIRED_VALIDITY_MS",
    "Session",
    "refresh_access_token",
]

def refresh_access_token(
    config: AuthConfig, refresh_token: str, *, holder: Literal["session", "request"] = "request"
) -> Op[str | None]:
    """One refresh call: the new access token, or None when the refresh token is refused.

    The endpoint is :func:`authmw._refresh_policy.refresh_endpoint`'s. Concurrent callers with
    the same refresh token share one call. A network failure is retried when the policy says
    so for ``holder`` ("session": an app holding a user's session; "request": a server
    refreshing inside a request), then raised as ``NetworkError`` without a health check;
    other transient failures raise (``HttpStatusError``); 429 and 508 answers are retried as
    for any call, except inside a request ("request"), which is answered at once rather than
    held through the service's Retry-After: there a 429 or 508 raises ``NetworkError``.
    """
    _check_token(refresh_token, "refresh")
    key = ("refresh", config.project_id, refresh_token)
    retry_network = RETRY_NETWORK_FAILURE[holder]
    if holder == "request":
        return (yield Shared(key, lambda: at_once(_refresh(config, refresh_token, retry_network))))  # type: ignore[no-any-return]
    return (yield Shared(key, lambda: _refresh(config, refresh_token, retry_network)))  # type: ignore[no-any-return]


def _refresh(config: AuthConfig, refresh_token: str, retry_network: bool) -> Op[str | None]:
    tier, path = refresh_endpoint(config)
    if tier == "client" and not config.publishable_client_key:
        raise ConfigurationError(
            "Refreshing an access token needs the secret server key (AUTHMW_SECRET_SERVER_KEY) "
            "or the publishable client key (AUTHMW_PUBLISHABLE_CLIENT_KEY)."
        )
    transport = Transport(config, tier, diagnose=False)
    body: Any
    try:
        if tier == "server":
            headers = {"x-stack-refresh-token": refresh_token}
            body = yield from transport.call_json("POST", path, headers=headers, retry_network=retry_network)
        else:
            fields = {
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": config.project_id,
                "client_secret": config.publishable_client_key or "",
            }
            body = yield from transport.post_form(path, fields, retry_network=retry_network)
    except KnownError as error:
        if signs_out(error):
            return None
        raise
    token = body.get("access_token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token:
        raise InvalidServerResponse("The refresh answer has no access_token.")
    return token


def _check_token(token: str | None, kind: str) -> None:
    if token == "undefined":
        raise ValueError(
            f"'undefined' is not a valid {kind} token (a JavaScript undefined was turned into text). "
            "Pass None when there is no token."
        )
    if token is not None and not isinstance(token, str):
        raise TypeError(f"The {kind} token must be a string or None, not {type(token).__name__}.")


Listener = Callable[["Session"], None]


class Session:
    """Tokens of one signed-in (or signed-out) user. Operations run under any driver."""

    def __init__(
        self,
        config: AuthConfig,
        *,
        access_token: str | None = None,
        refresh_token: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        _check_token(access_token, "access")
        _check_token(refresh_token, "refresh")
        self.config = config
        self._clock = clock
        self._access_token = access_token or None
        self._refresh_token = refresh_token or None
        self._known_invalid = self._access_token is None and self._refresh_token is None
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._short_lived = ShortLivedWarning(logger)

    def __repr__(self) -> str:
        state = "invalid" if self._known_invalid else ("signed in" if self._refresh_token else "no refresh token")
        return f"<{type(self).__name__} {state}>"

    # -- state ---------------------------------------------------------------------------

    @property
    def access_token(self) -> str | None:
        """The current access token as held (maybe expired); None without a refresh token."""
        return self._access_token if self._refresh_token else None

    @property
    def refresh_token(self) -> str | None:
        return self._refresh_token

    @property
    def is_known_invalid(self) -> bool:
        return self._known_invalid

    @property
    def is_signed_in(self) -> bool:
        return self._refresh_token is not None and not self._known_invalid

    def set_tokens(self, access_token: str | None, refresh_token: str | None) -> None:
        """Replace both tokens (after a sign-in)."""
        _check_token(access_token, "access")
        _check_token(refresh_token, "refresh")
        with self._lock:
            self._access_token = access_token or None
            self._refresh_token = refresh_token or None
            self._known_invalid = self._access_token is None and self._refresh_token is None
        self._changed()

    def invalidate(self) -> None:
        """Mark the session known to be invalid; clears both tokens."""
        with self._lock:
            changed = not self._known_invalid or self._access_token or self._refresh_token
            self._access_token = self._refresh_token = None
            self._known_invalid = True
        if changed:
            self._changed()

    def mark_access_token_expired(self, access_token: str | None = None) -> None:
        """Forget the access token (the service refused it) so the next use refreshes.

        With ``access_token`` given, only that token is dropped: a newer one obtained
        meanwhile by another caller is kept.
        """
        with self._lock:
            if self._access_token is None or (access_token is not None and access_token != self._access_token):
                return
            self._access_token = None
        self._changed()

    def on_change(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback(session)`` whenever the tokens change. Returns an unsubscribe."""
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)

    # -- operations -----------------------------------------------------------------------

    def remaining_ms(self, access_token: str) -> float:
        """Milliseconds of validity left (inf without exp, -inf when unparsable)."""
        try:
            exp = token_expiry(access_token)
        except UnparsableAccessToken:
            return float("-inf")
        return float("inf") if exp is None else (exp - self._clock()) * 1000

    def _usable(self, access_token: str, min_validity_ms: float) -> bool:
        try:
            exp = token_expiry(access_token)
        except UnparsableAccessToken:
            return False  # refreshed, as an expired token would be
        return has_validity(exp, self._clock(), min_validity_ms)

    def get_access_token(self, min_validity_ms: int = REQUIRED_VALIDITY_MS) -> Op[str | None]:
        """An access token valid for at least ``min_validity_ms``, refreshing if needed.

        None when signed out or when the refresh token was refused (the session is then
        invalid). Transient refresh failures raise and keep the tokens.
        """
        if min_validity_ms >= MAX_MIN_VALIDITY_MS:
            raise ValueError(f"min_validity_ms must be below {MAX_MIN_VALIDITY_MS} ms, got {min_validity_ms}.")
        refresh_token = self._refresh_token
        if refresh_token is None or self._known_invalid:
            return None
        access = self._access_token
        if access is not None and self._usable(access, min_validity_ms):
            return access
        new = yield from refresh_access_token(self.config, refresh_token, holder="session")
        if self._refresh_token != refresh_token:
            # Signed out or in again while refreshing: the result belongs to the old session.
            return (yield from self.get_access_token(min_validity_ms))
        if new is None:
            self.invalidate()
            return None
        if self._access_token != new:
            with self._lock:
                self._access_token = new
            self._changed()
        self._short_lived.check(self.remaining_ms(new), min_validity_ms)  # (the official SDK asserts here)
        return new

    def sign_out(self, transport: Transport) -> Op[None]:
        """End the session on the service, then invalidate it here.

        ``DELETE /auth/sessions/current`` with both tokens: API 2.8 ends the session named
        by the access token (refreshed first when stale), 2.7 the one of
        ``x-stack-refresh-token``. The allow-anonymous header goes with it whatever the app
        signs in: ending an anonymous user's session is always allowed. A refresh that is
        refused and the whole REFRESH_TOKEN_ERROR family mean "already gone". The session is
        invalidated even when the call fails; the failure is then raised.
        """
        try:
            if self._refresh_token is not None and not self._known_invalid:
                if (yield from self.get_access_token()) is None:
                    return  # the service refused the refresh token: nothing left to end
                try:
                    yield from transport.call(
                        "DELETE",
                        "/auth/sessions/current",
                        json={},
                        headers={"x-stack-allow-anonymous-user": "true"},
                        session=self,
                        send_refresh_token=True,
                    )
                except RefreshTokenError:
                    pass
        finally:
            self.invalidate()
