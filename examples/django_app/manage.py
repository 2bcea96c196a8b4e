#!/usr/bin/env python
"""The Django example: ``python examples/django_app/manage.py runserver`` (WSGI), or
``uvicorn --app-dir examples/django_app example_site.asgi:application`` (ASGI)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
