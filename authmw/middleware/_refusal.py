"""The answer a request gets instead of the app: :class:`Refusal` (a status, the service's error
envelope, maybe a redirect or a bearer challenge), raised by the middleware and by guards."""

from __future__ import annotations

import json
from typing import Any

from authmw.errors import KnownError

__all__ = ["Refusal"]


#: Codes of an API key the service refuses (unknown, revoked, expired, wrong type) and of keys the app does not take.
_API_KEY_CODES = ("API_KEY_NOT_FOUND", "API_KEY_REVOKED", "API_KEY_EXPIRED", "WRONG_API_KEY_TYPE", "API_KEY_NOT_ACCEPTED")

#: The ``WWW-Authenticate`` value of a refused bearer token, by error code (RFC 6750 3.1):
#: fixed ASCII text only, so nothing the caller sent is ever repeated into a header.
_BEARER_CHALLENGES = {
    code: f'Bearer realm="authmw", error="invalid_token", error_description="{text}"'
    for code, text in (
        ("ACCESS_TOKEN_EXPIRED", "The access token expired."),
        ("", "The access token is not valid."),
        *((code, "The API key is not valid.") for code in _API_KEY_CODES),
    )
}


class Refusal(Exception):
    """Answer the request at once with a JSON error, instead of running (the rest of) the app.

    Raised by the middleware (bad ``x-stack-auth`` header: 400; service unavailable, if so
    configured: 503) and by guards anywhere inside the app. ``Refusal(status, message)``
    answers ``{"error": message}``; ``Refusal.of(known_error)`` answers the service's
    envelope ``{"code", "error", "details"?}`` with the ``x-stack-known-error`` header;
    ``Refusal.redirect(url)`` answers 303 with a ``location``.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        location: str | None = None,
        www_authenticate: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.details = details
        self.location = location
        self.www_authenticate = www_authenticate

    @classmethod
    def redirect(cls, location: str, message: str = "Sign in to see this page.") -> Refusal:
        """A 303 to ``location`` (a page that needs a signed-in user sends them to sign in)."""
        return cls(303, message, location=location)

    @classmethod
    def of(cls, error: KnownError) -> Refusal:
        return cls(error.status, error.message, code=error.code, details=error.details or None)

    @property
    def body(self) -> bytes:
        data: dict[str, Any] = {"code": self.code, "error": self.message} if self.code else {"error": self.message}
        if self.details:
            data["details"] = self.details
        return json.dumps(data).encode()

    @property
    def headers(self) -> list[tuple[str, str]]:
        headers = [("content-type", "application/json"), ("cache-control", "no-store")]
        if self.code:
            headers.append(("x-stack-known-error", self.code))
        if self.location:
            headers.append(("location", self.location))
        if self.www_authenticate:
            headers.append(("www-authenticate", self.www_authenticate))
        return headers

    @classmethod
    def bearer(cls, error: KnownError) -> Refusal:
        """401 for a bearer token that is not valid (RFC 6750), naming the error in the body.

        The challenge's description is one of two fixed sentences, never the error's message:
        that may quote the token (its ``alg``, say), and a header carrying the token's text
        could break the response (a non-Latin-1 character makes servers fail) or inject.
        """
        challenge = _BEARER_CHALLENGES.get(error.code, _BEARER_CHALLENGES[""])
        return cls(401, error.message, code=error.code, details=error.details or None, www_authenticate=challenge)
