"""Redirect and callback URL trust (contract 7.3)."""

from __future__ import annotations

from urllib.parse import quote

from ada_url import URL

from .._urls import trusted_callback
from .projects import Project


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
