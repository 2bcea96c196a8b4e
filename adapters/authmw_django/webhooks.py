"""The Django receiver of the service's webhooks (:class:`authmw.webhooks.Webhooks`).

::

    from authmw.webhooks import Webhooks
    from authmw_django.webhooks import webhook_view

    webhooks = Webhooks(secret=settings.AUTHMW_WEBHOOK_SECRET)

    urlpatterns = [path("webhooks/authmw", webhook_view(webhooks))]

With linked Django users (``AUTHMW["DJANGO_USERS"] = True``), ``keep_linked_users(webhooks)``
registers the handlers that keep their rows in step between sign-ins.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from authmw import ServerApp
from authmw.errors import UserNotFound
from authmw.webhooks import (
    Handled,
    TeamDeleted,
    TeamMembershipCreated,
    TeamMembershipDeleted,
    TeamPermissionCreated,
    TeamPermissionDeleted,
    UserDeleted,
    UserUpdated,
    Webhooks,
)

from ._linked import LinkedUsers, _sync, granted_flags, set_flags, verified_email

ON_DELETE = ("deactivate", "delete")


class DatabaseSeenIds:
    """The webhook replay and retry check kept in the site's database (the
    ``SeenWebhookMessage`` table of ``authmw_django``'s migrations), so every worker process
    and server of the site shares it: pass ``Webhooks(secret, seen_ids=DatabaseSeenIds())``.

    ``add`` relies on the table's unique message id, so two processes receiving the same
    message at once record it once. Expired ids are deleted as new ones arrive. ``ttl`` is a
    floor for how long an id is kept (as :class:`authmw.webhooks.MemorySeenIds`); ``clock``
    is for tests."""

    def __init__(self, *, ttl: float = 0.0, clock: Callable[[], float] = time.time, using: str | None = None) -> None:
        self._ttl = ttl
        self._clock = clock
        self._using = using

    def add(self, event_id: str, ttl: float) -> bool:
        from .models import SeenWebhookMessage

        now = self._clock()
        rows = SeenWebhookMessage.objects.using(self._using)
        rows.filter(expires_at__lte=now).delete()
        try:
            with transaction.atomic(using=self._using):
                rows.create(message_id=event_id, expires_at=now + max(ttl, self._ttl))
        except IntegrityError:
            return False
        return True

    def discard(self, event_id: str) -> None:
        from .models import SeenWebhookMessage

        SeenWebhookMessage.objects.using(self._using).filter(message_id=event_id).delete()

    def __repr__(self) -> str:
        return f"DatabaseSeenIds(using={self._using or 'default'!r})"


def webhook_view(webhooks: Webhooks) -> Callable[[HttpRequest], HttpResponse]:
    """A POST-only view, exempt from CSRF (the Svix signature authenticates the sender
    instead): verifies each delivery against the raw body, runs the sync handlers registered
    with ``@webhooks.on(...)`` and answers 200 only once they succeeded (a body over
    ``webhooks.max_body_bytes`` is not read past it: 413)."""

    def receive(request: HttpRequest) -> HttpResponse:
        body = webhooks.read_body(request.read, request.headers.get("content-length"))
        handled = body if isinstance(body, Handled) else webhooks.handle(body, dict(request.headers))
        return JsonResponse(handled.body, status=handled.status)

    view: Callable[[HttpRequest], HttpResponse] = csrf_exempt(require_POST(receive))
    return view


def keep_linked_users(
    webhooks: Webhooks,
    *,
    on_delete: str = "deactivate",
    server: ServerApp | None = None,
    rules: LinkedUsers | None = None,
) -> Webhooks:
    """Handlers for linked Django users, found by their link to the authmw user id (never by
    e-mail):

    - ``user.updated`` writes the name, and the e-mail when the linking rule allows it
      (verified, held by no other authmw user: asked through ``server``, by default the server
      app of the ``AUTHMW`` settings), as a sign-in does;
    - ``user.deleted`` deactivates the linked user (``is_active = False``: Django's session and
      ``login_required`` no longer accept it, its rows and foreign keys stay) or, with
      ``on_delete="delete"``, deletes it (and what cascades from it);
    - team membership and team permission changes (``team_membership.*``,
      ``team_permission.*``) re-evaluate the user's ``is_staff`` / ``is_superuser`` under
      ``STAFF_PERMISSION`` / ``SUPERUSER_PERMISSION`` (``rules``, by default those settings),
      so a revoked admin loses the Django admin without signing in again; ``team.deleted``
      re-evaluates every linked user who holds one of the flags (the service sends no
      membership events for a deleted team's members).

    A user never linked (who never signed in to this app) is left alone. Returns ``webhooks``."""
    if on_delete not in ON_DELETE:
        raise ImproperlyConfigured(f"keep_linked_users(on_delete=...) is 'deactivate' or 'delete', not {on_delete!r}.")

    servers = [server] if server is not None else []
    known_rules = [rules] if rules is not None else []

    def server_app() -> ServerApp:
        if not servers:
            from ._settings import load

            servers.append(load().team_server())
        return servers[0]

    def flag_rules() -> LinkedUsers:
        if not known_rules:
            from ._settings import load

            known_rules.append(load().linked or LinkedUsers())
        return known_rules[0]

    def linked(authmw_user_id: str) -> Any:
        from .models import AuthmwUserLink

        link = AuthmwUserLink.objects.select_related("user").filter(authmw_user_id=authmw_user_id).first()
        return None if link is None else link.user

    @webhooks.on("user.updated")
    def user_updated(event: UserUpdated) -> None:
        if linked(event.data.id) is None:
            return
        email = verified_email(server_app(), event.data)  # asks the service: outside the transaction
        with transaction.atomic():
            user = linked(event.data.id)
            if user is not None and (changed := _sync(user, get_user_model(), event.data, email)):
                user.save(update_fields=changed)

    @webhooks.on("user.deleted")
    def user_deleted(event: UserDeleted) -> None:
        with transaction.atomic():
            user = linked(event.data.id)
            if user is None:
                return
            if on_delete == "delete":
                user.delete()
            elif getattr(user, "is_active", False):
                user.is_active = False
                user.save(update_fields=["is_active"])

    def refresh_flags(authmw_user_id: str) -> None:
        current = flag_rules()
        if (current.staff is None and current.superuser is None) or linked(authmw_user_id) is None:
            return
        try:
            flags = granted_flags(current, server_app(), authmw_user_id)  # asks the service: outside the transaction
        except UserNotFound:
            return  # deleted at the service: its user.deleted event follows
        with transaction.atomic():
            user = linked(authmw_user_id)
            if user is not None and (changed := set_flags(user, flags)):
                user.save(update_fields=changed)

    @webhooks.on("team_membership.created")
    @webhooks.on("team_membership.deleted")
    @webhooks.on("team_permission.created")
    @webhooks.on("team_permission.deleted")
    def team_access_changed(
        event: TeamMembershipCreated | TeamMembershipDeleted | TeamPermissionCreated | TeamPermissionDeleted,
    ) -> None:
        refresh_flags(event.data.user_id)

    @webhooks.on("team.deleted")
    def team_deleted(event: TeamDeleted) -> None:
        from django.db.models import Q

        from .models import AuthmwUserLink

        flagged = Q()
        for field in ("is_staff", "is_superuser"):
            if hasattr(get_user_model(), field):
                flagged |= Q(**{f"user__{field}": True})
        if not flagged:
            return
        for authmw_user_id in AuthmwUserLink.objects.filter(flagged).values_list("authmw_user_id", flat=True):
            refresh_flags(authmw_user_id)

    return webhooks
