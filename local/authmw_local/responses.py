"""Response helpers shared by every route."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from starlette.responses import Response

JSON_TYPE = "application/json; charset=utf-8"


def json_response(
    data: Any, status: int = 200, *, headers: Mapping[str, str] | None = None, indent: bool = False
) -> Response:
    text = json.dumps(data, indent=2 if indent else None, separators=None if indent else (",", ":"))
    return Response(text, status, headers=dict(headers or {}), media_type=JSON_TYPE)


class Created:
    """Return `Created(body)` from a handler for a CRUD create (201)."""

    __slots__ = ("body",)

    def __init__(self, body: Any) -> None:
        self.body = body


class AfterCommit:
    """Return `AfterCommit(fn)` from a handler to answer with `fn()`, run once the request's
    transaction is over (for slow work such as network calls that must not hold the database)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
