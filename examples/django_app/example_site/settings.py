"""Settings of the Django example: the React app (examples/web) and a protected API.

authmw's configuration comes from the environment (``AUTHMW_*``) or else from the local
service's ``.authmw/project.env`` (``AUTHMW_ENV_FILE`` names another file).
"""

import os
import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
#: Where `npm run build:example` (in js/) puts the React app.
WEB_DIST = Path(os.environ.get("AUTHMW_WEB_DIST", ROOT / "examples" / "web" / "dist"))

_env_file = Path(os.environ.get("AUTHMW_ENV_FILE", ROOT / ".authmw" / "project.env"))
AUTHMW = {
    # Variables in the environment win over the file.
    "ENV_FILE": str(_env_file) if _env_file.is_file() else None,
    "API_PATHS": ["/api/"],
}

# An example, not a deployment: a fresh key per start, local hosts only.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50)
DEBUG = False
ALLOWED_HOSTS = ["localhost", "127.0.0.1"]

INSTALLED_APPS: list[str] = []
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "authmw_django.AuthMiddleware",
]
ROOT_URLCONF = "example_site.urls"
WSGI_APPLICATION = "example_site.wsgi.application"
USE_TZ = True
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"authmw": {"handlers": ["console"], "level": "WARNING"}},
}
