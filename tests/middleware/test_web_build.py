"""The built React app served by FastAPI/Starlette (authmw_fastapi.web_routes) and the core's
decisions (authmw.adapter.WebBuild): hashed assets cached for good, index.html never, index.html
for every page path, and never for /api or the app's server routes, nor outside the build."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_build_support import INDEX, check_served, fastapi_client, make_dist

from authmw.adapter import WebBuild


def test_fastapi_serves_the_build_with_its_cache_headers_beside_the_api(tmp_path: Path) -> None:
    check_served(fastapi_client(make_dist(tmp_path)))


def test_a_missing_build_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="npm run build"):
        WebBuild(tmp_path)


def test_only_get_and_head_and_the_reserved_prefixes_are_whole_segments(tmp_path: Path) -> None:
    build = WebBuild(make_dist(tmp_path))
    assert build.answer("/handler/sign-in", "POST") is None
    assert build.answer("/handler/sign-in", "HEAD") is not None
    assert build.answer("/apiary") is not None  # a page, not under /api
    assert build.answer("/api/x") is None and build.answer("/api") is None
    for outside in ("/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt", "/..%5csecret.txt"):
        assert build.answer(outside) is None, outside
    assert (tmp_path / "secret.txt").is_file()  # the control: it is there, one folder up
    found = build.answer("/index.html")
    assert found is not None and found.body == INDEX.encode()
