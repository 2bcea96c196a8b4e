"""`POST /emails/send-email` (API 2.8 only, service-api B11): e-mail from the server tier
to users' primary addresses, kept in the outbox (`GET /dev/mailbox`) and delivered through the
project's own SMTP server.

The local service sends raw HTML; it has no e-mail templates or drafts of 2.8's project config,
so `template_id` and `draft_id` answer the service's "not found" errors.
"""

from __future__ import annotations

import html as _html
import re
from typing import Any

from ..api_version import ApiVersion
from ..endpoint import SERVER_OR_ADMIN, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError, schema_error
from ..ids import is_uuid
from ..mail import Mail, breaks_header_line, send_email
from ..notifications import TRANSACTIONAL, category_by_name, is_enabled, unsubscribe_link
from ..schema import Arr, Bool, Json, Num, Obj, Str, Uuid
from ..users import get_user, primary_email_channel

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
    theme = body.get("theme_id", None)
    theme_ok = theme is None or theme is False or (isinstance(theme, str) and is_uuid(theme))
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
    if "template_id" in body:
        raise PlainError(400, "No template found with given template_id")
    if "draft_id" in body:
        raise PlainError(400, "No draft found with given draft_id")
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
        raise CatalogueError("SCHEMA_ERROR", message="body.subject must not contain line breaks (plain or RFC 2047-encoded)")
    for user_id in dict.fromkeys(user_ids):
        channel = primary_email_channel(ctx.sql, ctx.project.id, user_id)
        # As the service's queue: users without a primary address, or who turned the category
        # off, get nothing (still listed in the results).
        if channel is None or not is_enabled(ctx.sql, ctx.project.id, user_id, category):
            continue
        html, link = body["html"], None
        if category.can_disable:
            link = unsubscribe_link(ctx, user_id, category)
            html += f'<p><a href="{_html.escape(link)}">Unsubscribe from {category.name} e-mails</a></p>'
        text = _text_of(body["html"]) + (f"\n\nUnsubscribe: {link}" if link else "")
        send_email(ctx, Mail(to=channel["value"], kind=KIND, subject=subject, text=text, html=html, link=link))
    return {"results": [{"user_id": user_id} for user_id in user_ids]}


routes = group.routes
