"""The local development service: a SQLite-backed implementation of the service API."""

from .app import create_app
from .server import LocalService

__all__ = ["LocalService", "create_app"]
