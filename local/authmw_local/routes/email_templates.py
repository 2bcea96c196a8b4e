"""E-mail templates (service-api A5.10, admin); API 2.7 only (2.8 removed them: service-api B14.4)."""

from __future__ import annotations

from typing import Any

from ..api_version import ApiVersion
from ..email_templates import DEFAULT_SUBJECTS, save_template, template
from ..endpoint import ADMIN, EndpointGroup, RequestContext
from ..errors import PlainError
from ..schema import Json, Obj, Str

group = EndpointGroup()


def _has_templates(api: ApiVersion) -> bool:
    return api.email_templates


TYPE_PATH = Obj({"type": Str(required=True, one_of=tuple(DEFAULT_SUBJECTS))})


@group.get("/email-templates", tiers=ADMIN, when=_has_templates)
def list_templates(ctx: RequestContext) -> dict[str, Any]:
    return {"items": [template(ctx.sql, ctx.project.id, kind) for kind in DEFAULT_SUBJECTS], "is_paginated": False}


@group.get("/email-templates/{type}", tiers=ADMIN, params=TYPE_PATH, when=_has_templates)
def get_template(ctx: RequestContext) -> dict[str, Any]:
    return template(ctx.sql, ctx.project.id, ctx.params["type"])


@group.patch(
    "/email-templates/{type}",
    tiers=ADMIN,
    params=TYPE_PATH,
    body=Obj({"content": Json(), "subject": Str()}, required=True),
    when=_has_templates,
)
def update_template(ctx: RequestContext) -> dict[str, Any]:
    kind = ctx.params["type"]
    current = template(ctx.sql, ctx.project.id, kind)
    content = ctx.body.get("content", current["content"])
    if not isinstance(content, dict) or not isinstance(content.get("type"), str):
        raise PlainError(400, "Invalid email template content")
    save_template(ctx.sql, ctx.project.id, kind, ctx.body.get("subject", current["subject"]), content)
    return template(ctx.sql, ctx.project.id, kind)


@group.delete("/email-templates/{type}", tiers=ADMIN, params=TYPE_PATH, when=_has_templates)
def reset_template(ctx: RequestContext) -> dict[str, bool]:
    deleted = ctx.sql.execute(
        "DELETE FROM email_templates WHERE project_id = ? AND type = ?", (ctx.project.id, ctx.params["type"])
    ).rowcount
    if not deleted:
        raise PlainError(404, "Email template not found")
    return {"success": True}


routes = group.routes
