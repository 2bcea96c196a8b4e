"""The authentication backend of linked Django users (``AUTHMW["DJANGO_USERS"] = True``).

::

    AUTHENTICATION_BACKENDS = [
        "authmw_django.backends.AuthmwBackend",
        "django.contrib.auth.backends.ModelBackend",   # keeps has_perm, groups, password sign-in
    ]
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend

from authmw.middleware import AuthUser

from ._linked import link_user
from ._middleware import site_auth


class AuthmwBackend(BaseBackend):
    """Authenticates the Django user linked to a signed-in authmw user (made on first sign-in)."""

    def authenticate(self, request: Any, authmw_user: AuthUser | None = None, **credentials: Any) -> Any:
        if not isinstance(authmw_user, AuthUser) or credentials:
            return None
        auth = site_auth(request, "authmw_django.backends.AuthmwBackend")
        if auth.linked is None:
            return None
        user = link_user(authmw_user, auth.linked, auth.team_server())
        return user if user is not None and self.user_can_authenticate(user) else None

    def get_user(self, user_id: Any) -> Any:
        model = get_user_model()
        try:
            user = model._default_manager.get(pk=user_id)
        except model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None

    def user_can_authenticate(self, user: Any) -> bool:
        return getattr(user, "is_active", True) is not False
