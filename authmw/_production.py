"""Production-mode checks of a project, as the dashboard makes them: pure, no I/O.

The service does not enforce them (``is_production_mode`` can be switched on regardless);
dashboards and ``authmw project check`` show them before going live.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ada_url import URL

from .models import AdminProject

__all__ = ["DEFAULT_DASHBOARD_URL", "LOCALHOST_ALLOWED", "WILDCARD_TOO_WIDE", "ProductionModeError", "production_mode_errors"]

#: Where the hosted service's project settings live; fix links point there by default.
DEFAULT_DASHBOARD_URL = "https://app.stack-auth.com"

_LOCALHOST = re.compile(r"^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+)$")
_DIGITS_AND_DOTS = re.compile(r"^[\d.]+$")


@dataclass(frozen=True)
class ProductionModeError:
    """One failed check: what is wrong and where it is fixed (the project's domains settings)."""

    message: str
    #: ``/projects/{id}/domains``, as the official SDK gives it.
    relative_fix_url: str
    #: The same page on the dashboard.
    fix_url: str

    def __str__(self) -> str:
        return f"{self.message} (fix: {self.fix_url})"


#: What a wildcard stands for when a domain is parsed (one label, as the dashboard does).
_PLACEHOLDER = "wildcard-placeholder"
#: Not the dashboard's: a wildcard must leave two labels of the site's own after it.
WILDCARD_TOO_WIDE = (
    "Wildcard trusted domains must end with at least two labels of your own (https://*.example.com) in production mode"
)

#: The message of the first check (localhost allowed); the others name a trusted domain.
LOCALHOST_ALLOWED = "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings"


def production_mode_errors(
    project: AdminProject, *, dashboard_url: str = DEFAULT_DASHBOARD_URL
) -> list[ProductionModeError]:
    """Every production-mode check the project fails, in order; empty when it is ready.

    Localhost allowed; then per trusted domain (in list order, first failing rule only):
    not a valid URL, a localhost name, a direct IP address, not HTTPS, a wildcard that covers
    other sites (fewer than two labels after its last ``*``).
    """
    relative = f"/projects/{project.id}/domains"
    fix_url = dashboard_url.rstrip("/") + relative

    def error(message: str) -> ProductionModeError:
        return ProductionModeError(message, relative, fix_url)

    errors: list[ProductionModeError] = []
    if project.config.allow_localhost:
        errors.append(error(LOCALHOST_ALLOWED))
    for entry in project.config.domains:
        problem = _domain_problem(entry.domain)
        if problem:
            errors.append(error(f"{problem}: {entry.domain}"))
    return errors


def _domain_problem(domain: str) -> str | None:
    parsed = _parse_url(domain)
    if parsed is None:
        return "Trusted domain is not a valid URL"
    scheme, hostname = parsed
    # A final dot names the same host to a browser (`localhost.` is this machine).
    bare = hostname[:-1] if hostname.endswith(".") else hostname
    if _LOCALHOST.match(bare):
        return "Localhost domains are not allowed to be trusted in production mode"
    if _DIGITS_AND_DOTS.match(bare) or bare.startswith("["):  # an IPv4 or an IPv6 address
        return "Direct IPs are not valid for trusted domains in production mode"
    if scheme != "https":
        return "Trusted domains should be HTTPS"
    if _PLACEHOLDER in bare and len(bare.rsplit(_PLACEHOLDER, 1)[1].split(".")) < 3:
        # `https://**` or `https://*.com` lets the service send codes to anyone's site.
        return WILDCARD_TOO_WIDE
    return None


def _parse_url(value: str) -> tuple[str, str] | None:
    """(scheme, hostname) of ``value`` as a browser reads it (the WHATWG URL standard, as
    ``new URL`` in the dashboard), else None. The browser's reading is the one that matters:
    ``https://0x7f.1``, ``https://local%68ost`` or full-width letters are this machine to it
    (and to the service, which judges callbacks after the same parse), whatever the text says.
    Wildcards (``*``, ``**``) stand for one placeholder label, as the dashboard checks them."""
    if not isinstance(value, str):
        return None
    try:
        url = URL(re.sub(r"\*+", _PLACEHOLDER, value))
    except ValueError:
        return None
    scheme = url.protocol.removesuffix(":")
    if scheme in ("http", "https") and not url.hostname:
        return None
    return scheme, url.hostname
