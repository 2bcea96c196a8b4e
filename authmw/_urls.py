"""Judging URLs the way a browser reads them (WHATWG URL standard, through Ada).

Every place that decides where a browser may be sent judges the URL here, after parsing it
exactly as the browser will: ``\\`` is ``/`` in http(s) URLs, tabs and newlines vanish,
leading and trailing spaces and control characters are dropped, ``.``/``%2e`` segments are
resolved. Comparing strings before that normalisation is how open redirects happen
(``/.//evil.example`` resolves to ``//evil.example``; ``http://evil.example\\@localhost/`` is a
URL of evil.example).
"""

from __future__ import annotations

import secrets

from ada_url import URL

__all__ = ["same_origin_path"]


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
