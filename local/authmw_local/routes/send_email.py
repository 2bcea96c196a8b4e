"""`POST /emails/send-email` (API 2.8 only, service-api B11): e-mail from the server tier
to users' primary addresses, kept in the outbox (`GET /dev/mailbox`) and delivered through the
project's own SMTP server.

`html` is sent as given (with an unsubscribe line when its category can be turned off);
`template_id` (a template of `/internal/email-templates`) and `draft_id` (a draft of
`/internal/email-drafts`, marked sent) are rendered for each user by tsx_render.py in a theme, as
the service's e-mail queue renders them: the subject is `subject` or the template's `<Subject>`,
the category `notification_category_name` or the template's `<NotificationCategory>` (then the
mail is rendered twice: once to learn the category, once with the unsubscribe link it allows).
"""

from __future__ import annotations

import html as _html
import logging
import re
from dataclasses import dataclass
from typing import Any

from ..api_version import ApiVersion
from ..email_drafts import find_draft, mark_sent
from ..email_templates_28 import find_template, theme_source_for, valid_theme_id
from ..endpoint import SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError, schema_error
from ..ids import is_uuid
from ..mail import Mail, breaks_header_line, send_email
from ..notifications import TRANSACTIONAL, Category, category_by_name, is_enabled, unsubscribe_link
from ..schema import Arr, Bool, Json, Num, Obj, Str, Uuid
from ..tsx_render import Rendered, TsxError, render
from ..users import get_user, primary_email_channel
from .email_templates_28 import project_theme

logger = logging.getLogger("authmw_local.mail")
group = EndpointGroup()
KIND = "send_email"

BODY = Obj(
    {
        "user_ids": Arr(Str(required=True)),
        "all_users": Bool(only=True),
        "html": Str(),
        "template_id": Uuid(),
        "variables": Json(),
        "draft_id": Str(),
        "subject": Str(),
        "notification_category_name": Str(),
        "theme_id": Json(),
        "is_high_priority": Bool(),
        "scheduled_at_millis": Num(),
    },
    required=True,
)


def _has_send_email(api: ApiVersion) -> bool:
    return api.notification_preferences


def _text_of(html: str) -> str:
    """A plain-text part for the HTML body: tags dropped, entities decoded."""
    text = re.sub(r"<(br|/p|/h[1-6]|/div|/li)\b[^>]*>", "\n", html, flags=re.IGNORECASE)
    return _html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


#: The three body shapes of the service's schema (a union): one content field each.
CONTENT_FIELDS = ("html", "template_id", "draft_id")


def _check_union(ctx: RequestContext, body: dict[str, Any]) -> None:
    """The service's union schema: some shape must match, else every shape's problems, in its
    words (including its repeated unknown-property line)."""
    theme_ok = valid_theme_id(body.get("theme_id"))
    shapes = []
    for field in CONTENT_FIELDS:
        problems = [] if field in body else [f"body.{field} must be defined"]
        if not theme_ok:
            problems.append("body.theme_id is invalid")
        for other in CONTENT_FIELDS:
            if other != field and other in body:
                problems += [f"body contains unknown properties: {other}"] * 2
        if not problems:
            return
        shapes.append(problems)
    lines = ["body is not matched by any of the provided schemas:"]
    for number, problems in enumerate(shapes):
        lines.append(f"    Schema {number}:")
        lines += [f"      {problem}" for problem in problems]
    raise schema_error(ctx.request.method, ctx.request.url.path, ["\n".join(lines)])


@group.post("/emails/send-email", tiers=SERVER_OR_ADMIN, body=BODY, when=_has_send_email)
def send(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body
    _check_union(ctx, body)
    if ctx.project.config["email_config"].get("type") == "shared":
        raise CatalogueError("REQUIRES_CUSTOM_EMAIL_SERVER")
    if ("user_ids" in body) == ("all_users" in body):
        raise CatalogueError("SCHEMA_ERROR", message="Exactly one of user_ids or all_users must be provided")
    category = TRANSACTIONAL
    if "notification_category_name" in body:
        found = category_by_name(body["notification_category_name"])
        if found is None:
            raise PlainError(400, "Notification category not found with given name")
        category = found
    tsx = _tsx_content(ctx, body)
    if body.get("all_users"):
        rows = ctx.sql.execute(
            "SELECT id FROM users WHERE project_id = ? ORDER BY signed_up_at_millis, rowid", (ctx.project.id,)
        ).fetchall()
        user_ids = [row["id"] for row in rows]
    else:
        user_ids = body["user_ids"]
        for user_id in dict.fromkeys(user_ids):
            if get_user(ctx.sql, ctx.project.id, user_id) is None:
                raise CatalogueError("USER_ID_DOES_NOT_EXIST", user_id=user_id)
    subject = body.get("subject", "")
    if breaks_header_line(subject):
        # (the service's mailer never sends a subject that starts a header line of its own)
        raise CatalogueError(
            "SCHEMA_ERROR", message="body.subject must not contain line breaks (plain or RFC 2047-encoded)"
        )
    explicit_category = category if "notification_category_name" in body else None
    for user_id in dict.fromkeys(user_ids):
        channel = primary_email_channel(ctx.sql, ctx.project.id, user_id)
        if channel is None:
            continue
        if tsx is not None:
            _send_tsx(ctx, tsx, user_id, channel["value"], body.get("subject"), explicit_category)
            continue
        # As the service's queue: users without a primary address, or who turned the category
        # off, get nothing (still listed in the results).
        if not is_enabled(ctx.sql, ctx.project.id, user_id, category):
            continue
        html, link = body["html"], None
        if category.can_disable:
            link = unsubscribe_link(ctx, user_id, category)
            html += f'<p><a href="{_html.escape(link)}">Unsubscribe from {category.name} e-mails</a></p>'
        text = _text_of(body["html"]) + (f"\n\nUnsubscribe: {link}" if link else "")
        send_email(ctx, Mail(to=channel["value"], kind=KIND, subject=subject, text=text, html=html, link=link))
    if tsx is not None and tsx.draft_id is not None:
        mark_sent(ctx.sql, ctx.project.id, tsx.draft_id)
    return {"results": [{"user_id": user_id} for user_id in user_ids]}


@dataclass(frozen=True)
class _TsxContent:
    """A template or draft to render for each user, and the theme to wrap it in."""

    source: str
    theme_source: str | None
    variables: dict[str, Any]
    draft_id: str | None = None


def _tsx_content(ctx: RequestContext, body: dict[str, Any]) -> _TsxContent | None:
    """What `template_id` or `draft_id` names (None for `html`); the service's plain 400 when
    it names nothing. `theme_id` false is no theme, null or absent the project's; a draft
    sent without `theme_id` keeps its own choice."""
    theme_id = body.get("theme_id")
    if "template_id" in body:
        template = find_template(ctx.sql, ctx.project.id, body["template_id"])
        if template is None:
            raise PlainError(400, "No template found with given template_id")
        variables = body.get("variables") or {}
        if not isinstance(variables, dict):
            raise CatalogueError("SCHEMA_ERROR", message="body.variables must be an object")
        return _TsxContent(
            template.tsx_source, theme_source_for(ctx.sql, ctx.project.id, theme_id, project_theme(ctx)), variables
        )
    if "draft_id" in body:
        draft = find_draft(ctx.sql, ctx.project.id, body["draft_id"]) if is_uuid(body["draft_id"]) else None
        if draft is None:
            raise PlainError(400, "No draft found with given draft_id")
        if "theme_id" not in body:
            theme_id = draft.theme
        return _TsxContent(
            draft.tsx_source, theme_source_for(ctx.sql, ctx.project.id, theme_id, project_theme(ctx)), {}, draft.id
        )
    return None


def _send_tsx(
    ctx: RequestContext, tsx: _TsxContent, user_id: str, to: str, subject: str | None, category: Category | None
) -> None:
    """Render `tsx` for one user and send it, as the service's queue does: with the category
    given, in one pass (with an unsubscribe link when the category allows one); else a first
    pass finds the template's category and, if it can be turned off, a second pass adds the
    link. A user who turned the category off gets nothing; a source that does not render sends
    nothing (the service records a rendering error on the queued mail), with a warning."""
    user = get_user(ctx.sql, ctx.project.id, user_id)
    name = user["display_name"] if user is not None else None
    props: dict[str, Any] = {
        "user": {"displayName": name},
        "project": {"displayName": ctx.project.display_name},
        "variables": {"projectDisplayName": ctx.project.display_name, "userDisplayName": name or "", **tsx.variables},
    }
    try:
        link = None
        if category is None:
            rendered: Rendered = render(tsx.source, tsx.theme_source, **props)
            category = category_by_name(rendered.notification_category or "")
            if category is not None and category.can_disable:
                link = unsubscribe_link(ctx, user_id, category)
                rendered = render(tsx.source, tsx.theme_source, unsubscribe_link=link, **props)
        else:
            if category.can_disable:
                link = unsubscribe_link(ctx, user_id, category)
            rendered = render(tsx.source, tsx.theme_source, unsubscribe_link=link, **props)
    except TsxError as exc:
        logger.warning(
            "send-email to user %s of project %s: the mail does not render (%s)", user_id, ctx.project.id, exc
        )
        return
    if category is not None and not is_enabled(ctx.sql, ctx.project.id, user_id, category):
        return
    title = subject if subject is not None else " ".join((rendered.subject or "").split())
    send_email(ctx, Mail(to=to, kind=KIND, subject=title, text=rendered.text, html=rendered.html, link=link))


routes = group.routes
