"""``manage.py authmw_link_users [--apply]``: link existing Django users to authmw users."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from authmw import ServerApp
from authmw.adapter import EmailLinkRefused, linkable_email

from ... import _settings


class Command(BaseCommand):
    help = (
        "Link each authmw user whose primary e-mail is verified, and held by no other authmw user, to "
        "the one existing Django user with that e-mail (case-insensitive) that is not linked yet. "
        "Prints the plan; writes nothing without --apply."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--apply", action="store_true", help="create the links (default: a dry run)")

    def handle(self, *args: Any, apply: bool = False, **options: Any) -> None:
        from ...models import AuthmwUserLink

        auth = _settings.load()
        if auth.linked is None:
            raise CommandError('Linking needs linked Django users: set AUTHMW["DJANGO_USERS"] = True.')
        server = ServerApp(auth.config)
        model = get_user_model()
        email_field = model.get_email_field_name()
        linked_authmw = set(AuthmwUserLink.objects.values_list("authmw_user_id", flat=True))
        linked_django = set(AuthmwUserLink.objects.values_list("user_id", flat=True))
        plan: list[tuple[str, Any]] = []
        counts = {
            "already linked": 0,
            "no or unverified e-mail": 0,
            "e-mail shared by several authmw users": 0,
            "no Django user": 0,
            "several Django users": 0,
        }
        for user in server.users.iter():
            if user.id in linked_authmw:
                counts["already linked"] += 1
                continue
            try:  # the one rule: verified at the service, and no other authmw user holds it
                email = linkable_email(server, user)
            except EmailLinkRefused as refused:
                if refused.reason == "shared":
                    counts["e-mail shared by several authmw users"] += 1
                    self.stderr.write(f"skip authmw user {user.id}: another authmw user holds its e-mail, verified")
                else:
                    counts["no or unverified e-mail"] += 1
                continue
            matches = list(model._default_manager.filter(**{f"{email_field}__iexact": email})[:2])
            if not matches:
                counts["no Django user"] += 1
            elif len(matches) > 1:
                counts["several Django users"] += 1
                self.stderr.write(f"skip authmw user {user.id}: {len(matches)} Django users have its e-mail")
            elif matches[0].pk in linked_django:
                counts["already linked"] += 1
            else:
                plan.append((user.id, matches[0]))
                linked_django.add(matches[0].pk)
                self.stdout.write(f"link authmw user {user.id} ({user.primary_email}) -> Django user {matches[0].pk}")
        if apply:
            with transaction.atomic():
                for authmw_id, django_user in plan:
                    AuthmwUserLink.objects.create(user=django_user, authmw_user_id=authmw_id)
        skipped = ", ".join(f"{n} {why}" for why, n in counts.items() if n)
        verb = "linked" if apply else "would link (dry run; --apply to write)"
        self.stdout.write(f"{len(plan)} {verb}" + (f"; skipped: {skipped}" if skipped else ""))
