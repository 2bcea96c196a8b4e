"""One Flask app's authmw state, and how its settings are named."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from authmw import AuthConfig, ServerApp
from authmw.adapter import SessionResolver
from authmw.errors import ConfigurationError

#: Key of the extension's state in ``app.extensions``.
EXTENSION_KEY = "authmw"
#: Prefix of the extension's keys in ``app.config`` (``AUTHMW_PROJECT_ID``, ...).
CONFIG_PREFIX = "AUTHMW_"


def setting_name(key: str) -> str:
    return f'app.config["{CONFIG_PREFIX}{key}"]'


@dataclass(frozen=True)
class FlaskAuth:
    """One app's state, ``app.extensions["authmw"]``."""

    config: AuthConfig
    resolver: SessionResolver

    def team_server(self) -> ServerApp:
        """The server app team guards ask; raises ConfigurationError without the secret key."""
        return self.resolver.team_server(setting_name)


def site_auth(app: Flask | None = None) -> FlaskAuth:
    app = app or current_app
    auth = app.extensions.get(EXTENSION_KEY)
    if auth is None:
        raise ConfigurationError(
            f"authmw is not set up on the Flask app {app.name!r}: call AuthMW(app) or auth.init_app(app)."
        )
    return auth  # type: ignore[no-any-return]
