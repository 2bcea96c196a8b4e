"""Notification preferences and the unsubscribe link (API 2.8 only, service-api B11)."""

from __future__ import annotations

from typing import Any

from starlette.responses import HTMLResponse, PlainTextResponse, Response

from ..api_version import ApiVersion
from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import sha256_hex
from ..notifications import CATEGORIES, UNSUBSCRIBE, category_by_id, preference_view, set_enabled
from ..schema import Bool, Obj, Spec, Uuid
from ..users import get_user
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()


def _has_preferences(api: ApiVersion) -> bool:
    return api.notification_preferences


def _preference_user(ctx: RequestContext, user_id: str, verb: str) -> str:
    """The user whose preferences a request may see or change: on the client tier only its own."""
    user_id = ctx.user_id_or_me(user_id)
    if ctx.tier == "client":
        if ctx.user is None:
            raise CatalogueError("USER_AUTHENTICATION_REQUIRED")
        if user_id != ctx.user["id"]:
            raise PlainError(403, f"You can only {verb} your own notification preferences")
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    return user_id


USER_PARAMS: dict[str, Spec] = {"user_id": Uuid(required=True, allow_me=True)}


@group.get(
    "/emails/notification-preference/{user_id}", tiers=ANY, params=Obj(USER_PARAMS), when=_has_preferences
)
def list_preferences(ctx: RequestContext) -> dict[str, Any]:
    user_id = _preference_user(ctx, ctx.params["user_id"], "view")
    items = [preference_view(ctx.sql, ctx.project.id, user_id, category) for category in CATEGORIES]
    return {"items": items, "is_paginated": False}


@group.patch(
    "/emails/notification-preference/{user_id}/{notification_category_id}",
    tiers=ANY,
    params=Obj({**USER_PARAMS, "notification_category_id": Uuid(required=True)}),
    body=Obj({"enabled": Bool(required=True)}, required=True),
    when=_has_preferences,
)
def update_preference(ctx: RequestContext) -> dict[str, Any]:
    ctx.user_id_or_me(ctx.params["user_id"])  # "me" without a user first, as the service
    category = category_by_id(ctx.params["notification_category_id"])
    if category is None:
        raise PlainError(404, "Notification category not found")
    user_id = _preference_user(ctx, ctx.params["user_id"], "manage")
    # As the service: the handler does not refuse turning off a category that cannot be disabled.
    set_enabled(ctx.sql, ctx.project.id, user_id, category, ctx.body["enabled"])
    return preference_view(ctx.sql, ctx.project.id, user_id, category)


@group.get("/emails/unsubscribe-link", tiers=None, when=_has_preferences)
def unsubscribe(ctx: RequestContext) -> Response:
    """The link of e-mails sent in a category: turns that category off for the user."""
    code = ctx.request.query_params.get("code", "")
    if len(code) != CODE_LENGTH:
        return PlainTextResponse("Invalid code", 400)
    row = ctx.sql.execute(
        "SELECT project_id FROM verification_codes WHERE code_hash = ? AND type = ?",
        (sha256_hex(code.lower()), UNSUBSCRIBE),
    ).fetchone()
    if row is None:
        raise CatalogueError("VERIFICATION_CODE_NOT_FOUND")
    try:
        found = find_code(ctx, UNSUBSCRIBE, code, project_id=row["project_id"])
    except CatalogueError as error:
        if error.code != "VERIFICATION_CODE_ALREADY_USED":
            raise
        return HTMLResponse("<p>You have already unsubscribed from this notification group</p>")
    found.consume()
    category = category_by_id(found.data["notification_category_id"])
    user = get_user(ctx.sql, row["project_id"], found.data["user_id"])
    if category is not None and user is not None:
        set_enabled(ctx.sql, row["project_id"], user["id"], category, False)
    return HTMLResponse("<p>Successfully unsubscribed from notification group</p>")


routes = group.routes
