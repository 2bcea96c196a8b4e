"""The Django receiver of the service's webhooks (:class:`authmw.webhooks.Webhooks`).

::

    from authmw.webhooks import Webhooks
    from authmw_django.webhooks import webhook_view

    webhooks = Webhooks(secret=settings.AUTHMW_WEBHOOK_SECRET)

    urlpatterns = [path("webhooks/authmw", webhook_view(webhooks))]
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from authmw.webhooks import Webhooks


def webhook_view(webhooks: Webhooks) -> Callable[[HttpRequest], HttpResponse]:
    """A POST-only view, exempt from CSRF (the Svix signature authenticates the sender
    instead): verifies each delivery against the raw body, runs the sync handlers registered
    with ``@webhooks.on(...)`` and answers 200 only once they succeeded."""

    def receive(request: HttpRequest) -> HttpResponse:
        handled = webhooks.handle(request.body, dict(request.headers))
        return JsonResponse(handled.body, status=handled.status)

    view: Callable[[HttpRequest], HttpResponse] = csrf_exempt(require_POST(receive))
    return view
