"""Contact channels (service-api A5.7) and e-mail verification by code (flow 6.4)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..emails import EMAIL_VERIFICATION, send_verification_email
from ..endpoint import ANY, USER_IN_SCHEMA, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..responses import Created
from ..schema import Bool, Obj, Str, Uuid
from ..urls import is_trusted_url
from ..users import (
    add_contact_channel,
    email_used_for_auth,
    get_user,
    normalise_email,
    primary_email_channel,
    used_for_auth_by_someone_else,
)
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()
CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)
CHANNEL_PATH = Obj({"user_id": Uuid(required=True, allow_me=True), "contact_channel_id": Uuid(required=True)})


def channel_view(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "user_id": row["user_id"],
        "id": row["id"],
        "value": row["value"],
        "type": row["type"],
        "used_for_auth": bool(row["used_for_auth"]),
        "is_verified": bool(row["is_verified"]),
        "is_primary": bool(row["is_primary"]),
    }


def _user_id(ctx: RequestContext, value: str, client_message: str, status: int = 403) -> str:
    """Resolve "me"; the client tier may only name its own user."""
    user_id = ctx.user_id_or_me(value)
    if ctx.tier == "client" and (ctx.user is None or user_id != ctx.user["id"]):
        raise PlainError(status, client_message)
    return user_id


def _channel(ctx: RequestContext, user_id: str, channel_id: str, missing: PlainError) -> sqlite3.Row:
    row: sqlite3.Row | None = ctx.sql.execute(
        "SELECT * FROM contact_channels WHERE id = ? AND user_id = ? AND project_id = ?",
        (channel_id, user_id, ctx.project.id),
    ).fetchone()
    if row is None:
        raise missing
    return row


def _fields(tier: str, *, creating: bool) -> Obj:
    fields: dict[str, Any] = {
        "type": Str(required=creating, one_of=("email",)),
        "value": Str(required=creating, email=True),
        "used_for_auth": Bool(required=creating),
        "is_primary": Bool(),
    }
    if creating:
        fields = {"user_id": Uuid(required=True, allow_me=True), **fields}
    if tier != "client":
        fields["is_verified"] = Bool()
    return Obj(fields, required=True)


def _refuse_own_duplicate(ctx: RequestContext, user_id: str, value: str, except_id: str | None = None) -> None:
    if ctx.sql.execute(
        "SELECT 1 FROM contact_channels WHERE project_id = ? AND user_id = ? AND type = 'email' AND value = ?"
        " AND id IS NOT ?",
        (ctx.project.id, user_id, value, except_id),
    ).fetchone():
        raise PlainError(400, "Contact channel already exists")


@group.post("/contact-channels", tiers=ANY)
def create(ctx: RequestContext) -> Created:
    body = ctx.validate(_fields(ctx.tier, creating=True), ctx.raw_body)
    user_id = _user_id(ctx, body["user_id"], "Client can only create contact channels for their own user.")
    if get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_NOT_FOUND")
    value = normalise_email(body["value"])  # as it is stored (2.8 lower-cases)
    # The user's own duplicate first: a plain 400 even when that address is their sign-in address.
    _refuse_own_duplicate(ctx, user_id, value)
    if body["used_for_auth"] and email_used_for_auth(ctx.sql, ctx.project.id, value):
        raise used_for_auth_by_someone_else(value)
    channel_id = add_contact_channel(
        ctx.sql,
        ctx.project.id,
        user_id,
        value,
        is_primary=bool(body.get("is_primary")),
        is_verified=bool(body.get("is_verified")),
        used_for_auth=body["used_for_auth"],
    )
    missing = PlainError(404, "Contact channel not found.")
    return Created(channel_view(_channel(ctx, user_id, channel_id, missing)))


@group.get("/contact-channels", tiers=ANY, query=Obj({"user_id": Uuid(allow_me=True), "contact_channel_id": Uuid()}))
def list_channels(ctx: RequestContext) -> dict[str, Any]:
    user_id = ctx.query.get("user_id")
    if ctx.tier == "client":
        if user_id is None:
            raise PlainError(403, "Client can only list contact channels for their own user.")
        user_id = _user_id(ctx, user_id, "Client can only list contact channels for their own user.")
    elif user_id is not None:
        user_id = ctx.user_id_or_me(user_id)
    sql = "SELECT * FROM contact_channels WHERE project_id = ?"
    args: list[Any] = [ctx.project.id]
    for column, value in (("user_id", user_id), ("id", ctx.query.get("contact_channel_id"))):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    rows = ctx.sql.execute(sql + " ORDER BY created_at_millis, rowid", args).fetchall()
    return {"items": [channel_view(row) for row in rows], "is_paginated": False}


@group.get("/contact-channels/{user_id}/{contact_channel_id}", tiers=ANY, params=CHANNEL_PATH)
def get_one(ctx: RequestContext) -> dict[str, Any]:
    user_id = _user_id(ctx, ctx.params["user_id"], "Client can only read contact channels of their own user.")
    missing = PlainError(404, "Contact channel not found.")
    return channel_view(_channel(ctx, user_id, ctx.params["contact_channel_id"], missing))


@group.patch("/contact-channels/{user_id}/{contact_channel_id}", tiers=ANY, params=CHANNEL_PATH)
def update(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.validate(_fields(ctx.tier, creating=False), ctx.raw_body)
    user_id = _user_id(ctx, ctx.params["user_id"], "Client can only update contact channels of their own user.")
    row = _channel(ctx, user_id, ctx.params["contact_channel_id"], PlainError(400, "Contact channel not found"))
    # A new address is stored as a new channel's is (2.8 lower-cases it): a differently cased
    # copy of someone's sign-in address would not be seen as theirs.
    value = normalise_email(body["value"]) if "value" in body else row["value"]
    used_for_auth = body.get("used_for_auth", bool(row["used_for_auth"]))
    if used_for_auth and email_used_for_auth(ctx.sql, ctx.project.id, value, except_user=user_id):
        raise used_for_auth_by_someone_else(None)  # 2.8.86 names no address here
    # Another channel of the same user with this address: 2.8.86 runs into its unique index (a
    # 500); the local service answers as it does for the same duplicate when creating.
    _refuse_own_duplicate(ctx, user_id, value, except_id=row["id"])
    is_verified = body.get("is_verified", bool(row["is_verified"]) and value == row["value"])
    if body.get("is_primary"):
        ctx.sql.execute(
            "UPDATE contact_channels SET is_primary = 0 WHERE project_id = ? AND user_id = ?", (ctx.project.id, user_id)
        )
    ctx.sql.execute(
        "UPDATE contact_channels SET value = ?, used_for_auth = ?, is_verified = ?, is_primary = ?"
        " WHERE project_id = ? AND id = ?",
        (
            value,
            int(used_for_auth),
            int(is_verified),
            int(body.get("is_primary", row["is_primary"])),
            ctx.project.id,
            row["id"],
        ),
    )
    return channel_view(_channel(ctx, user_id, row["id"], PlainError(400, "Contact channel not found")))


@group.delete("/contact-channels/{user_id}/{contact_channel_id}", tiers=ANY, params=CHANNEL_PATH)
def delete(ctx: RequestContext) -> dict[str, bool]:
    user_id = _user_id(ctx, ctx.params["user_id"], "Client can only delete contact channels of their own user.")
    row = _channel(ctx, user_id, ctx.params["contact_channel_id"], PlainError(400, "Contact channel not found"))
    ctx.sql.execute("DELETE FROM contact_channels WHERE project_id = ? AND id = ?", (ctx.project.id, row["id"]))
    return {"success": True}


@group.post(
    "/contact-channels/{user_id}/{contact_channel_id}/send-verification-code",
    tiers=ANY,
    params=CHANNEL_PATH,
    body=Obj({"callback_url": Str(required=True, url=True)}, required=True),
)
def send_channel_verification(ctx: RequestContext) -> dict[str, bool]:
    if ctx.tier == "client" and ctx.user is None:  # as the service: even with an explicit user id
        raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
    user_id = _user_id(
        ctx, ctx.params["user_id"], "Client can only send verification codes for their own user.", status=400
    )
    if ctx.tier != "client" and get_user(ctx.sql, ctx.project.id, user_id) is None:
        raise CatalogueError("USER_ID_DOES_NOT_EXIST", user_id=user_id)
    row = _channel(ctx, user_id, ctx.params["contact_channel_id"], PlainError(404, "Contact channel not found"))
    _send(ctx, user_id, row, ctx.body["callback_url"])
    return {"success": True}


@group.post(
    "/contact-channels/send-verification-code",
    tiers=ANY,
    needs_user=USER_IN_SCHEMA,
    body=Obj(
        {"email": Str(required=True, strict_email=True), "callback_url": Str(required=True, url=True)}, required=True
    ),
)
def send_primary_verification(ctx: RequestContext) -> dict[str, bool]:
    user = ctx.signed_in_user
    channel = primary_email_channel(ctx.sql, ctx.project.id, user["id"])
    primary = channel["value"] if channel else None
    if channel is None or ctx.body["email"] != primary:
        raise CatalogueError("EMAIL_IS_NOT_PRIMARY_EMAIL", email=ctx.body["email"], primary_email=primary)
    _send(ctx, user["id"], channel, ctx.body["callback_url"])
    return {"success": True}


def _send(ctx: RequestContext, user_id: str, channel: sqlite3.Row, callback_url: str) -> None:
    if channel["is_verified"]:
        raise CatalogueError("EMAIL_ALREADY_VERIFIED")
    if not is_trusted_url(ctx.project, callback_url):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    send_verification_email(ctx, user_id, channel["value"], callback_url)


@group.post("/contact-channels/verify", tiers=ANY, body=CODE_BODY)
def verify(ctx: RequestContext) -> dict[str, bool]:
    found = find_code(ctx, EMAIL_VERIFICATION, ctx.body["code"])
    found.consume()
    ctx.sql.execute(
        "UPDATE contact_channels SET is_verified = 1 WHERE project_id = ? AND user_id = ? AND type = 'email' AND value = ?",
        (ctx.project.id, found.data["user_id"], found.data["email"]),
    )
    return {"success": True}


@group.post("/contact-channels/verify/check-code", tiers=ANY, body=CODE_BODY)
def check_code(ctx: RequestContext) -> dict[str, bool]:
    find_code(ctx, EMAIL_VERIFICATION, ctx.body["code"])
    return {"is_code_valid": True}


routes = group.routes
