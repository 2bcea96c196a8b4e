"""Refusing DNS rebinding: a service on a loopback address answers only to local host names.

A web page the developer opens can make its own name resolve to 127.0.0.1 (DNS rebinding);
its scripts then reach this service as if it were their own site, with `Host: evil.example`,
and read the outbox (every project's sign-in links and codes) or call the API. A browser
always sends the name it resolved, so a service that listens on loopback only answers to:
an IP address (v4 or [v6]), `localhost` and `*.localhost`, and the host of its public URL;
anything else is a 403 naming the fix. Listening on other addresses (`--host 0.0.0.0`) was
asked for, so every name is answered then, as before.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send


def is_loopback(host: str) -> bool:
    """Whether listening on `host` is reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


class HostCheck:
    """ASGI wrapper: requests whose `Host` is not a local name or `public_url`'s host get 403."""

    def __init__(self, app: ASGIApp, public_url: str) -> None:
        self.app = app
        self.public_host = (urlsplit(public_url).hostname or "").lower()

    def allows(self, host_header: str | None) -> bool:
        if not host_header:  # HTTP/1.0 without Host: no browser sends that
            return True
        match = _HOST.fullmatch(host_header)  # `name[:port]` or `[v6][:port]`, nothing else
        if match is None:
            return False
        name = match["name"].rstrip(".").lower()
        return bool(name) and (
            name == "localhost" or name.endswith(".localhost") or _is_ip(name) or name == self.public_host
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == b"host"), None)
            if not self.allows(host):
                body = (
                    f"This authmw local service listens on this machine only and answers to localhost, an IP"
                    f" address or {self.public_host}, not to {host!r} (a web page may have pointed that name at"
                    " it). To reach it by that name, start it with --public-url http://<that name>:<port>;"
                    " to serve the network, --host 0.0.0.0.\n"
                ).encode()
                headers = [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"x-content-type-options", b"nosniff"),
                ]
                await send({"type": "http.response.start", "status": 403, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
