from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ._urls import same_origin_path
from .errors import ConfigurationError, SettingsFileNotFound

#: Version of this package, sent in x-stack-client-version.
VERSION = "0.1.0"
#: Where the local development service listens unless told otherwise.
DEFAULT_API_URL = "http://localhost:8102"
#: Base path of the React handler pages.
DEFAULT_HANDLER_PATH = "/handler"
#: Hosted service, for reference in docs and error messages.
HOSTED_API_URL = "https://api.stack-auth.com"

_ENV_NAMES: dict[str, tuple[str, ...]] = {
    "project_id": ("AUTHMW_PROJECT_ID", "STACK_PROJECT_ID", "NEXT_PUBLIC_STACK_PROJECT_ID"),
    "api_url": ("AUTHMW_API_URL", "STACK_API_URL", "NEXT_PUBLIC_STACK_API_URL"),
    "publishable_client_key": (
        "AUTHMW_PUBLISHABLE_CLIENT_KEY",
        "STACK_PUBLISHABLE_CLIENT_KEY",
        "NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY",
    ),
    "secret_server_key": ("AUTHMW_SECRET_SERVER_KEY", "STACK_SECRET_SERVER_KEY"),
    "super_secret_admin_key": ("AUTHMW_SUPER_SECRET_ADMIN_KEY", "STACK_SUPER_SECRET_ADMIN_KEY"),
    "handler_path": ("AUTHMW_HANDLER_PATH",),
    "cookie_format": ("AUTHMW_COOKIE_FORMAT",),
    "public_api_url": ("AUTHMW_PUBLIC_API_URL",),
    "allow_anonymous": ("AUTHMW_ALLOW_ANONYMOUS",),
    "allow_restricted": ("AUTHMW_ALLOW_RESTRICTED",),
    "accept_api_keys": ("AUTHMW_ACCEPT_API_KEYS",),
}
#: How session cookies are written: "2.7" (default; read by every official SDK generation)
#: or "2.8" (the structured refresh cookie of the official SDK's 2.8 releases).
COOKIE_FORMATS = ("2.7", "2.8")

_PROJECT_ID = re.compile(r"^(internal|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")


@dataclass(frozen=True)
class AuthConfig:
    project_id: str
    api_url: str = DEFAULT_API_URL
    publishable_client_key: str | None = None
    secret_server_key: str | None = field(default=None, repr=False)
    super_secret_admin_key: str | None = field(default=None, repr=False)
    handler_path: str = DEFAULT_HANDLER_PATH
    cookie_format: str = "2.7"
    #: The service's public URL when this app reaches it by another one (an internal host
    #: name, say): API 2.8 writes its public URL into every access token's ``iss``
    #: (``{public URL}/api/v1/projects/{project_id}``). None: the same as ``api_url``.
    public_api_url: str | None = None
    #: Sign in anonymous users (tokens with the ``{project_id}:anon`` audience, API 2.8) as
    #: ``request.user`` with ``is_anonymous``; by default their requests are not signed in.
    #: Implies ``allow_restricted`` (an anonymous user is restricted too).
    allow_anonymous: bool = False
    #: Sign in restricted users (``{project_id}:restricted``: e-mail not verified, or
    #: restricted by an administrator) with ``is_restricted``; by default not signed in.
    allow_restricted: bool = False
    #: Let machine clients call the app with a user's or a team's API key (API 2.8) as
    #: ``Authorization: Bearer sk_...``: the middleware resolves it through the service (the
    #: secret server key is needed) and routes accept it where their guard says so. Off: such
    #: a request is refused with 401 ``API_KEY_NOT_ACCEPTED``.
    accept_api_keys: bool = False

    def __post_init__(self) -> None:
        if not self.project_id:
            raise ConfigurationError(
                "No project id. Pass project_id=... or set AUTHMW_PROJECT_ID "
                "(run `authmw dev` to get a local project and its keys)."
            )
        if not _PROJECT_ID.match(self.project_id):
            raise ConfigurationError(
                f"Project id {self.project_id!r} is not a UUID (or 'internal'). "
                "Copy it from the project settings or from the local service's project.env."
            )
        object.__setattr__(self, "api_url", _api_url(self.api_url, "API URL"))
        if self.public_api_url is not None:
            object.__setattr__(self, "public_api_url", _api_url(self.public_api_url, "Public API URL"))
        for name in ("allow_anonymous", "allow_restricted", "accept_api_keys"):
            object.__setattr__(self, name, _flag(getattr(self, name), name))
        if not self.handler_path.startswith("/"):
            raise ConfigurationError(f"Handler path {self.handler_path!r} must start with '/'.")
        if same_origin_path(self.handler_path) is None:  # "//host/handler" is another site to a browser
            raise ConfigurationError(
                f"Handler path {self.handler_path!r} is not a path of this site as a browser reads it "
                "(it names another host); give one path, such as '/handler'."
            )
        object.__setattr__(self, "handler_path", self.handler_path.rstrip("/") or "/")
        if self.cookie_format not in COOKIE_FORMATS:
            raise ConfigurationError(
                f"Cookie format {self.cookie_format!r} is not one of {', '.join(COOKIE_FORMATS)} "
                "(AUTHMW_COOKIE_FORMAT): 2.7 writes stack-refresh-{projectId}, 2.8 the structured cookie."
            )

    @property
    def api_base(self) -> str:
        """The API root every call goes under, ``{api_url}/api/v1``."""
        return self.api_url + "/api/v1"

    @property
    def jwks_url(self) -> str:
        """The project's key set; with the keys of anonymous and restricted users' tokens
        when the app accepts them (API 2.8 publishes those only when asked)."""
        url = f"{self.api_base}/projects/{self.project_id}/.well-known/jwks.json"
        if self.allow_anonymous:
            return url + "?include_anonymous=true"  # (includes the restricted users' keys)
        if self.allow_restricted:
            return url + "?include_restricted=true"
        return url

    @property
    def issuer_base(self) -> str:
        """The URL API 2.8 starts its tokens' ``iss`` with: ``public_api_url``, else ``api_url``."""
        return self.public_api_url or self.api_url

    def with_(self, **changes: object) -> AuthConfig:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> AuthConfig:
        """Build from environment variables (``AUTHMW_*``, or the service's usual ``STACK_*``)."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name, keys in _ENV_NAMES.items():
            for key in keys:
                if env.get(key):
                    values[name] = env[key]
                    break
        values.update({k: v for k, v in overrides.items() if v is not None})
        values.setdefault("project_id", "")
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def from_env_file(cls, path: str | os.PathLike[str], **overrides: object) -> AuthConfig:
        """Read a ``KEY=value`` file such as the local service's ``project.env``."""
        return cls.from_env(read_env_file(path), **overrides)


def _api_url(value: str, what: str) -> str:
    url = value.rstrip("/").removesuffix("/api/v1")
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(
            f"{what} {value!r} must start with http:// or https:// "
            f"(for example {DEFAULT_API_URL} or {HOSTED_API_URL})."
        )
    return url


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def _flag(value: object, name: str) -> bool:
    """A bool setting, also from the environment's text (``AUTHMW_ALLOW_ANONYMOUS=true``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise ConfigurationError(f"{name} must be true or false, not {value!r} (AUTHMW_{name.upper()}).")


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """``KEY=value`` lines of a file. Raises :class:`SettingsFileNotFound` naming the fix."""
    file = Path(path)
    if file.is_dir() and (file / "project.env").is_file():
        raise SettingsFileNotFound(
            f"The settings file {str(file)!r} is a folder: pass the project.env inside it ({file / 'project.env'})."
        )
    try:
        text = file.read_text()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise SettingsFileNotFound(
            f"There is no settings file at {str(file)!r} (resolved: {file.resolve()}). Pass the path of the "
            "project.env that `authmw dev --data-dir <folder>` writes into <folder>, or use AuthConfig.from_env()."
        ) from None
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip("'\"")
    return values
