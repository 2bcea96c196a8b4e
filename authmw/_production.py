"""Production-mode checks of a project, as the dashboard makes them: pure, no I/O.

The service does not enforce them (``is_production_mode`` can be switched on regardless);
dashboards and ``authmw project check`` show them before going live.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from .models import AdminProject

__all__ = ["DEFAULT_DASHBOARD_URL", "LOCALHOST_ALLOWED", "ProductionModeError", "production_mode_errors"]

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


#: The message of the first check (localhost allowed); the others name a trusted domain.
LOCALHOST_ALLOWED = "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings"


def production_mode_errors(
    project: AdminProject, *, dashboard_url: str = DEFAULT_DASHBOARD_URL
) -> list[ProductionModeError]:
    """Every production-mode check the project fails, in order; empty when it is ready.

    Localhost allowed; then per trusted domain (in list order, first failing rule only):
    not a valid URL, a localhost name, a direct IP address, not HTTPS.
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
    if _LOCALHOST.match(hostname):
        return "Localhost domains are not allowed to be trusted in production mode"
    if _DIGITS_AND_DOTS.match(hostname):
        return "Direct IPs are not valid for trusted domains in production mode"
    if scheme != "https":
        return "Trusted domains should be HTTPS"
    return None


def _parse_url(value: str) -> tuple[str, str] | None:
    """(scheme, lower-case hostname) of an absolute URL with a host, else None (as ``new URL`` fails)."""
    if not isinstance(value, str) or any(ch.isspace() for ch in value.strip()):
        return None
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme or ""):
        return None
    hostname = parts.hostname or ""
    if parts.scheme.lower() in ("http", "https") and not hostname:
        return None
    return parts.scheme.lower(), hostname.lower()
