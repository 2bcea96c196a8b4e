"""authmw_django's migrations describe its models exactly: a model changed without a migration
would leave users' databases without the column (or table) the code reads."""

from __future__ import annotations

import io

from django.core.management import call_command


def test_models_and_migrations_agree() -> None:
    out = io.StringIO()
    call_command("makemigrations", "authmw_django", "--check", "--dry-run", stdout=out)  # SystemExit(1) when not
    assert "No changes detected" in out.getvalue()
