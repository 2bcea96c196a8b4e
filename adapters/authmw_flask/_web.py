"""The built React app served by Flask (logic: authmw._web_build)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from flask import Flask, Response, request, send_file

from authmw.adapter import WebBuild

__all__ = ["serve_web"]


def serve_web(
    app: Flask,
    dist: str | Path,
    *,
    api_prefixes: Iterable[str] = ("/api",),
    server_paths: Iterable[str] = (),
    index_html: Callable[[str], str] | None = None,
) -> None:
    """Serve the files of ``dist`` (hashed assets cached for good, index.html never) and
    index.html for every other page path; the app's own routes keep theirs (Flask matches the
    more specific rule first), and paths under ``api_prefixes`` / ``server_paths`` are never the
    build's."""
    build = WebBuild(dist, api_prefixes=api_prefixes, server_paths=server_paths, index_html=index_html)

    def web(path: str = "") -> Response:
        found = build.answer(request.path, request.method)
        if found is None:
            return Response("Not Found", status=404, mimetype="text/plain")
        if found.body is not None:
            return Response(found.body, content_type=found.content_type, headers=found.headers)
        response = send_file(found.path, mimetype=found.content_type, etag=True, conditional=True)
        response.headers.update(found.headers)
        return response

    app.add_url_rule("/", "authmw_web", web, methods=["GET"])
    app.add_url_rule("/<path:path>", "authmw_web", web, methods=["GET"])
