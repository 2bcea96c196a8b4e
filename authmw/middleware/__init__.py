"""ASGI and WSGI middleware: the session's user on every request, cookies kept fresh."""

from ._refusal import Refusal
from ._user import AnonymousUser, ApiKeyTeam, ApiKeyUser, AuthCredentials, AuthUser, UnadmittedUser
from .asgi import AuthMiddleware
from .wsgi import WSGIAuthMiddleware

__all__ = [
    "AnonymousUser",
    "ApiKeyTeam",
    "ApiKeyUser",
    "AuthCredentials",
    "AuthMiddleware",
    "AuthUser",
    "Refusal",
    "UnadmittedUser",
    "WSGIAuthMiddleware",
]
