"""Key sets: per project under /api/v1, and the legacy global one at the server root (3.3)."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..endpoint import EndpointGroup, RequestContext
from ..errors import PlainError
from ..projects import get_project
from ..responses import json_response

group = EndpointGroup()


@group.get("/projects/{project_id}/.well-known/jwks.json", tiers=None)
def project_jwks(ctx: RequestContext) -> dict[str, Any]:
    project_id = ctx.params["project_id"]
    if get_project(ctx.sql, project_id) is None:
        raise PlainError(404, "Project not found")
    return {"keys": [ctx.service.keys.for_project(project_id).jwk()]}


async def legacy_jwks(request: Request) -> Response:
    key = await run_in_threadpool(request.app.state.service.keys.global_key)
    return json_response(
        {
            "keys": [key.jwk()],
            "message": "This is deprecated. Please use the project-specific JWKS endpoint"
            " /api/v1/projects/<project_id>/.well-known/jwks.json instead.",
        }
    )


routes = [*group.routes, Route("/.well-known/jwks.json", legacy_jwks, methods=["GET"])]
