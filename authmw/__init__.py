"""authmw: sign users in and manage them from Python web apps, over the Stack Auth API."""

from . import errors
from ._config import AuthConfig
from .errors import AuthmwError, ConfigurationError, KnownError

__version__ = "0.1.0"

__all__ = [
    "AuthConfig",
    "AuthmwError",
    "ConfigurationError",
    "KnownError",
    "__version__",
    "errors",
]
