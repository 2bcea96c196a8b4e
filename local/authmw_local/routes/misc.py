"""Health check, the API root text and feature/version probes (service-api A1.1, A5.13)."""

from __future__ import annotations

import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..endpoint import EndpointGroup, RequestContext
from ..responses import json_response
from ..schema import Json, Obj, Str
from ..service import Service
from ..users import primary_email_channel

WELCOME = "Welcome to the Stack API endpoint! Please refer to the documentation at https://docs.stack-auth.com."

#: The Stack Auth version whose API the local service speaks.
SERVICE_VERSION = (2, 7, 16)

group = EndpointGroup()


@group.get("/", tiers=None, query=Obj({}))
def api_root(ctx: RequestContext) -> str:
    if ctx.auth is None:
        return f"{WELCOME}\n\nAuthentication: None"
    user = "None"
    if ctx.user is not None:
        channel = primary_email_channel(ctx.sql, ctx.project.id, ctx.user["id"])
        user = channel["value"] if channel else ctx.user["id"]
    indent = " " * ctx.api.root_text_indent
    tier = ctx.auth.tier.capitalize()
    return f"{WELCOME}\n\nAuthentication: {tier}\n{indent}Project: {ctx.project.id}\n{indent}User: {user}"


@group.post("/check-feature-support", tiers=None, body=Json())
def check_feature_support(ctx: RequestContext) -> str:
    name = ctx.raw_body.get("feature_name") if isinstance(ctx.raw_body, dict) else None
    feature = name if isinstance(name, str) and name else "This feature"
    return f"{feature} is not yet supported. Please reach out to Stack support for more information."


@group.post("/check-version", tiers=None, body=Obj({"clientVersion": Str(required=True)}, required=True))
def check_version(ctx: RequestContext) -> dict[str, Any]:
    given = ctx.body["clientVersion"]
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", given)
    if match is None:
        return {"upToDate": False, "error": f"The client version {given!r} is not a valid version.", "severe": True}
    version = tuple(int(part) for part in match.groups())
    if version >= SERVICE_VERSION:
        return {"upToDate": True}
    service = ".".join(map(str, SERVICE_VERSION))
    return {
        "upToDate": False,
        "error": f"The client version {given} is older than the service version {service}. Please update.",
        "severe": version[:2] != SERVICE_VERSION[:2],
    }


def _touch_database(service: Service) -> None:
    with service.db.tx() as c:
        c.execute("SELECT 1").fetchone()


async def health(request: Request) -> Response:
    if request.query_params.get("db"):
        await run_in_threadpool(_touch_database, request.app.state.service)
    return json_response({"status": "ok"})


routes = [*group.routes, Route("/health", health, methods=["GET"])]
