"""Key sets (service-api A3.3; 2.8: service-api B3.2).

2.7: one key per project under /api/v1, and the legacy global key at the server root.
2.8: two keys per audience, `include_restricted` / `include_anonymous`, the anonymous issuer's
OIDC-discovery alias; no key set at the server root.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..api_version import ANONYMOUS, RESTRICTED, USER
from ..endpoint import NOT_FOUND_TEXT, EndpointGroup, RequestContext
from ..errors import PlainError
from ..projects import get_project
from ..responses import json_response
from ..schema import Obj, Str

group = EndpointGroup()

JWKS_QUERY = Obj(
    {
        "include_restricted": Str(one_of=("true", "false")),
        "include_anonymous": Str(one_of=("true", "false")),
    }
)
#: 2.8 publishes the key set for an hour (3.2).
JWKS_CACHE_CONTROL = "public, max-age=3600"


@group.get("/projects/{project_id}/.well-known/jwks.json", tiers=None)
def project_jwks(ctx: RequestContext) -> Any:
    project_id = ctx.params["project_id"]
    if not ctx.api.jwks_per_audience:
        if get_project(ctx.sql, project_id) is None:
            raise PlainError(404, "Project not found")
        return {"keys": ctx.service.tokens.jwks(project_id)}
    query = ctx.validate(JWKS_QUERY, dict(ctx.request.query_params), "query") or {}
    if get_project(ctx.sql, project_id) is None:
        raise PlainError(404, "Project not found")
    kinds: tuple[str, ...] = (USER,)
    if query.get("include_anonymous") == "true":
        kinds = (USER, RESTRICTED, ANONYMOUS)
    elif query.get("include_restricted") == "true":
        kinds = (USER, RESTRICTED)
    return json_response(
        {"keys": ctx.service.tokens.jwks(project_id, kinds)}, headers={"cache-control": JWKS_CACHE_CONTROL}
    )


def _absent(request: Request) -> Response:
    return Response(NOT_FOUND_TEXT.format(url=str(request.url)), 404, media_type="text/plain")


async def anonymous_issuer_alias(request: Request) -> Response:
    """`/api/v1/projects-anonymous-users/{id}/.well-known/...` (any method, 2.8 only): the same
    path under `/projects/` with `include_anonymous=true`."""
    if not request.app.state.service.api.jwks_per_audience:
        return _absent(request)
    project_id = request.path_params["project_id"]
    rest = request.path_params["rest"]
    query = dict(request.query_params)
    query["include_anonymous"] = "true"
    target = f"/api/v1/projects/{project_id}/.well-known/{rest}?{urlencode(query)}"
    return RedirectResponse(target, status_code=307)


async def legacy_jwks(request: Request) -> Response:
    service = request.app.state.service
    if not service.api.root_jwks:
        return Response("Not found", 404, media_type="text/plain")
    key = await run_in_threadpool(service.keys.global_key)
    return json_response(
        {
            "keys": [key.jwk()],
            "message": "This is deprecated. Please use the project-specific JWKS endpoint"
            " /api/v1/projects/<project_id>/.well-known/jwks.json instead.",
        }
    )


ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]

routes = [
    *group.routes,
    Route(
        "/api/v1/projects-anonymous-users/{project_id}/.well-known/{rest:path}",
        anonymous_issuer_alias,
        methods=ALL_METHODS,
    ),
    Route("/.well-known/jwks.json", legacy_jwks, methods=["GET"]),
]
