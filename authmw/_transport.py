"""One transport for every tier: request building, retries and known-error parsing.

``Transport(config, tier).call(method, path, ...)`` is an operation: it yields ``Send``
and ``Sleep`` effects and returns the ``Response`` of a successful call, or raises the
error it stands for (see :mod:`authmw.errors`). Written once, run by either driver.

Behaviour (as the official SDK's transport):

- headers: project id, access type, client version, a random nonce, the override flag,
  the tier's key, and the session's tokens when a session is given;
- ``x-stack-actual-status`` replaces the status; known errors become their classes;
- network failure: idempotent methods are retried (5 attempts, jittered exponential
  backoff), others fail at once with :class:`ServiceUnreachable` and a health check;
- 429 waits ``Retry-After`` (seconds or HTTP date) and retries; 508 with the loop marker
  retries;
- an ``InvalidAccessToken`` with a session marks its access token expired, refreshes it
  and retries once (owner sessions: ``InvalidAdminAccessToken`` / ``ApiKeyNotFound``).
"""

from __future__ import annotations

import datetime as _dt
import email.utils
import functools
import json as _json
import math
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Protocol
from urllib.parse import quote, urlencode

from ._config import VERSION, AuthConfig
from ._ops import Op, Request, Response, Send, Sleep
from .errors import (
    ApiKeyNotFound,
    ConfigurationError,
    InvalidAccessToken,
    InvalidAdminAccessToken,
    InvalidServerResponse,
    KnownError,
    NetworkError,
    ServiceUnreachable,
    error_from_response,
    masked,
)

__all__ = [
    "CLIENT_VERSION",
    "IDEMPOTENT_METHODS",
    "MAX_ATTEMPTS",
    "MAX_WAIT_SECONDS",
    "SessionLike",
    "Tier",
    "Transport",
    "random_nonce",
    "segment",
]

Tier = Literal["client", "server", "admin"]

#: Value of x-stack-client-version.
CLIENT_VERSION = f"python @authmw/python@{VERSION}"
#: Methods retried after a network failure.
IDEMPOTENT_METHODS = frozenset({"GET", "PUT", "DELETE", "OPTIONS", "HEAD"})
#: Attempts per call, the first one included (429 and 508 retries count too).
MAX_ATTEMPTS = 5
#: First backoff wait; attempt i waits BACKOFF_BASE * 2**i * uniform(0.5, 1.5).
BACKOFF_BASE_SECONDS = 1.0
#: The longest any single wait may be (2**31 - 1 ms, the longest browser timer).
MAX_WAIT_SECONDS = 2147483647 / 1000
#: A 508 is retried only when its body contains this marker.
LOOP_MARKER = b"INFINITE_LOOP_DETECTED"

_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
_NONCE_BITS = 224
_NONCE_LENGTH = 45  # ceil(224 / 5)

# tier -> (header, AuthConfig field, environment variable)
_TIER_KEYS: dict[str, tuple[str, str, str]] = {
    "client": ("x-stack-publishable-client-key", "publishable_client_key", "AUTHMW_PUBLISHABLE_CLIENT_KEY"),
    "server": ("x-stack-secret-server-key", "secret_server_key", "AUTHMW_SECRET_SERVER_KEY"),
    "admin": ("x-stack-super-secret-admin-key", "super_secret_admin_key", "AUTHMW_SUPER_SECRET_ADMIN_KEY"),
}


def random_nonce() -> str:
    """224 random bits as 45 lower-case Crockford base32 characters."""
    n = secrets.randbits(_NONCE_BITS)
    chars = []
    for _ in range(_NONCE_LENGTH):
        n, digit = divmod(n, 32)
        chars.append(_CROCKFORD[digit])
    return "".join(reversed(chars))


class SessionLike(Protocol):
    """What the transport needs from a session (see :class:`authmw._session.Session`)."""

    @property
    def refresh_token(self) -> str | None: ...

    def get_access_token(self, min_validity_ms: int = ...) -> Op[str | None]: ...

    def mark_access_token_expired(self, access_token: str | None = None) -> None: ...


_MISSING: Any = object()


class Transport:
    """Calls the API of one project at one tier. Holds no connection: drivers send.

    ``diagnose=False`` skips the health check after a network failure and raises a plain
    :class:`NetworkError` (for hot paths such as the middleware's refresh). ``max_attempts=1``
    sends each call once (the ``authmw`` commands: a person waits, and a service that is down
    is said at once).
    """

    def __init__(
        self,
        config: AuthConfig,
        tier: Tier,
        *,
        uniform: Callable[[float, float], float] = random.uniform,
        clock: Callable[[], float] = time.time,
        require_key: bool = True,
        diagnose: bool = True,
        admin_session: SessionLike | None = None,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        if tier not in _TIER_KEYS:
            raise ConfigurationError(f"Access tier must be 'client', 'server' or 'admin', not {tier!r}.")
        header, setting, env = _TIER_KEYS[tier]
        key = getattr(config, setting)
        if require_key and not key:
            raise ConfigurationError(
                f"{'An' if tier == 'admin' else 'A'} {tier} app needs the {setting.replace('_', ' ')}: pass {setting}=... or set {env} "
                "(the local service writes it to <data-dir>/project.env)."
            )
        self.config = config
        self.tier = tier
        self._key_header = (header, key or "")
        self._uniform = uniform
        self._clock = clock
        self._diagnose = diagnose
        self.max_attempts = max_attempts
        #: A project owner's session (internal project), sent on every call in place of a key.
        self.admin_session = admin_session

    def __repr__(self) -> str:
        return f"{type(self).__name__}(project_id={self.config.project_id!r}, tier={self.tier!r})"

    @property
    def max_attempts(self) -> int:
        """Attempts per call (network failures of idempotent calls, 429, 508), the first included."""
        return self._max_attempts

    @max_attempts.setter
    def max_attempts(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"max_attempts must be a whole number of 1 or more, not {value!r}.")
        self._max_attempts = value

    # -- building ----------------------------------------------------------------------

    def url(self, path: str, query: Mapping[str, Any] | None = None) -> str:
        url = self.config.api_base + "/" + path.lstrip("/")
        if query:
            pairs = [(k, _query_value(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urlencode(pairs)
        return url

    def headers(
        self,
        *,
        access_token: str | None = None,
        refresh_token: str | None = None,
        admin_access_token: str | None = None,
    ) -> dict[str, str]:
        headers = {
            "x-stack-project-id": self.config.project_id,
            "x-stack-access-type": self.tier,
            "x-stack-client-version": CLIENT_VERSION,
            "x-stack-random-nonce": random_nonce(),
            "x-stack-override-error-status": "true",
        }
        name, key = self._key_header
        if key:
            headers[name] = key
        if access_token:
            headers["x-stack-access-token"] = access_token
        if refresh_token:
            headers["x-stack-refresh-token"] = refresh_token
        if admin_access_token:
            headers["x-stack-admin-access-token"] = admin_access_token
        if self.config.allow_anonymous or self.config.allow_restricted:
            # API 2.8 refuses an anonymous or restricted user's token without it (2.7 ignores
            # it); sent only by an app that signs such users in. It admits restricted users too.
            headers["x-stack-allow-anonymous-user"] = "true"
        return headers

    def build(
        self,
        method: str,
        path: str,
        *,
        json: Any = _MISSING,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        **tokens: str | None,
    ) -> Request:
        all_headers = self.headers(**tokens)
        content = None
        if json is not _MISSING:
            content = _json.dumps(json, separators=(",", ":")).encode()
            all_headers["content-type"] = "application/json"
        if headers:
            all_headers.update(headers)
        return Request(method.upper(), self.url(path, query), all_headers, content)

    # -- calling -----------------------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = _MISSING,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        session: SessionLike | None = None,
        admin_session: SessionLike | None = None,
        send_refresh_token: bool = False,
        retry_network: bool | None = None,
    ) -> Op[Response]:
        """Send one API call and return its successful response, retrying as described above.

        ``session`` supplies ``x-stack-access-token`` (fresh for at least 20 s) and, with
        ``send_refresh_token``, ``x-stack-refresh-token``. ``admin_session`` (default: the
        transport's own) supplies ``x-stack-admin-access-token`` for project owners.
        ``retry_network`` overrides whether a network failure is retried (default: for
        idempotent methods only).
        """
        method = method.upper()
        admin_session = admin_session or self.admin_session
        refreshed = False
        while True:
            tokens: dict[str, str | None] = {}
            if session is not None:
                tokens["access_token"] = yield from session.get_access_token()
                if send_refresh_token:
                    tokens["refresh_token"] = session.refresh_token
            if admin_session is not None:
                tokens["admin_access_token"] = yield from admin_session.get_access_token()

            build = functools.partial(self.build, method, path, json=json, query=query, headers=headers, **tokens)
            try:
                return (yield from self.send(build, retry_network=retry_network))
            except KnownError as error:
                stale = None if refreshed else _stale_session(error, session, admin_session, tokens)
                if stale is None:
                    raise
                used = tokens["admin_access_token" if stale is admin_session else "access_token"]
                stale.mark_access_token_expired(used)
                refreshed = True

    def send(self, build: Callable[[], Request], *, retry_network: bool | None = None) -> Op[Response]:
        """Send ``build()`` with retries and error parsing; no session handling.

        ``build`` is called once per attempt, so every attempt gets a fresh nonce. A network
        failure is retried when ``retry_network`` says so (default: idempotent methods).
        """
        attempt = 0
        while True:
            request = build()
            try:
                response = yield Send(request)
            except NetworkError as exc:
                retry = request.method in IDEMPOTENT_METHODS if retry_network is None else retry_network
                if retry and attempt + 1 < self.max_attempts:
                    yield Sleep(self.backoff(attempt))
                    attempt += 1
                    continue
                if not self._diagnose:
                    target = request.url.split("?", 1)[0]
                    raise NetworkError(f"{request.method} {target}: {self._scrub(str(exc))}") from exc
                raise (yield from self._unreachable(request, attempt + 1, exc)) from exc
            response = _effective(response)
            status = response.status_code
            if attempt + 1 < self.max_attempts:
                if status == 429:
                    yield Sleep(self.retry_after(response, attempt))
                    attempt += 1
                    continue
                if status == 508 and LOOP_MARKER in response.content:
                    yield Sleep(self.backoff(attempt))
                    attempt += 1
                    continue
            error = error_from_response(
                status, response.headers, response.content, method=request.method, url=request.url.split("?", 1)[0]
            )
            if error is None:
                return response
            raise error

    def call_json(self, method: str, path: str, **kwargs: Any) -> Op[Any]:
        """``call`` and return the JSON body."""
        response = yield from self.call(method, path, **kwargs)
        return parse_json(response, path)

    def post_form(self, path: str, fields: Mapping[str, str], *, retry_network: bool | None = None) -> Op[Any]:
        """POST a form to an OAuth endpoint (``/auth/oauth/token``) and return its JSON.

        OAuth endpoints take no ``x-stack-*`` headers; retries and known errors as for ``call``.
        """
        form = urlencode(fields).encode()
        url = self.config.api_base + "/" + path.lstrip("/")
        headers = {"content-type": "application/x-www-form-urlencoded", "accept": "application/json"}
        response = yield from self.send(lambda: Request("POST", url, headers, form), retry_network=retry_network)
        return parse_json(response, path)

    # -- waits -------------------------------------------------------------------------

    def backoff(self, attempt: int) -> float:
        """Wait after failed attempt ``attempt`` (0-based)."""
        return _cap(BACKOFF_BASE_SECONDS * 2**attempt * self._uniform(0.5, 1.5))

    def retry_after(self, response: Response, attempt: int) -> float:
        """Seconds a 429 asks to wait (``Retry-After`` seconds or HTTP date), else backoff."""
        value = response.headers.get("retry-after", "").strip()
        if value:
            try:
                seconds = float(value)
            except ValueError:
                pass
            else:
                if not math.isnan(seconds):
                    return _cap(max(0.0, seconds))
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=_dt.timezone.utc)
                return _cap(max(0.0, when.timestamp() - self._clock()))
        return self.backoff(attempt)

    # -- diagnostics -------------------------------------------------------------------

    def _unreachable(self, request: Request, attempts: int, cause: NetworkError) -> Op[ServiceUnreachable]:
        health_url = self.config.api_url + "/health"
        try:
            health = yield Send(Request("GET", health_url, {"accept": "application/json"}))
        except NetworkError as exc:
            result = f"unreachable too ({self._scrub(str(exc))})"
        else:
            result = f"HTTP {health.status_code} {health.text[:100]!r}"
        return ServiceUnreachable(
            method=request.method,
            url=request.url.split("?", 1)[0],
            attempts=attempts,
            cause=self._scrub(str(cause)),
            health=result,
            api_url=self.config.api_url,
        )

    def _scrub(self, text: str) -> str:
        for secret in _secrets(self.config):
            text = text.replace(secret, "[redacted]")
        return text


def segment(value: str) -> str:
    """``value`` as one path segment: percent-encoded, never ``.`` or ``..`` or empty."""
    if not isinstance(value, str) or value in ("", ".", ".."):
        raise ValueError(f"{value!r} cannot be used as an id in a URL path.")
    return quote(value, safe="")


def _secrets(config: AuthConfig) -> Iterable[str]:
    for value in (config.publishable_client_key, config.secret_server_key, config.super_secret_admin_key):
        if value:
            yield value


def _cap(seconds: float) -> float:
    return min(seconds, MAX_WAIT_SECONDS)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _effective(response: Response) -> Response:
    actual = response.headers.get("x-stack-actual-status")
    if actual is None:
        return response
    try:
        status = int(actual)
    except ValueError:
        return response
    return Response(status, response.headers, response.content)


def _stale_session(
    error: KnownError,
    session: SessionLike | None,
    admin_session: SessionLike | None,
    tokens: Mapping[str, str | None],
) -> SessionLike | None:
    if isinstance(error, InvalidAccessToken) and session is not None and tokens.get("access_token"):
        return session
    if (
        isinstance(error, (InvalidAdminAccessToken, ApiKeyNotFound))
        and admin_session is not None
        and tokens.get("admin_access_token")
    ):
        return admin_session
    return None


def parse_json(response: Response, what: str = "") -> Any:
    try:
        return response.json()
    except (ValueError, RecursionError):
        raise InvalidServerResponse(
            f"Expected JSON from {what or 'the service'}, got {response.headers.get('content-type', 'no content type')}: "
            f"{masked(repr(response.content[:200]))}"
        ) from None
