"""The payments routes of API 2.8 that the seats of `internal`'s teams need (service-api B15).

    GET  /payments/items/{customer_type}/{customer_id}/{item_id}                  {id, display_name, quantity}
    POST /payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity  ?allow_negative= {delta, expires_at?, description?} -> {}
    GET  /payments/products/{customer_type}/{customer_id}                         the products the customer holds

Also under /api/latest. Only `internal` has items and products (payments.py); purchases,
Stripe and the rest of 2.8's payments are not offered.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ..api_version import ApiVersion
from ..endpoint import ANY, SERVER_OR_ADMIN, EndpointGroup, RequestContext, also_at_latest
from ..errors import CatalogueError, PlainError, schema_error
from ..ids import is_uuid
from ..payments import change_quantity, held_products, items, products, quantity
from ..schema import Num, Obj, Spec, Str
from ..team_access import client_user_id, existing_team
from ..teams import has_permission
from ..users import get_user

group = EndpointGroup()

CUSTOMER: dict[str, Spec] = {"customer_type": Str(required=True, one_of=("user", "team", "custom")), "customer_id": Str(required=True)}
ITEM_PATH = Obj({**CUSTOMER, "item_id": Str(required=True)})


def _has_seats(api: ApiVersion) -> bool:
    return api.dashboard_seats


def _client_may_see(ctx: RequestContext, what: str) -> None:
    """The client tier sees its own user's, or a team's it administers."""
    if ctx.tier != "client":
        return
    user_id = client_user_id(ctx)
    kind, customer_id = ctx.params["customer_type"], ctx.params["customer_id"]
    forbidden = f"Clients can only access their own user or team {what}."
    if kind == "custom" or (kind == "user" and customer_id != user_id):
        raise PlainError(403, forbidden)
    if kind == "team" and not has_permission(ctx.sql, ctx.project.id, customer_id, user_id, "team_admin"):
        raise CatalogueError(
            "TEAM_PERMISSION_REQUIRED", team_id=customer_id, user_id=user_id, permission_id="team_admin"
        )


def _existing_customer(ctx: RequestContext) -> None:
    kind, customer_id = ctx.params["customer_type"], ctx.params["customer_id"]
    if kind == "user" and (not is_uuid(customer_id) or get_user(ctx.sql, ctx.project.id, customer_id) is None):
        raise CatalogueError("USER_NOT_FOUND")
    if kind == "team":
        if not is_uuid(customer_id):
            raise CatalogueError("TEAM_NOT_FOUND", team_id=customer_id)
        existing_team(ctx, customer_id)


def _item(ctx: RequestContext) -> dict[str, str]:
    item_id, kind = ctx.params["item_id"], ctx.params["customer_type"]
    item = items(ctx.project.id).get(item_id)
    if item is None:
        raise CatalogueError("ITEM_NOT_FOUND", item_id=item_id)
    if kind != item["customer_type"]:
        raise CatalogueError(
            "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH",
            item_id=item_id,
            customer_id=ctx.params["customer_id"],
            item_customer_type=item["customer_type"],
            actual_customer_type=kind,
        )
    _existing_customer(ctx)
    return item


@group.get("/payments/items/{customer_type}/{customer_id}/{item_id}", tiers=ANY, params=ITEM_PATH, when=_has_seats)
def get_item(ctx: RequestContext) -> dict[str, Any]:
    _client_may_see(ctx, "items")
    item = _item(ctx)
    p = ctx.params
    held = quantity(ctx.sql, ctx.project.id, p["customer_type"], p["customer_id"], p["item_id"])
    return {"id": p["item_id"], "display_name": item["display_name"], "quantity": held}


@group.post(
    "/payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity",
    tiers=SERVER_OR_ADMIN,
    params=ITEM_PATH,
    query=Obj({"allow_negative": Str(required=True, one_of=("true", "false"))}, required=True),
    body=Obj(
        {"delta": Num(required=True, integer=True), "expires_at": Str(), "description": Str()},
        required=True,
    ),
    when=_has_seats,
)
def update_quantity(ctx: RequestContext) -> dict[str, Any]:
    expires_at = ctx.body.get("expires_at")
    expires_millis = None
    if expires_at is not None:
        try:
            when = _dt.datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
        except ValueError:
            raise schema_error(
                ctx.request.method, ctx.request.url.path, ["body.expires_at must be an ISO 8601 date"]
            ) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        expires_millis = int(when.timestamp() * 1000)
    _item(ctx)
    p = ctx.params
    change_quantity(
        ctx.sql,
        ctx.project.id,
        p["customer_type"],
        p["customer_id"],
        p["item_id"],
        int(ctx.body["delta"]),
        allow_negative=ctx.query["allow_negative"] == "true",
        description=ctx.body.get("description"),
        expires_at_millis=expires_millis,
    )
    return {}


@group.get(
    "/payments/products/{customer_type}/{customer_id}",
    tiers=ANY,
    params=Obj(CUSTOMER),
    query=Obj({"cursor": Str(), "limit": Str()}),
    when=_has_seats,
)
def list_products(ctx: RequestContext) -> dict[str, Any]:
    _client_may_see(ctx, "products")
    _existing_customer(ctx)
    catalogue = products(ctx.project.id)
    held = held_products(ctx.sql, ctx.project.id, ctx.params["customer_type"], ctx.params["customer_id"])
    entries: list[dict[str, Any]] = [
        {
            "id": product_id,
            "quantity": count,
            "product": catalogue[product_id],
            # (the free plan is held as a subscription that is never billed)
            "type": "subscription",
            "subscription": None,
            "switch_options": [],
        }
        for product_id, count in held.items()
        if product_id in catalogue and (ctx.tier != "client" or not catalogue[product_id]["server_only"])
    ]
    start = 0
    if "cursor" in ctx.query:
        start = next((i for i, e in enumerate(entries) if e["id"] == ctx.query["cursor"]), -1)
        if start < 0:
            raise PlainError(400, "Invalid cursor")
    limit = 10
    if "limit" in ctx.query:
        if not ctx.query["limit"].isdigit() or not 1 <= int(ctx.query["limit"]) <= 100:
            raise schema_error(ctx.request.method, ctx.request.url.path, ["limit must be between 1 and 100"])
        limit = int(ctx.query["limit"])
    page = entries[start : start + limit]
    following = entries[start + limit]["id"] if start + limit < len(entries) else None
    return {"items": page, "is_paginated": True, "pagination": {"next_cursor": following}}


routes = also_at_latest(group.routes)
