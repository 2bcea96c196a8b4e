"""Linked Django users (``AUTHMW["DJANGO_USERS"] = True``): ``request.user`` is a real user of
``AUTH_USER_MODEL``, linked one to one to the authmw user, so foreign keys, ``login_required``,
``has_perm`` and the admin keep working; the authmw user is on ``request.authmw_user``.

The middleware signs the linked user into Django's own session on each new authmw session
(``AuthmwBackend``, RemoteUserBackend's idea), and signs it out of Django's session when the
authmw session ends. Profile fields and the staff / superuser flags are brought in step on
each such sign-in, and between sign-ins by the webhook handlers of
``authmw_django.webhooks.keep_linked_users``.

E-mail follows the one linking rule of :func:`authmw.adapter.linkable_email`: a Django user
gets an authmw user's address (as its e-mail, or as its username when new) only when the
service says it is verified and no other authmw user holds it; an unverified or shared
address is never copied. The link itself is by authmw user id (``AuthmwUserLink``) and never
moves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib import auth as django_auth
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from authmw import ServerApp
from authmw.adapter import EmailLinkRefused, linkable_email
from authmw.middleware import AnonymousUser, AuthUser

BACKEND = "authmw_django.backends.AuthmwBackend"
#: In Django's session: which authmw session the Django sign-in was made for.
SESSION_MARK = "_authmw_session"
REQUIRED_APPS = ("django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "authmw_django")
SESSION_MIDDLEWARE = "django.contrib.sessions.middleware.SessionMiddleware"


@dataclass(frozen=True)
class PermissionRule:
    """A team permission that grants a Django flag: in one team, or in any team (team None)."""

    permission: str
    team: str | None = None

    @classmethod
    def parse(cls, value: Any, setting: str) -> PermissionRule | None:
        if value is None:
            return None
        if isinstance(value, str) and value:
            return cls(value)
        if isinstance(value, Mapping) and isinstance(value.get("permission"), str) and value.get("permission"):
            team = value.get("team")
            if team is None or isinstance(team, str):
                return cls(value["permission"], team)
        raise ImproperlyConfigured(
            f'{setting} must be a team permission id such as "admin" (held in any team) or '
            f'{{"team": "<team id>", "permission": "admin"}}, not {value!r}.'
        )

    def granted(self, server: ServerApp, user_id: str) -> bool:
        return bool(server.team_permissions.list(self.team, user_id, permission_id=self.permission))


@dataclass(frozen=True)
class LinkedUsers:
    staff: PermissionRule | None = None
    superuser: PermissionRule | None = None


def check_installed(installed_apps: list[str], middleware: list[str], backends: list[str], setting: str) -> None:
    missing = [app for app in REQUIRED_APPS if app not in installed_apps]
    if missing:
        raise ImproperlyConfigured(f"{setting} = True needs {missing} in settings.INSTALLED_APPS (then migrate).")
    for needed in (SESSION_MIDDLEWARE, "django.contrib.auth.middleware.AuthenticationMiddleware"):
        if needed not in middleware:
            raise ImproperlyConfigured(
                f"{setting} = True needs {needed!r} in settings.MIDDLEWARE, before 'authmw_django.AuthMiddleware'."
            )
    if BACKEND not in backends:
        raise ImproperlyConfigured(f"{setting} = True needs {BACKEND!r} in settings.AUTHENTICATION_BACKENDS.")


def session_mark(user: AuthUser) -> str:
    """Names the authmw session without keeping its tokens in Django's session store."""
    secret = user.refresh_token or user.access_token
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def sync_request(request: Any, authmw_user: AuthUser | AnonymousUser, from_cookies: bool) -> None:
    """Bring Django's session user in step with the request's authmw session (sync code).
    ``from_cookies``: the core read the session from the cookies (``Resolved.from_cookies``)."""
    request.authmw_user = authmw_user
    # An API call (a session in a header: x-stack-auth, a bearer token, the 2.8 SDK's
    # Authorization header; or an API key): no Django session for it, as the core tells.
    from_header = not from_cookies
    if not authmw_user.is_authenticated:
        if isinstance(authmw_user, AnonymousUser) and authmw_user.unconfirmed:
            # The service did not answer: nobody for this request, but a transient error never
            # signs a user out, so Django's session (and what the app keeps in it) stays.
            if request.session.get(django_auth.BACKEND_SESSION_KEY) == BACKEND:
                from django.contrib.auth.models import AnonymousUser as DjangoAnonymousUser

                nobody = DjangoAnonymousUser()

                async def auser() -> DjangoAnonymousUser:
                    return nobody

                request.user, request.auser = nobody, auser
            return
        if request.session.get(django_auth.BACKEND_SESSION_KEY) == BACKEND:
            django_auth.logout(request)  # signed out of authmw: out of Django too
        return
    assert isinstance(authmw_user, AuthUser)
    mark = None if from_header else session_mark(authmw_user)
    if mark is not None and request.session.get(SESSION_MARK) == mark and request.user.is_authenticated:
        return  # the Django sign-in made for this very session
    user = django_auth.authenticate(request, authmw_user=authmw_user)
    if user is None:  # an inactive Django user: nobody
        if request.session.get(django_auth.BACKEND_SESSION_KEY) == BACKEND:
            django_auth.logout(request)
        return
    if from_header:
        request.user = user  # an API call: no Django session for it
        return
    django_auth.login(request, user, backend=BACKEND)
    request.session[SESSION_MARK] = mark


def link_user(authmw_user: AuthUser, rules: LinkedUsers, server: ServerApp) -> Any:
    """The Django user linked to ``authmw_user``: found, or created on the first sign-in; its
    e-mail, name and staff / superuser flags brought in step with authmw."""
    from .models import AuthmwUserLink

    profile = server.users.get(authmw_user.id)
    if profile is None:
        return None
    email = verified_email(server, profile)
    flags = granted_flags(rules, server, authmw_user.id)
    model = django_auth.get_user_model()
    with transaction.atomic():
        link = AuthmwUserLink.objects.select_related("user").filter(authmw_user_id=authmw_user.id).first()
        if link is not None:
            user = link.user
        else:
            user = _new_user(model, profile, email)
            AuthmwUserLink.objects.create(user=user, authmw_user_id=authmw_user.id)
        changed = _sync(user, model, profile, email) + set_flags(user, flags)
        if changed:
            user.save(update_fields=changed)
    return user


def granted_flags(rules: LinkedUsers, server: ServerApp, authmw_user_id: str) -> dict[str, bool]:
    """The staff / superuser flags the rules give this authmw user, asked of the service; a
    flag with no rule is left out (the app manages it itself)."""
    flags: dict[str, bool] = {}
    for field, rule in (("is_staff", rules.staff), ("is_superuser", rules.superuser)):
        if rule is not None:
            flags[field] = rule.granted(server, authmw_user_id)
    return flags


def set_flags(user: Any, flags: Mapping[str, bool]) -> list[str]:
    """Write ``flags`` onto the Django user; the fields that changed (for ``update_fields``)."""
    changed = [field for field, value in flags.items() if hasattr(user, field) and getattr(user, field) != value]
    for field in changed:
        setattr(user, field, flags[field])
    return changed


def verified_email(server: ServerApp, profile: Any) -> str | None:
    """The authmw user's address if the linking rule lets a Django user carry it, else None."""
    try:
        return linkable_email(server, profile)
    except EmailLinkRefused:
        return None


def _new_user(model: Any, profile: Any, email: str | None) -> Any:
    username_field = model.USERNAME_FIELD
    taken = bool(email) and model._default_manager.filter(**{f"{username_field}__iexact": email}).exists()
    username = profile.primary_email.strip() if email and not taken else f"authmw-{profile.id}"
    user = model(**{username_field: username})
    user.set_unusable_password()
    user.save()
    return user


def _sync(user: Any, model: Any, profile: Any, email: str | None) -> list[str]:
    """Copy the e-mail (only one the linking rule allows) and the display name onto the Django
    user; the fields that changed. A refused address leaves the Django e-mail as it was."""
    wanted: dict[str, Any] = {}
    email_field = model.get_email_field_name()
    current = getattr(user, email_field, None)
    if email and current is not None and current.strip().lower() != email:
        wanted[email_field] = profile.primary_email.strip()  # as the user wrote it
    if profile.display_name is not None and hasattr(user, "first_name") and hasattr(user, "last_name"):
        first, _, last = profile.display_name.strip().partition(" ")
        wanted["first_name"], wanted["last_name"] = first[:150], last.strip()[:150]
    changed = [field for field, value in wanted.items() if getattr(user, field) != value]
    for field in changed:
        setattr(user, field, wanted[field])
    return changed
