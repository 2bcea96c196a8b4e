"""authmw: sign users in and manage them from Python web apps, over the Stack Auth API.

::

    from authmw import ServerApp
    with ServerApp() as server:          # AUTHMW_* variables, or ServerApp(config)
        user = server.get_user(user_id)

Errors live in :mod:`authmw.errors`, wire models in :mod:`authmw.models`.
"""

from typing import TYPE_CHECKING, Any

from . import errors, models
from ._apps import (
    AdminApp,
    AsyncAdminApp,
    AsyncClientApp,
    AsyncServerApp,
    ClientApp,
    ServerApp,
)
from ._apps._oauth import ConnectedAccount
from ._config import VERSION as __version__, AuthConfig
from ._jwt import verify_jwt
from ._oauth import OAuthAuthorization
from ._production import ProductionModeError, production_mode_errors
from ._session import Session
from ._tokens import Claims, TokenVerifier, token_expiry
from .errors import AuthmwError, ConfigurationError, KnownError

# --- middleware re-exports ------------------------------------------------------------------
# authmw.middleware (owned by the middleware) is imported lazily, so that `import authmw`
# works without it and stays cheap. Names listed here are served by __getattr__ below.
_MIDDLEWARE_NAMES = ("AuthMiddleware", "WSGIAuthMiddleware")

if TYPE_CHECKING:
    from .middleware import AuthMiddleware, WSGIAuthMiddleware


def __getattr__(name: str) -> Any:
    if name in _MIDDLEWARE_NAMES:
        from . import middleware

        return getattr(middleware, name)
    raise AttributeError(f"module 'authmw' has no attribute {name!r}")


# --- end of middleware re-exports -----------------------------------------------------------

__all__ = [
    "AdminApp",
    "AsyncAdminApp",
    "AsyncClientApp",
    "AsyncServerApp",
    "AuthConfig",
    "AuthMiddleware",
    "AuthmwError",
    "Claims",
    "ClientApp",
    "ConfigurationError",
    "ConnectedAccount",
    "KnownError",
    "OAuthAuthorization",
    "ProductionModeError",
    "ServerApp",
    "Session",
    "TokenVerifier",
    "WSGIAuthMiddleware",
    "__version__",
    "errors",
    "models",
    "production_mode_errors",
    "token_expiry",
    "verify_jwt",
]
