"""API 2.8's e-mail drafts under /internal (admin; service-api B14.4).

    GET    /internal/email-drafts          {drafts: [{id, display_name, tsx_source, theme_id?, sent_at_millis}]}
    POST   /internal/email-drafts          {display_name, theme_id?, tsx_source?} -> {id}
    GET    /internal/email-drafts/{id}     {id, display_name, tsx_source, theme_id?, sent_at_millis}
    PATCH  /internal/email-drafts/{id}     {display_name?, theme_id?, tsx_source?} -> {ok: "ok"}
    DELETE /internal/email-drafts/{id}     -> {ok: "ok"}

As on the service, sources are not rendered when stored (`send-email` renders them); an unknown
id is a plain 404 `No draft found with given id`.
"""

from __future__ import annotations

from typing import Any

from ..email_drafts import Draft, create_draft, delete_draft, drafts, find_draft, update_draft
from ..email_templates_28 import valid_theme_id
from ..endpoint import ADMIN, EndpointGroup, RequestContext, also_at_latest
from ..errors import PlainError, schema_error
from ..schema import Json, Obj, Str, Uuid
from .email_templates_28 import _is_28

group = EndpointGroup()

DRAFT_PATH = Obj({"draft_id": Uuid(required=True)})


def _theme_id(ctx: RequestContext) -> Any:
    """The body's `theme_id`: a theme's UUID, false, null or absent (None)."""
    theme_id = ctx.body.get("theme_id")
    if not valid_theme_id(theme_id):
        raise schema_error(ctx.request.method, ctx.request.url.path, ["body.theme_id is invalid"])
    return theme_id


def _draft(ctx: RequestContext) -> Draft:
    draft = find_draft(ctx.sql, ctx.project.id, ctx.params["draft_id"])
    if draft is None:
        raise PlainError(404, "No draft found with given id")
    return draft


@group.get("/internal/email-drafts", tiers=ADMIN, when=_is_28)
def list_drafts(ctx: RequestContext) -> dict[str, Any]:
    return {"drafts": [d.view() for d in drafts(ctx.sql, ctx.project.id)]}


@group.post(
    "/internal/email-drafts",
    tiers=ADMIN,
    body=Obj({"display_name": Str(required=True), "theme_id": Json(), "tsx_source": Str()}, required=True),
    when=_is_28,
)
def create(ctx: RequestContext) -> dict[str, Any]:
    theme_id = _theme_id(ctx)
    draft_id = create_draft(ctx.sql, ctx.project.id, ctx.body["display_name"], theme_id, ctx.body.get("tsx_source"))
    return {"id": draft_id}


@group.get("/internal/email-drafts/{draft_id}", tiers=ADMIN, params=DRAFT_PATH, when=_is_28)
def get(ctx: RequestContext) -> dict[str, Any]:
    return _draft(ctx).view()


@group.patch(
    "/internal/email-drafts/{draft_id}",
    tiers=ADMIN,
    params=DRAFT_PATH,
    body=Obj({"display_name": Str(), "theme_id": Json(), "tsx_source": Str()}, required=True),
    when=_is_28,
)
def update(ctx: RequestContext) -> dict[str, Any]:
    _theme_id(ctx)
    update_draft(ctx.sql, ctx.project.id, _draft(ctx), ctx.body)
    return {"ok": "ok"}


@group.delete("/internal/email-drafts/{draft_id}", tiers=ADMIN, params=DRAFT_PATH, when=_is_28)
def remove(ctx: RequestContext) -> dict[str, Any]:
    if not delete_draft(ctx.sql, ctx.project.id, _draft(ctx).id):
        raise PlainError(404, "No draft found with given id")
    return {"ok": "ok"}


routes = also_at_latest(group.routes)
