"""Redirect and callback URL trust (service-api A7.3)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from ada_url import URL

from .api_version import current_api
from .projects import Project

_LOOPBACK_V4 = re.compile(r"^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$")
_DEFAULT_PORTS = {"http:": "80", "https:": "443"}


def is_trusted_url(project: Project, url: str, *, rule_2_8: bool | None = None) -> bool:
    """Whether the service may send a browser (and a code) to `url`, judged on the URL as a
    browser parses it: by 2.8's rule (`trusted_redirect_2_8`: the port counts, the path does
    not) for every callback URL when the service answers as 2.8, else by 2.7's (service-api A7.3).
    `rule_2_8` overrides the version of the request being served."""
    allow_localhost = bool(project.config["allow_localhost"])
    if current_api().oauth_28 if rule_2_8 is None else rule_2_8:
        return trusted_redirect_2_8(url, project.config["domains"], allow_localhost=allow_localhost)
    domains = [entry["domain"] for entry in project.config["domains"]]
    return trusted_callback(url, domains, allow_localhost=allow_localhost)


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


def trusted_redirect_2_8(url: str, domains: Iterable[Mapping[str, Any]], *, allow_localhost: bool) -> bool:
    """Contract 2.8, 14.3, on the URL as a browser parses it: localhost when allowed; else a
    domain with the same scheme, the same host and the same port (default ports made
    explicit; the path is not compared), or a wildcard domain whose host pattern (`*` within
    one label, `**` across labels) matches the host, with the default port unless the pattern
    names one."""
    try:
        parsed = URL(url)
    except ValueError:
        return False
    if parsed.protocol not in _DEFAULT_PORTS or not parsed.hostname:
        return False
    if allow_localhost and is_local_host(parsed.hostname):
        return True
    port = parsed.port or _DEFAULT_PORTS[parsed.protocol]
    for entry in domains:
        domain = str(entry["domain"])
        if "*" in domain:
            if _matches_wildcard(domain, parsed.protocol, parsed.hostname, port):
                return True
            continue
        try:
            trusted = URL(domain)
        except ValueError:
            continue
        if (trusted.protocol, trusted.hostname) == (parsed.protocol, parsed.hostname) and (
            trusted.port or _DEFAULT_PORTS.get(trusted.protocol)
        ) == port:
            return True
    return False


def _matches_wildcard(domain: str, protocol: str, hostname: str, port: str) -> bool:
    scheme, sep, rest = domain.partition("://")
    if not sep or f"{scheme.lower()}:" != protocol:
        return False
    pattern = rest.split("/", 1)[0].lower()
    if ":" in pattern:
        subject = f"{hostname}:{port}"
    elif port == _DEFAULT_PORTS[protocol]:
        subject = hostname
    else:
        return False
    parts = (re.escape(piece).replace(r"\*", "[^.]*") for piece in pattern.split("**"))
    return re.fullmatch(".*".join(parts), subject) is not None
