"""Response rules every API answer follows (service-api A1.5-A1.7), as one plain ASGI middleware.

- `x-stack-request-id` on every response, and `cache-control: no-store, max-age=0` unless the
  route sets its own (the 2.8 key set is public for an hour);
- CORS headers on `/api/*` (and `*` on `/health`); OPTIONS on `/api/*` answers at once;
- methods outside GET, POST, PUT, PATCH, DELETE, OPTIONS get a plain 405;
- `x-stack-override-error-status` turns 4xx/5xx into 200 plus `x-stack-actual-status`;
- one trailing slash of an API path is ignored;
- `x-hexclave-*` request headers (official SDK 2.8.108) are read as their `x-stack-*` twins;
- an unexpected exception becomes a plain 500 without internals (logged server-side).
"""

from __future__ import annotations

import logging
import secrets
import string
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import INTERNAL_ERROR_TEXT

logger = logging.getLogger("authmw_local")

ALLOWED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

#: The service's own request headers (service-api A1.2, plus the 2.8 SDK's anonymous-user flag).
STACK_REQUEST_HEADERS = (
    "x-stack-project-id",
    "x-stack-branch-id",
    "x-stack-override-error-status",
    "x-stack-random-nonce",
    "x-stack-client-version",
    "x-stack-disable-artificial-development-delay",
    "x-stack-access-type",
    "x-stack-publishable-client-key",
    "x-stack-secret-server-key",
    "x-stack-super-secret-admin-key",
    "x-stack-admin-access-token",
    "x-stack-refresh-token",
    "x-stack-access-token",
    "x-stack-allow-anonymous-user",
)
#: The official SDK's 2.8.108 sends each `x-stack-*` header as `x-hexclave-*`.
_HEXCLAVE_PREFIX, _STACK_PREFIX = b"x-hexclave-", b"x-stack-"

API_CORS_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, POST, PUT, PATCH, DELETE, OPTIONS"),
    (
        b"access-control-allow-headers",
        ", ".join(
            [
                "content-type",
                "authorization",
                *STACK_REQUEST_HEADERS,
                *(name.replace("x-stack-", "x-hexclave-", 1) for name in STACK_REQUEST_HEADERS),
                "baggage",
                "sentry-trace",
                "x-vercel-protection-bypass",  # in 2.8's allow-list (service-api B1.4)
                "ngrok-skip-browser-warning",  # sent on every call by the official SDK 2.8.108
            ]
        ).encode(),
    ),
    (b"access-control-expose-headers", b"content-type, x-stack-actual-status, x-stack-known-error"),
    (b"access-control-max-age", b"86400"),
]
HEALTH_CORS_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"*"),
    (b"access-control-allow-headers", b"*"),
    (b"access-control-expose-headers", b"*"),
]

_ID_ALPHABET = string.ascii_lowercase + string.digits


def _request_id() -> bytes:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(16)).encode()


class ServiceHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path.startswith("/api/") and path.endswith("/") and len(path) > len("/api/"):
            # The SDK strips one trailing slash from API paths; so do we.
            path = path[:-1]
            scope = {**scope, "path": path, "raw_path": path.encode()}
        method: str = scope["method"]
        raw_headers = scope.get("headers", [])
        request_headers = {k.lower(): v for k, v in raw_headers}
        if any(k.startswith(_HEXCLAVE_PREFIX) for k in request_headers):
            twins = [
                (_STACK_PREFIX + k[len(_HEXCLAVE_PREFIX) :], v)
                for k, v in request_headers.items()
                if k.startswith(_HEXCLAVE_PREFIX) and _STACK_PREFIX + k[len(_HEXCLAVE_PREFIX) :] not in request_headers
            ]
            request_headers.update(twins)
            scope = {**scope, "headers": [*raw_headers, *twins]}
        override = b"x-stack-override-error-status" in request_headers
        if path == "/api" or path.startswith("/api/"):
            extra = API_CORS_HEADERS
        elif path == "/health":
            extra = HEALTH_CORS_HEADERS
        else:
            extra = []
        started = False

        async def send_wrapped(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-stack-request-id", _request_id()))
                if not any(k.lower() == b"cache-control" for k, _ in headers):
                    # Every answer is uncacheable unless its route says otherwise (the 2.8 key set).
                    headers.append((b"cache-control", b"no-store, max-age=0"))
                headers += extra
                if override and 400 <= status <= 599:
                    headers.append((b"x-stack-actual-status", str(status).encode()))
                    status = 200
                message = {**message, "status": status, "headers": headers}
            await send(message)

        if method not in ALLOWED_METHODS:
            await _plain(send_wrapped, 405, "Method not allowed")
            return
        if method == "OPTIONS" and extra is API_CORS_HEADERS:
            await _plain(send_wrapped, 200, "")
            return
        try:
            await self.app(scope, receive, send_wrapped)
        except Exception:
            logger.exception("Unhandled error on %s %s", method, path)
            if started:
                raise
            await _plain(send_wrapped, 500, INTERNAL_ERROR_TEXT)


async def _plain(send: Any, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
