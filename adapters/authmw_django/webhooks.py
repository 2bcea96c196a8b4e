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

from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from authmw import ServerApp
from authmw.webhooks import UserDeleted, UserUpdated, Webhooks

from ._linked import _sync, verified_email

ON_DELETE = ("deactivate", "delete")


def webhook_view(webhooks: Webhooks) -> Callable[[HttpRequest], HttpResponse]:
    """A POST-only view, exempt from CSRF (the Svix signature authenticates the sender
    instead): verifies each delivery against the raw body, runs the sync handlers registered
    with ``@webhooks.on(...)`` and answers 200 only once they succeeded."""

    def receive(request: HttpRequest) -> HttpResponse:
        handled = webhooks.handle(request.body, dict(request.headers))
        return JsonResponse(handled.body, status=handled.status)

    view: Callable[[HttpRequest], HttpResponse] = csrf_exempt(require_POST(receive))
    return view


def keep_linked_users(
    webhooks: Webhooks, *, on_delete: str = "deactivate", server: ServerApp | None = None
) -> Webhooks:
    """Handlers for linked Django users, found by their link to the authmw user id (never by
    e-mail): ``user.updated`` writes the name, and the e-mail when the linking rule allows it
    (verified, held by no other authmw user: asked through ``server``, by default the server
    app of the ``AUTHMW`` settings), as a sign-in does; and
    ``user.deleted`` deactivates the linked user (``is_active = False``: Django's session and
    ``login_required`` no longer accept it, its rows and foreign keys stay) or, with
    ``on_delete="delete"``, deletes it (and what cascades from it). A user never linked (who
    never signed in to this app) is left alone. Returns ``webhooks``."""
    if on_delete not in ON_DELETE:
        raise ImproperlyConfigured(f"keep_linked_users(on_delete=...) is 'deactivate' or 'delete', not {on_delete!r}.")

    servers = [server] if server is not None else []

    def server_app() -> ServerApp:
        if not servers:
            from ._settings import load

            servers.append(load().team_server())
        return servers[0]

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

    return webhooks
