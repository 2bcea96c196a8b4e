"""Response helpers shared by every route."""

from __future__ import annotations

import json
from collections.abc import Mapping
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


def success() -> dict[str, bool]:
    return {"success": True}
