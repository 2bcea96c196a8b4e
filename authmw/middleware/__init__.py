"""ASGI and WSGI middleware: the session's user on every request, cookies kept fresh."""

from ._user import AnonymousUser, AuthCredentials, AuthUser
from .asgi import AuthMiddleware
from .wsgi import WSGIAuthMiddleware

__all__ = [
    "AnonymousUser",
    "AuthCredentials",
    "AuthMiddleware",
    "AuthUser",
    "WSGIAuthMiddleware",
]
