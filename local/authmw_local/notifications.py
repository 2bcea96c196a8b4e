"""Notification categories and users' preferences (API 2.8, service-api B11).

Two fixed categories; a user's choice is a row of `notification_preferences`, the category's
default otherwise. E-mails sent in a category that can be turned off carry an unsubscribe link
(`GET /api/v1/emails/unsubscribe-link?code=...`, a 30-day one-time code) that turns it off.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .endpoint import RequestContext
from .verification import create_code


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    default_enabled: bool
    can_disable: bool


TRANSACTIONAL = Category("7bb82d33-2f54-4a3d-9d23-82739e0d66ef", "Transactional", True, False)
MARKETING = Category("4f6f8873-3d04-46bd-8bef-18338b1a1b4c", "Marketing", True, True)
CATEGORIES = (TRANSACTIONAL, MARKETING)

UNSUBSCRIBE = "unsubscribe"
UNSUBSCRIBE_LIFETIME_MILLIS = 30 * 24 * 3600 * 1000
UNSUBSCRIBE_PATH = "/api/v1/emails/unsubscribe-link"


def category_by_id(category_id: str) -> Category | None:
    return next((c for c in CATEGORIES if c.id == category_id), None)


def category_by_name(name: str) -> Category | None:
    return next((c for c in CATEGORIES if c.name == name), None)


def is_enabled(c: sqlite3.Connection, project_id: str, user_id: str, category: Category) -> bool:
    row = c.execute(
        "SELECT enabled FROM notification_preferences WHERE project_id = ? AND user_id = ? AND category_id = ?",
        (project_id, user_id, category.id),
    ).fetchone()
    return category.default_enabled if row is None else bool(row["enabled"])


def set_enabled(c: sqlite3.Connection, project_id: str, user_id: str, category: Category, enabled: bool) -> None:
    c.execute(
        "INSERT INTO notification_preferences (project_id, user_id, category_id, enabled) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id, category_id) DO UPDATE SET enabled = excluded.enabled",
        (project_id, user_id, category.id, int(enabled)),
    )


def preference_view(c: sqlite3.Connection, project_id: str, user_id: str, category: Category) -> dict[str, Any]:
    return {
        "notification_category_id": category.id,
        "notification_category_name": category.name,
        "enabled": is_enabled(c, project_id, user_id, category),
        "can_disable": category.can_disable,
    }


def unsubscribe_link(ctx: RequestContext, user_id: str, category: Category) -> str:
    """A link that turns `category` off for the user (placed in e-mails sent in it)."""
    code = create_code(
        ctx.sql,
        ctx.project.id,
        UNSUBSCRIBE,
        {"user_id": user_id, "notification_category_id": category.id},
        UNSUBSCRIBE_LIFETIME_MILLIS,
    )
    return f"{ctx.service.base_url.rstrip('/')}{UNSUBSCRIBE_PATH}?code={code}"
