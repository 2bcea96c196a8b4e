"""Webhooks of the local service (webhooks.py): endpoints per project, and what was sent.

Admin tier (the project's super secret admin key), a local addition: the hosted service keeps
endpoints in its Svix app portal instead.

    GET    /api/v1/internal/webhook-endpoints         {"items": [{"id", "url", "secret", "created_at_millis"}]}
    POST   /api/v1/internal/webhook-endpoints         {"url", "secret"?} -> 201 the endpoint (its whsec_ secret)
    DELETE /api/v1/internal/webhook-endpoints/{id}    {"success": true}

Outside /api, like the mailbox: `GET /dev/webhook-messages[?project_id=]` (JSON, newest first,
payloads but never secrets) and `GET /dev/webhooks` (the same as a page).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..endpoint import ADMIN, EndpointGroup, RequestContext
from ..errors import PlainError
from ..responses import Created, json_response
from ..schema import Obj, Str, Uuid
from ..service import Service
from ..webhooks import add_endpoint, delete_endpoint, list_endpoints, messages
from ..webhooks_page import messages_page
from .mailbox import HEADERS

group = EndpointGroup()


@group.get("/internal/webhook-endpoints", tiers=ADMIN, query=Obj({}))
def list_all(ctx: RequestContext) -> dict[str, Any]:
    return {"items": list_endpoints(ctx.sql, ctx.project.id), "is_paginated": False}


@group.post(
    "/internal/webhook-endpoints",
    tiers=ADMIN,
    query=Obj({}),
    body=Obj({"url": Str(required=True, url=True), "secret": Str(min_length=7)}, required=True),
)
def create(ctx: RequestContext) -> Created:
    url: str = ctx.body["url"]
    if not url.startswith(("http://", "https://")):
        raise PlainError(400, "A webhook endpoint URL must be http:// or https://.")
    secret = ctx.body.get("secret")
    if secret is not None and not secret.startswith("whsec_"):
        raise PlainError(400, "A webhook secret must start with whsec_ followed by base64 (or leave it out).")
    return Created(add_endpoint(ctx.sql, ctx.project.id, url, secret))


@group.delete(
    "/internal/webhook-endpoints/{endpoint_id}",
    tiers=ADMIN,
    query=Obj({}),
    params=Obj({"endpoint_id": Uuid(required=True)}),
)
def delete(ctx: RequestContext) -> dict[str, bool]:
    if not delete_endpoint(ctx.sql, ctx.project.id, ctx.params["endpoint_id"]):
        raise PlainError(404, "No webhook endpoint with this id in this project.")
    return {"success": True}


def _read(service: Service, project_id: str | None) -> list[dict[str, Any]]:
    with service.db.tx() as c:
        return messages(c, project_id)


async def read_messages(request: Request) -> Response:
    items = await run_in_threadpool(_read, request.app.state.service, request.query_params.get("project_id"))
    return json_response({"items": items})


async def page(request: Request) -> Response:
    items = await run_in_threadpool(_read, request.app.state.service, request.query_params.get("project_id"))
    return HTMLResponse(messages_page(items), headers=HEADERS)


routes = [
    Route("/dev/webhook-messages", read_messages, methods=["GET"]),
    Route("/dev/webhooks", page, methods=["GET"]),
    *group.routes,
]
