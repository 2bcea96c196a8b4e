"""Every error authmw raises.

::

    AuthmwError
     ├── ConfigurationError (ValueError)    a setting is missing or malformed; names the fix
     ├── KnownError                         an error of the catalogue (authmw/catalogue.json)
     │    ├── ... one class per code, parents as bases: catching a parent catches its
     │    │   children (``except InvalidAccessToken`` catches ``AccessTokenExpired``)
     │    └── UnsupportedError              a code this version does not know (original_code)
     ├── InvalidJwt (ValueError)            a JWT failed verification (generic; reason)
     ├── InvalidServerResponse              the answer breaks the wire contract
     ├── HttpStatusError                    any other non-2xx answer (status, reason, body)
     │    └── NotInServiceVersion           a call the service's API version does not have
     └── NetworkError (ConnectionError)     no HTTP answer at all
          └── ServiceUnreachable            ... after every attempt, with diagnostics

Known errors carry ``code``, ``status``, ``message`` and ``details``; detail fields are also
typed properties (``MultiFactorAuthenticationRequired.attempt_code``).
"""

from __future__ import annotations

import http
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

_OWN: list[str] = [
    "AuthmwError",
    "ConfigurationError",
    "FeatureNotSupported",
    "HttpStatusError",
    "InvalidJwt",
    "InvalidServerResponse",
    "KnownError",
    "NetworkError",
    "NotInServiceVersion",
    "OAuthCallbackError",
    "ServiceUnreachable",
    "SettingsFileNotFound",
    "error_from_response",
]

_BODY_PREVIEW = 1000

#: What looks like a credential in a body a message quotes: a JWT (``eyJ...``, an access
#: token), or a long run of a token's alphabet (a refresh token, an API key) that is not a
#: UUID. A broken service or proxy may echo them; the message goes to logs.
_TOKENISH = re.compile(
    r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_.-]*"
    r"|(?<![A-Za-z0-9_-])(?![0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_-]))"
    r"[A-Za-z0-9_-]{24,}"
)


def masked(text: str) -> str:
    """``text`` with every token-like run replaced by ``[redacted]``: for quoting what a
    service answered in an error message, which ends up in logs."""
    return _TOKENISH.sub("[redacted]", text)


class AuthmwError(Exception):
    """Base of every error raised by authmw."""


class ConfigurationError(AuthmwError, ValueError):
    """authmw was configured with a missing or malformed setting; the message names the fix."""


class SettingsFileNotFound(ConfigurationError, FileNotFoundError):
    """``AuthConfig.from_env_file(path)``: no file at ``path``; the message names the path and
    the fix. Also a ``FileNotFoundError``, which is what the call raised before."""


class InvalidJwt(AuthmwError, ValueError):
    """A JWT failed verification. ``reason`` is one of :data:`InvalidJwt.REASONS`.

    Raised by the generic :func:`authmw.verify_jwt`; access tokens of the service raise the
    catalogue's :class:`InvalidAccessToken` subclasses instead.
    """

    REASONS = ("malformed", "algorithm", "key", "signature", "claims", "expired", "not_yet_valid", "issuer", "audience")

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (type(self), (self.reason, str(self)))


class OAuthCallbackError(AuthmwError, ValueError):
    """An OAuth callback that cannot finish a sign-in. ``reason`` is one of :data:`REASONS`.

    ``missing_parameters`` (no ``code`` or ``state``: not a callback), ``no_stored_state``
    (no verifier kept for that state: not this browser's sign-in), ``state_mismatch``,
    ``issuer_mismatch``, ``provider_error`` (the provider's ``error`` parameter, in
    :attr:`error`, e.g. ``access_denied``) and ``implicit_response`` (tokens in the URL).
    """

    REASONS = (
        "missing_parameters",
        "no_stored_state",
        "state_mismatch",
        "issuer_mismatch",
        "provider_error",
        "implicit_response",
    )

    def __init__(self, reason: str, message: str, *, error: str | None = None) -> None:
        self.reason = reason
        self.error = error
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (_oauth_callback_error, (self.reason, str(self), self.error))


def _oauth_callback_error(reason: str, message: str, error: str | None) -> OAuthCallbackError:
    return OAuthCallbackError(reason, message, error=error)


class FeatureNotSupported(AuthmwError):
    """The service says a feature is not supported (``POST /check-feature-support``, which
    always ends in this error). ``feature`` is the name asked about; the message is the
    service's answer."""

    def __init__(self, feature: str, message: str) -> None:
        self.feature = feature
        super().__init__(message)


class InvalidServerResponse(AuthmwError):
    """The service answered something the wire contract does not allow."""


class NetworkError(AuthmwError, ConnectionError):
    """The request never got an HTTP response (connection refused, reset, timeout)."""


class ServiceUnreachable(NetworkError):
    """Every attempt to reach the service failed. Carries what was tried and a health check."""

    def __init__(
        self,
        *,
        method: str,
        url: str,
        attempts: int,
        cause: str,
        health: str,
        api_url: str,
    ) -> None:
        self.method = method
        self.url = url
        self.attempts = attempts
        self.cause = cause
        self.health = health
        self.api_url = api_url
        plural = "attempt" if attempts == 1 else "attempts"
        super().__init__(
            f"Could not reach the authentication service: {method} {url} failed after "
            f"{attempts} {plural} ({cause}). Health check GET {api_url}/health: {health}. "
            f"Check that the service is running at {api_url} (locally: `authmw dev`), that "
            "AUTHMW_API_URL points to it, and that this machine is online."
        )

    def __reduce__(self) -> Any:
        fields = ("method", "url", "attempts", "cause", "health", "api_url")
        return (_rebuild_unreachable, ({name: getattr(self, name) for name in fields},))


def _rebuild_unreachable(fields: dict[str, Any]) -> ServiceUnreachable:
    return ServiceUnreachable(**fields)


class HttpStatusError(AuthmwError):
    """A non-2xx answer that is not a known error."""

    def __init__(self, status: int, body: str | bytes = "", *, method: str = "", url: str = "") -> None:
        self.status = status
        self.body = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        self.method = method
        self.url = url
        try:
            self.reason = http.HTTPStatus(status).phrase
        except ValueError:
            self.reason = "Unknown Status"
        target = f" from {method} {url}".rstrip() if url else ""
        preview = masked(self.body if len(self.body) <= _BODY_PREVIEW else self.body[:_BODY_PREVIEW] + "...")
        super().__init__(f"HTTP {status} {self.reason}{target}" + (f": {preview}" if preview else ""))

    def __reduce__(self) -> Any:
        return (_rebuild_status_error, (self.status, self.body, self.method, self.url))


class NotInServiceVersion(HttpStatusError):
    """The service refused a call its API version no longer (or not yet) has, e.g. the 2.7
    ``/email-templates`` on a 2.8 service (404), or a user's received team invitations on a 2.7
    service (its 400 schema error; ``status`` is what the service answered). The message names
    the version and what to do."""

    def __init__(self, message: str, *, method: str = "", url: str = "", status: int = 404) -> None:
        super().__init__(status, method=method, url=url)
        self.args = (message,)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Any:
        return (_rebuild_not_in_version, (self.message, self.method, self.url, self.status))


def _rebuild_not_in_version(message: str, method: str, url: str, status: int = 404) -> NotInServiceVersion:
    return NotInServiceVersion(message, method=method, url=url, status=status)


def _rebuild_status_error(status: int, body: str, method: str, url: str) -> HttpStatusError:
    return HttpStatusError(status, body, method=method, url=url)


#: Details that are credentials (the MFA attempt code finishes a sign-in with a TOTP code):
#: in the wire body, never in a repr.
_SECRET_DETAILS = frozenset({"attempt_code"})
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _fill(template: str, details: Mapping[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        v = details.get(match.group(1))
        if v is None:
            return ""
        return v if isinstance(v, str) else json.dumps(v)

    return _PLACEHOLDER.sub(value, template)


class KnownError(AuthmwError):
    """An error of the catalogue. Subclasses set the class attributes; see the module docstring."""

    code: ClassVar[str] = ""
    #: The catalogue's status; an error read from a response carries the service's own
    #: (:meth:`from_body` with ``status``), which is what an unknown code keeps.
    status: int = 500
    message_template: ClassVar[str] = ""
    #: Parent codes are never sent on the wire; they exist to be caught.
    abstract: ClassVar[bool] = False
    detail_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, message: str | None = None, details: Mapping[str, Any] | None = None) -> None:
        self.details: dict[str, Any] = dict(details or {})
        self.message: str = message if message is not None else _fill(self.message_template, self.details)
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.code else self.message

    def __repr__(self) -> str:
        shown = {k: "..." if k in _SECRET_DETAILS else v for k, v in self.details.items()}
        return f"{type(self).__name__}({self.message!r}, details={shown!r})"

    def __reduce__(self) -> Any:
        if self.status != type(self).status:
            return (_rebuild_known_error, (type(self), self.message, self.details, self.status))
        return (type(self), (self.message, self.details))

    @classmethod
    def from_body(cls, body: Any, status: int | None = None) -> KnownError:
        """The error for a wire body ``{"code", "error", "details"?}``, with the HTTP
        ``status`` the service answered (the catalogue's when None).

        Unknown codes give :class:`UnsupportedError`, which keeps the code and the status
        (a 400 of a newer service stays a 400); a body without a string ``code`` raises
        :class:`InvalidServerResponse`.
        """
        if not isinstance(body, Mapping) or not isinstance(body.get("code"), str):
            raise InvalidServerResponse(
                f"A known-error body must be a JSON object with a string 'code', got {_preview(body)}"
            )
        code: str = body["code"]
        details = body.get("details")
        details = dict(details) if isinstance(details, Mapping) else {}
        message = body.get("error")
        message = message if isinstance(message, str) else None
        klass = BY_CODE.get(code)
        if klass is None or klass is UnsupportedError:
            # Keep what the service said; the template names the code.
            error: KnownError = UnsupportedError(None, {**details, "originalErrorCode": code})
            if message:
                error.message = f"{error.message} ({message})"
                error.args = (error.message,)
        else:
            error = klass(message, details)
        if status is not None:
            error.status = status
        return error


def _rebuild_known_error(cls: type[KnownError], message: str, details: dict[str, Any], status: int) -> KnownError:
    error = cls(message, details)
    error.status = status
    return error


def _preview(value: Any) -> str:
    text = repr(value)
    return masked(text if len(text) <= 200 else text[:200] + "...")


def error_from_response(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    *,
    method: str = "",
    url: str = "",
) -> AuthmwError | None:
    """The error a response stands for, or None when it is a success.

    ``status`` must already be the effective status (``x-stack-actual-status`` applied) and
    ``headers`` keys lower-cased. Rules: a ``x-stack-known-error`` header requires a JSON
    body whose ``code`` equals it (else :class:`InvalidServerResponse`); other non-2xx
    answers become :class:`HttpStatusError`.
    """
    header_code = headers.get("x-stack-known-error")
    if header_code is not None:
        where = f" ({method} {url})" if url else ""
        try:
            body = json.loads(content)
        except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            return InvalidServerResponse(
                f"The service sent x-stack-known-error: {header_code} with a body that is not JSON{where}: "
                f"{_preview(content[:300])}"
            )
        if not isinstance(body, dict) or body.get("code") != header_code:
            got = body.get("code") if isinstance(body, dict) else None
            return InvalidServerResponse(
                f"The x-stack-known-error header ({header_code!r}) does not match the body's code ({got!r}){where}."
            )
        return KnownError.from_body(body, status)
    if 200 <= status < 300:
        return None
    return HttpStatusError(status, content, method=method, url=url)


# The generated classes subclass KnownError, so they are imported once it exists.
from ._errors_gen import *
from ._errors_gen import BY_CODE, UnsupportedError, __all__ as _generated

__all__ = sorted([*_OWN, *_generated])  # noqa: PLE0605
