"""The seats of the `internal` project's teams (API 2.8, service-api B15).

2.8.86 seeds its `internal` project (the dashboard's) with plan products whose items limit a
team: `dashboard_admins` is how many members a team that owns projects may have. Every team
made in `internal` gets the free plan, one seat; an invitation into such a team is refused
(ITEM_QUANTITY_INSUFFICIENT_AMOUNT) when it would take the team past its seats; a server can add
or take seats (`POST /payments/items/team/<id>/dashboard_admins/update-quantity`). The local
service keeps that part of payments, nothing else: other projects have no items (ITEM_NOT_FOUND),
and no product can be bought.

A customer's quantity of an item is what the products it holds include (times how many of each
it holds) plus the changes made to it that have not expired.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from . import auth  # (its auth.INTERNAL_PROJECT_ID; auth imports teams, which imports this module)
from .api_version import current_api
from .errors import CatalogueError
from .ids import new_uuid, now_millis

SEATS = "dashboard_admins"
FREE_PLAN = "free"
#: The items of the `internal` project (2.8.86's seed names them so).
INTERNAL_ITEMS: dict[str, dict[str, str]] = {SEATS: {"display_name": "Dashboard Admins", "customer_type": "team"}}
#: The plan every new team of `internal` holds, as an inline product of the API. (2.8.86's free
#: plan also includes limits on users, e-mails and analytics, which the local service does not
#: count.)
INTERNAL_PRODUCTS: dict[str, dict[str, Any]] = {
    FREE_PLAN: {
        "display_name": "Free",
        "customer_type": "team",
        "stackable": False,
        "server_only": False,
        "included_items": {SEATS: {"quantity": 1, "repeat": "never", "expires": "when-purchase-expires"}},
        "client_metadata": None,
        "client_read_only_metadata": None,
        "server_metadata": None,
        "prices": {"free-monthly": {"USD": "0", "interval": [1, "month"]}},
    }
}


def items(project_id: str) -> dict[str, dict[str, str]]:
    return INTERNAL_ITEMS if project_id == auth.INTERNAL_PROJECT_ID else {}


def products(project_id: str) -> dict[str, dict[str, Any]]:
    return INTERNAL_PRODUCTS if project_id == auth.INTERNAL_PROJECT_ID else {}


def grant_free_plan(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    """A new team of `internal` holds the free plan (one seat)."""
    if project_id == auth.INTERNAL_PROJECT_ID and current_api().dashboard_seats:
        c.execute(
            "INSERT INTO customer_products (id, project_id, customer_type, customer_id, product_id, quantity,"
            " created_at_millis) VALUES (?, ?, 'team', ?, ?, 1, ?)",
            (new_uuid(), project_id, team_id, FREE_PLAN, now_millis()),
        )


def held_products(c: sqlite3.Connection, project_id: str, customer_type: str, customer_id: str) -> dict[str, int]:
    """product id -> how many the customer holds."""
    rows = c.execute(
        "SELECT product_id, SUM(quantity) AS quantity FROM customer_products"
        " WHERE project_id = ? AND customer_type = ? AND customer_id = ? GROUP BY product_id ORDER BY product_id",
        (project_id, customer_type, customer_id),
    ).fetchall()
    return {row["product_id"]: int(row["quantity"]) for row in rows if row["quantity"] > 0}


def quantity(c: sqlite3.Connection, project_id: str, customer_type: str, customer_id: str, item_id: str) -> int:
    catalogue = products(project_id)
    included = sum(
        count * int(catalogue[product_id]["included_items"].get(item_id, {}).get("quantity", 0))
        for product_id, count in held_products(c, project_id, customer_type, customer_id).items()
        if product_id in catalogue
    )
    row = c.execute(
        "SELECT COALESCE(SUM(quantity), 0) AS total FROM item_quantity_changes WHERE project_id = ?"
        " AND customer_type = ? AND customer_id = ? AND item_id = ?"
        " AND (expires_at_millis IS NULL OR expires_at_millis > ?)",
        (project_id, customer_type, customer_id, item_id, now_millis()),
    ).fetchone()
    return included + int(row["total"])


def change_quantity(
    c: sqlite3.Connection,
    project_id: str,
    customer_type: str,
    customer_id: str,
    item_id: str,
    delta: int,
    *,
    allow_negative: bool,
    description: str | None = None,
    expires_at_millis: int | None = None,
) -> None:
    if not allow_negative and quantity(c, project_id, customer_type, customer_id, item_id) + delta < 0:
        raise CatalogueError(
            "ITEM_QUANTITY_INSUFFICIENT_AMOUNT", item_id=item_id, customer_id=customer_id, quantity=delta
        )
    c.execute(
        "INSERT INTO item_quantity_changes (id, project_id, customer_type, customer_id, item_id, quantity, description,"
        " expires_at_millis, created_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new_uuid(),
            project_id,
            customer_type,
            customer_id,
            item_id,
            delta,
            description,
            expires_at_millis,
            now_millis(),
        ),
    )


def require_free_seat(c: sqlite3.Connection, project_id: str, team_id: str) -> None:
    """Before a new member joins a team of `internal` by invitation: a seat must be free."""
    if project_id != auth.INTERNAL_PROJECT_ID or not current_api().dashboard_seats:
        return
    members = c.execute(
        "SELECT COUNT(*) AS n FROM team_members WHERE project_id = ? AND team_id = ?", (project_id, team_id)
    ).fetchone()["n"]
    if members + 1 > quantity(c, project_id, "team", team_id, SEATS):
        raise CatalogueError("ITEM_QUANTITY_INSUFFICIENT_AMOUNT", item_id=SEATS, customer_id=team_id, quantity=-1)
