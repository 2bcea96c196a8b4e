"""Judging URLs the way a browser reads them (WHATWG URL standard, through Ada).

Every place that decides where a browser may be sent judges the URL here, after parsing it
exactly as the browser will: ``\\`` is ``/`` in http(s) URLs, tabs and newlines vanish,
leading and trailing spaces and control characters are dropped, ``.``/``%2e`` segments are
resolved. Comparing strings before that normalisation is how open redirects happen
(``/.//evil.example`` resolves to ``//evil.example``; ``http://evil.example\\@localhost/`` is a
URL of evil.example).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from ada_url import URL

__all__ = ["is_local_host", "same_origin_path", "trusted_callback"]

_LOOPBACK_V4 = re.compile(r"^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$")


def same_origin_path(url: str | None) -> str | None:
    """Where ``url`` leads from a page of this site, as ``path?query#fragment``, when it stays
    on the site; None when it would leave it (another host or scheme, ``javascript:``, a
    network-path ``//host``, ...) or is empty.

    The result starts with exactly one ``/``, so a browser reads it as a path of the same
    origin wherever it is used again.
    """
    if not url:
        return None
    base = f"https://{secrets.token_hex(8)}.invalid"
    try:
        parsed = URL(url, base)
    except ValueError:
        return None
    if parsed.origin != base:
        return None
    path = parsed.pathname
    if not path.startswith("/") or path.startswith(("//", "/\\")):
        return None
    return path + parsed.search + parsed.hash


def is_local_host(hostname: str) -> bool:
    """``localhost``, a ``*.localhost`` name or a ``127.a.b.c`` address: what the service
    trusts as local when ``allow_localhost`` is on."""
    host = hostname.lower()
    return host == "localhost" or host.endswith(".localhost") or bool(_LOOPBACK_V4.match(host))


def trusted_callback(url: str, domains: Iterable[str], *, allow_localhost: bool) -> bool:
    """Whether the service may send a browser (and a code) to the absolute ``url``, by
    the service's own rule.

    Trusted: an http(s) URL whose host is local while ``allow_localhost`` is on, or whose
    scheme and host equal those of a configured domain and whose path starts with the
    domain's path. (The service does not compare ports; neither does this.)
    """
    try:
        parsed = URL(url)
    except ValueError:
        return False
    if parsed.protocol not in ("http:", "https:") or not parsed.hostname:
        return False
    if allow_localhost and is_local_host(parsed.hostname):
        return True
    for domain in domains:
        try:
            trusted = URL(domain)
        except ValueError:
            continue
        if trusted.protocol == parsed.protocol and trusted.hostname == parsed.hostname:
            if _under(parsed.pathname, trusted.pathname):
                return True
    return False


def _under(path: str, prefix: str) -> bool:
    """``path`` is ``prefix`` or below it (``/app`` covers ``/app/x``, not ``/application``)."""
    prefix = prefix.rstrip("/")
    return path == prefix or path.startswith(prefix + "/")
