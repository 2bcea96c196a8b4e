"""Redirect and callback URL trust (contract 7.3)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from .projects import Project
from .schema import is_url

_LOOPBACK_V4 = re.compile(r"^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$")


def is_trusted_url(project: Project, url: str) -> bool:
    if not is_url(url):
        return False
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if project.config["allow_localhost"] and (
        host == "localhost" or host.endswith(".localhost") or _LOOPBACK_V4.match(host)
    ):
        return True
    for entry in project.config["domains"]:
        trusted = urlsplit(entry["domain"])
        if (
            trusted.scheme.lower() == parts.scheme.lower()
            and (trusted.hostname or "").lower() == host
            and parts.path.startswith(trusted.path)
        ):
            return True
    return False


def with_query_param(url: str, name: str, value: str) -> str:
    """`url` with `name=value` appended to its query (existing parameters kept)."""
    from urllib.parse import quote

    parts = urlsplit(url)
    pair = f"{quote(name, safe='')}={quote(value, safe='')}"
    query = f"{parts.query}&{pair}" if parts.query else pair
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
