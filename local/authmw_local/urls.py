"""Redirect and callback URL trust (contract 7.3)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

from ada_url import URL

from .projects import Project

_LOOPBACK_V4 = re.compile(r"^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$")


def is_trusted_url(project: Project, url: str) -> bool:
    """Contract 7.3, judged on the URL as a browser parses it (authmw._urls)."""
    domains = [entry["domain"] for entry in project.config["domains"]]
    return trusted_callback(url, domains, allow_localhost=bool(project.config["allow_localhost"]))


def with_query_param(url: str, name: str, value: str) -> str:
    """`url` as a browser reads it, with `name=value` appended to its query (existing
    parameters kept). Serialising the browser's parse means the link in an e-mail goes where
    the trust check looked."""
    parsed = URL(url)
    pair = f"{quote(name, safe='')}={quote(value, safe='')}"
    query = parsed.search.removeprefix("?")
    parsed.search = f"{query}&{pair}" if query else pair
    return parsed.href


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
