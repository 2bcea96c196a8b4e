"""Views of an existing Django app: django.contrib.auth's request.user, login_required, a foreign key."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse

from .models import Note


def whoami(request: HttpRequest) -> JsonResponse:
    user = request.user
    authmw_user = request.authmw_user  # type: ignore[attr-defined]
    return JsonResponse(
        {
            "django_id": user.pk,
            "username": user.get_username() if user.is_authenticated else None,
            "authenticated": user.is_authenticated,
            "email": getattr(user, "email", None),
            "name": [getattr(user, "first_name", None), getattr(user, "last_name", None)],
            "staff": getattr(user, "is_staff", None),
            "superuser": getattr(user, "is_superuser", None),
            "authmw_id": authmw_user.id,
            "linked_to": getattr(getattr(user, "authmw_link", None), "authmw_user_id", None),
        }
    )


@login_required
def add_note(request: HttpRequest) -> JsonResponse:
    Note.objects.create(owner=request.user, text="hello")
    return JsonResponse(
        {"notes": request.user.notes.count(), "has_perm": request.user.has_perm("linked_testapp.add_note")}
    )
