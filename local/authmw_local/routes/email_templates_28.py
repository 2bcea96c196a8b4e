"""API 2.8's e-mail templates and themes under /internal (admin; service-api B14.4).

    GET    /internal/email-templates          {templates: [{id, display_name, tsx_source, theme_id?}]}
    POST   /internal/email-templates          {display_name} -> {id}
    PATCH  /internal/email-templates/{id}     {tsx_source, theme_id?} -> {rendered_html}
    DELETE /internal/email-templates/{id}     -> {}  (a built-in template returns to its shipped source)
    GET    /internal/email-themes             {themes: [{id, display_name}]}
    POST   /internal/email-themes             {display_name} -> {id}
    GET    /internal/email-themes/{id}        {id, display_name, tsx_source}
    PATCH  /internal/email-themes/{id}        {tsx_source} -> {display_name}
    POST   /emails/render-email               a template (id or source) in a theme (id or source)
                                              -> {html, subject?, notification_category?}

Also served under /api/latest. Changing templates needs the project's own e-mail server, as on the service
(REQUIRES_CUSTOM_EMAIL_SERVER); a source that does not render is EMAIL_RENDERING_ERROR.
"""

from __future__ import annotations

from typing import Any

from ..api_version import ApiVersion
from ..email_templates_28 import (
    DEFAULT_THEME_ID,
    Template,
    Theme,
    check_theme_source,
    delete_template,
    find_template,
    find_theme,
    new_template,
    new_theme_source,
    preview,
    rendering_error,
    save_template,
    save_theme,
    templates,
    theme_source_for,
    themes,
    valid_theme_id,
)
from ..endpoint import ADMIN, EndpointGroup, RequestContext, also_at_latest
from ..errors import CatalogueError, PlainError, schema_error
from ..ids import new_uuid
from ..schema import Bool, Json, Obj, Str, Uuid
from ..tsx_render import TsxError, render

group = EndpointGroup()


def _is_28(api: ApiVersion) -> bool:
    return not api.email_templates


def _require_own_server(ctx: RequestContext) -> None:
    if ctx.project.config["email_config"].get("type") == "shared":
        raise CatalogueError("REQUIRES_CUSTOM_EMAIL_SERVER")


def project_theme(ctx: RequestContext) -> str:
    return str(ctx.project.config.get("email_theme") or DEFAULT_THEME_ID)


TEMPLATE_PATH = Obj({"templateId": Uuid(required=True)})
THEME_PATH = Obj({"id": Str(required=True)})
NAME_BODY = Obj({"display_name": Str(required=True)}, required=True)


@group.get("/internal/email-templates", tiers=ADMIN, when=_is_28)
def list_templates(ctx: RequestContext) -> dict[str, Any]:
    return {"templates": [t.view() for t in templates(ctx.sql, ctx.project.id)]}


@group.post("/internal/email-templates", tiers=ADMIN, body=NAME_BODY, when=_is_28)
def create_template(ctx: RequestContext) -> dict[str, Any]:
    _require_own_server(ctx)
    template = new_template(ctx.body["display_name"], new_uuid())
    save_template(ctx.sql, ctx.project.id, template)
    return {"id": template.id}


@group.patch(
    "/internal/email-templates/{templateId}",
    tiers=ADMIN,
    params=TEMPLATE_PATH,
    body=Obj({"tsx_source": Str(required=True), "theme_id": Json()}, required=True),
    when=_is_28,
)
def update_template(ctx: RequestContext) -> dict[str, Any]:
    theme_id = ctx.body.get("theme_id", "absent")
    if theme_id != "absent" and not valid_theme_id(theme_id):
        raise schema_error(ctx.request.method, ctx.request.url.path, ["body.theme_id is invalid"])
    _require_own_server(ctx)
    current = find_template(ctx.sql, ctx.project.id, ctx.params["templateId"])
    if current is None:
        raise PlainError(404, "No template found with given id")
    source = ctx.body["tsx_source"]
    rendered = preview(ctx.sql, ctx.project.id, ctx.project.display_name, source, project_theme(ctx))
    kept_theme = current.theme_id if theme_id == "absent" else theme_id
    save_template(ctx.sql, ctx.project.id, Template(current.id, current.display_name, source, kept_theme))
    return {"rendered_html": rendered.html}


@group.delete("/internal/email-templates/{templateId}", tiers=ADMIN, params=TEMPLATE_PATH, when=_is_28)
def remove_template(ctx: RequestContext) -> dict[str, Any]:
    _require_own_server(ctx)
    if not delete_template(ctx.sql, ctx.project.id, ctx.params["templateId"]):
        raise PlainError(404, "No template found with given id")
    return {}


@group.get("/internal/email-themes", tiers=ADMIN, when=_is_28)
def list_themes(ctx: RequestContext) -> dict[str, Any]:
    return {"themes": [{"id": t.id, "display_name": t.display_name} for t in themes(ctx.sql, ctx.project.id)]}


@group.post("/internal/email-themes", tiers=ADMIN, body=NAME_BODY, when=_is_28)
def create_theme(ctx: RequestContext) -> dict[str, Any]:
    theme = Theme(new_uuid(), ctx.body["display_name"], new_theme_source())
    save_theme(ctx.sql, ctx.project.id, theme)
    return {"id": theme.id}


def _theme(ctx: RequestContext) -> Theme:
    theme = find_theme(ctx.sql, ctx.project.id, ctx.params["id"])
    if theme is None:
        raise PlainError(404, "No theme found with given id")
    return theme


@group.get("/internal/email-themes/{id}", tiers=ADMIN, params=THEME_PATH, when=_is_28)
def get_theme(ctx: RequestContext) -> dict[str, Any]:
    theme = _theme(ctx)
    return {"id": theme.id, "display_name": theme.display_name, "tsx_source": theme.tsx_source}


@group.patch(
    "/internal/email-themes/{id}",
    tiers=ADMIN,
    params=THEME_PATH,
    body=Obj({"tsx_source": Str(required=True)}, required=True),
    when=_is_28,
)
def update_theme(ctx: RequestContext) -> dict[str, Any]:
    theme = _theme(ctx)
    check_theme_source(ctx.body["tsx_source"])
    save_theme(ctx.sql, ctx.project.id, Theme(theme.id, theme.display_name, ctx.body["tsx_source"]))
    return {"display_name": theme.display_name}


#: The four body shapes of the service's render call (a union): (required fields, optional ones).
RENDER_SHAPES = (
    (("template_id",), ("theme_id",)),
    (("template_id", "theme_tsx_source"), ()),
    (("template_tsx_source",), ("theme_id",)),
    (("template_tsx_source", "theme_tsx_source"), ()),
)
RENDER_OPTIONS = ("editable_markers", "editable_source")


def _check_render_union(ctx: RequestContext, body: dict[str, Any]) -> None:
    """Some shape must match, else each shape's problems in the service's words."""
    lines = ["body is not matched by any of the provided schemas:"]
    for number, (required, optional) in enumerate(RENDER_SHAPES):
        known = set(required) | set(optional) | set(RENDER_OPTIONS)
        problems = [f"body.{name} must be defined" for name in required if name not in body]
        if "theme_id" in optional and not valid_theme_id(body.get("theme_id")):
            problems.append("body.theme_id is invalid")
        # (listed in the order the request wrote them, as the service does)
        written = ctx.raw_body if isinstance(ctx.raw_body, dict) else body
        unknown = [name for name in written if name in body and name not in known]
        if unknown:
            problems.append(f"body contains unknown properties: {', '.join(unknown)}")
        if not problems:
            return
        lines.append(f"    Schema {number}:")
        lines += [f"      {problem}" for problem in problems]
    raise schema_error(ctx.request.method, ctx.request.url.path, ["\n".join(lines)])


@group.post(
    "/emails/render-email",
    tiers=ADMIN,
    body=Obj(
        {
            "template_id": Uuid(),
            "template_tsx_source": Str(),
            "theme_id": Json(),
            "theme_tsx_source": Str(),
            "editable_markers": Bool(),
            "editable_source": Str(one_of=("template", "theme", "both")),
        },
        required=True,
    ),
    when=_is_28,
)
def render_email(ctx: RequestContext) -> dict[str, Any]:
    """Render a template in a theme for the editor's preview (its PreviewVariables, a sample
    user). The local service has no editable markers: `editable_regions` is never answered."""
    body = ctx.body
    _check_render_union(ctx, body)
    theme_id = body.get("theme_id", "absent")
    if "theme_tsx_source" in body:
        theme_source: str | None = body["theme_tsx_source"]
    else:
        if isinstance(theme_id, str) and find_theme(ctx.sql, ctx.project.id, theme_id) is None:
            raise PlainError(400, "No theme found with given id")
        theme_source = theme_source_for(ctx.sql, ctx.project.id, theme_id, project_theme(ctx))
    if "template_tsx_source" in body:
        source = body["template_tsx_source"]
    else:
        template = find_template(ctx.sql, ctx.project.id, body["template_id"])
        if template is None:
            raise PlainError(400, "No template found with given id")
        source = template.tsx_source
    try:
        result = render(
            source,
            theme_source,
            user={"displayName": "John Doe"},
            project={"displayName": ctx.project.display_name},
            variables={"projectDisplayName": ctx.project.display_name},
            preview=True,
        )
    except TsxError as exc:
        raise rendering_error(exc) from None
    answer: dict[str, Any] = {"html": result.html}
    if result.subject is not None:
        answer["subject"] = result.subject
    if result.notification_category is not None:
        answer["notification_category"] = result.notification_category
    return answer


routes = also_at_latest(group.routes)  # Stack's suite calls the themes at /api/latest
