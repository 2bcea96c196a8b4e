"""The built React app served by Django (logic: authmw._web_build)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.urls import URLPattern, re_path

from authmw.adapter import WebBuild

__all__ = ["web_urls"]


def web_urls(
    dist: str | Path,
    *,
    api_prefixes: Iterable[str] = ("/api",),
    server_paths: Iterable[str] = (),
    index_html: Callable[[str], str] | None = None,
) -> list[URLPattern]:
    """URL patterns to put last in ``urlpatterns``: the files of ``dist`` (hashed assets cached
    for good, index.html never) and index.html for every other page path; paths under
    ``api_prefixes`` / ``server_paths`` are never the build's (a 404 when no view answers)."""
    build = WebBuild(dist, api_prefixes=api_prefixes, server_paths=server_paths, index_html=index_html)

    def web(request: HttpRequest, path: str = "") -> HttpResponseBase:
        found = build.answer(request.path, request.method or "GET")
        if found is None:
            return HttpResponse("Not Found", status=404, content_type="text/plain")
        if found.body is not None:
            response: HttpResponseBase = HttpResponse(found.body, content_type=found.content_type)
        else:
            response = FileResponse(found.path.open("rb"), content_type=found.content_type)
        for name, value in found.headers.items():
            response[name] = value
        return response

    return [re_path(r"^(?P<path>.*)$", web, name="authmw_web")]
