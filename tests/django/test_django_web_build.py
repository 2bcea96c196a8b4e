"""The built React app served by Django (the checks: tests/web_build_support.py)."""

from __future__ import annotations

from pathlib import Path

from web_build_support import check_served, django_client, make_dist


def test_django_serves_the_build_with_its_cache_headers_beside_the_api(tmp_path: Path) -> None:
    check_served(django_client(make_dist(tmp_path)))
