"""The built React app served by Quart (the checks: tests/web_build_support.py)."""

from __future__ import annotations

from pathlib import Path

from web_build_support import check_served, make_dist, quart_client


def test_quart_serves_the_build_with_its_cache_headers_beside_the_api(tmp_path: Path) -> None:
    check_served(quart_client(make_dist(tmp_path)))
