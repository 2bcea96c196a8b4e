"""Serving a built single-page app (Vite's ``dist/``) from the app's own server, without a web
framework: which file answers a path, and with which cache headers.

- ``assets/...`` (Vite's content-hashed files): cached for a year, ``immutable``.
- ``index.html``, and every page path without a file (``/handler/sign-in``, ``/teams/3``):
  ``index.html`` with ``no-cache`` (a new deploy shows at once).
- Other files of the build (``favicon.svg``, ``robots.txt``): ``no-cache`` (revalidated).
- Never: a path under an API prefix (``/api``) or a server route the app names (the
  server-rendered OAuth routes), a missing file with an extension (``/assets/gone.js`` is a 404,
  not a page), a path leading out of the build folder, a method other than GET and HEAD.

Each adapter (authmw_fastapi, authmw_flask, authmw_django, authmw_quart) turns a request path
into :meth:`WebBuild.answer` and a :class:`WebFile` into its file response.
"""

from __future__ import annotations

import mimetypes
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

__all__ = ["IMMUTABLE", "REVALIDATE", "WebBuild", "WebFile"]

#: Content-hashed assets: the name changes with the content.
IMMUTABLE = "public, max-age=31536000, immutable"
#: index.html and the build's other files: asked again on every use.
REVALIDATE = "no-cache"


@dataclass(frozen=True)
class WebFile:
    """What answers a path: a file of the build, or the text of index.html (``body``)."""

    path: Path
    content_type: str
    cache_control: str
    body: bytes | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"cache-control": self.cache_control, "x-content-type-options": "nosniff"}


class WebBuild:
    """The built app in ``dist``. ``api_prefixes``: paths the server's API answers (``/api``);
    ``server_paths``: more prefixes of the server's own routes (e.g. ``/handler/oauth``).
    ``index_html`` changes index.html's text once (e.g. to put the browser's settings in it)."""

    def __init__(
        self,
        dist: str | Path,
        *,
        api_prefixes: Iterable[str] = ("/api",),
        server_paths: Iterable[str] = (),
        index_html: Callable[[str], str] | None = None,
        assets_dir: str = "assets",
    ) -> None:
        self.dist = Path(dist).resolve()
        index = self.dist / "index.html"
        if not index.is_file():
            raise FileNotFoundError(
                f"{index} is missing: build the app first (`npm run build` writes dist/), or pass the folder that holds index.html"
            )
        text = index.read_text(encoding="utf-8")
        self.index = WebFile(
            index, "text/html; charset=utf-8", REVALIDATE, (index_html(text) if index_html else text).encode()
        )
        self.assets_dir = assets_dir.strip("/")
        self.reserved = tuple(_prefix(p) for p in (*api_prefixes, *server_paths))

    def reserves(self, path: str) -> bool:
        """Whether ``path`` belongs to the server (API or server routes), never to the build."""
        return any(path == prefix or path.startswith(prefix + "/") for prefix in self.reserved)

    def answer(self, path: str, method: str = "GET") -> WebFile | None:
        """What answers ``path`` (the URL's path, percent-encoded or not); None: a 404."""
        if method not in ("GET", "HEAD"):
            return None
        path = "/" + unquote(path).lstrip("/")
        if "\x00" in path or "\\" in path or self.reserves(posixpath.normpath(path)):
            return None
        parts = [part for part in path.split("/") if part]
        if any(part in (".", "..") for part in parts):
            return None
        if not parts or parts == ["index.html"]:
            return self.index
        file = self.dist.joinpath(*parts)
        if file.is_file() and file.resolve().is_relative_to(self.dist):
            cache = IMMUTABLE if parts[0] == self.assets_dir and len(parts) > 1 else REVALIDATE
            content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            return WebFile(file, content_type, cache)
        if "." in parts[-1] or parts[0] == self.assets_dir:
            return None  # a missing file, not a page
        return self.index


def _prefix(path: str) -> str:
    return "/" + path.strip("/")
