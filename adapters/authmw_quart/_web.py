"""The built React app served by Quart (logic: authmw._web_build)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from quart import Quart, Response, request, send_file

from authmw.adapter import WebBuild

__all__ = ["serve_web"]


def serve_web(
    app: Quart,
    dist: str | Path,
    *,
    api_prefixes: Iterable[str] = ("/api",),
    server_paths: Iterable[str] = (),
    index_html: Callable[[str], str] | None = None,
) -> None:
    """As ``authmw_flask.serve_web``: the files of ``dist`` with their cache headers, index.html
    for every other page path, never a path under ``api_prefixes`` / ``server_paths``."""
    build = WebBuild(dist, api_prefixes=api_prefixes, server_paths=server_paths, index_html=index_html)

    async def web(path: str = "") -> Response:
        found = build.answer(request.path, request.method)
        if found is None:
            return Response("Not Found", status=404, mimetype="text/plain")
        if found.body is not None:
            return Response(found.body, content_type=found.content_type, headers=found.headers)
        response = await send_file(found.path, mimetype=found.content_type, conditional=True)
        response.headers.update(found.headers)
        return response

    app.add_url_rule("/", "authmw_web", web, methods=["GET"])
    app.add_url_rule("/<path:path>", "authmw_web", web, methods=["GET"])
