"""The built React app served by FastAPI or Starlette (logic: authmw._web_build)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from authmw.adapter import WebBuild

__all__ = ["web_routes"]


def web_routes(
    dist: str | Path,
    *,
    api_prefixes: Iterable[str] = ("/api",),
    server_paths: Iterable[str] = (),
    index_html: Callable[[str], str] | None = None,
) -> list[Route]:
    """The files of ``dist`` (hashed assets cached for good, index.html never) and index.html
    for every other page path, as Starlette routes to add after the app's own:
    ``app.router.routes.extend(web_routes("web/dist"))``. Paths under ``api_prefixes`` and
    ``server_paths`` are never the build's: a 404 when no route of the app answers them."""
    build = WebBuild(dist, api_prefixes=api_prefixes, server_paths=server_paths, index_html=index_html)

    async def web(request: Request) -> Response:
        found = build.answer(request.url.path, request.method)
        if found is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        if found.body is not None:
            return Response(found.body, media_type=found.content_type, headers=found.headers)
        return FileResponse(found.path, media_type=found.content_type, headers=found.headers)

    return [Route("/{path:path}", web, methods=["GET", "HEAD"], name="authmw_web", include_in_schema=False)]
