"""API 2.8's e-mail drafts (service-api B14.4): one-off TSX mails an admin writes and sends
with `POST /emails/send-email {draft_id}`.

A draft is a template source, a display name, a theme choice and when it was last sent. The
theme choice is one of three: the project's theme (`theme_id` absent), no theme (`false`), or
a theme id; it is stored as `mode` ("project", "none", "custom") and `theme_id`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .email_templates_28 import shipped_source
from .ids import new_uuid, now_millis

NEW_DRAFT_FILE = "new_draft.tsx"
PROJECT_THEME, NO_THEME, CUSTOM_THEME = "project", "none", "custom"


@dataclass(frozen=True)
class Draft:
    id: str
    display_name: str
    tsx_source: str
    mode: str
    theme_id: str | None
    sent_at_millis: int | None

    @property
    def theme(self) -> Any:
        """The draft's `theme_id` as the API gives it: None (absent: the project's theme),
        False (no theme) or a theme id."""
        if self.mode == NO_THEME:
            return False
        return self.theme_id if self.mode == CUSTOM_THEME else None

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "display_name": self.display_name, "tsx_source": self.tsx_source}
        if self.theme is not None:
            out["theme_id"] = self.theme
        out["sent_at_millis"] = self.sent_at_millis
        return out


def theme_mode(theme_id: Any) -> tuple[str, str | None]:
    """(mode, theme id) for a request's `theme_id`: absent or None = the project's theme (the
    service reads an explicit null as a custom theme without an id, which is the same)."""
    if theme_id is False:
        return NO_THEME, None
    if isinstance(theme_id, str):
        return CUSTOM_THEME, theme_id
    return PROJECT_THEME, None


def _draft(row: sqlite3.Row) -> Draft:
    return Draft(
        row["id"], row["display_name"], row["tsx_source"], row["theme_mode"], row["theme_id"], row["sent_at_millis"]
    )


def drafts(c: sqlite3.Connection, project_id: str) -> list[Draft]:
    """The project's drafts, the last changed first."""
    rows = c.execute(
        "SELECT * FROM email_drafts WHERE project_id = ? ORDER BY updated_at_millis DESC, rowid DESC", (project_id,)
    ).fetchall()
    return [_draft(row) for row in rows]


def find_draft(c: sqlite3.Connection, project_id: str, draft_id: str) -> Draft | None:
    row = c.execute("SELECT * FROM email_drafts WHERE project_id = ? AND id = ?", (project_id, draft_id)).fetchone()
    return None if row is None else _draft(row)


def create_draft(
    c: sqlite3.Connection, project_id: str, display_name: str, theme_id: Any, tsx_source: str | None
) -> str:
    draft_id = new_uuid()
    mode, theme = theme_mode(theme_id)
    now = now_millis()
    c.execute(
        "INSERT INTO email_drafts (project_id, id, display_name, tsx_source, theme_mode, theme_id,"
        " created_at_millis, updated_at_millis) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (project_id, draft_id, display_name, tsx_source or shipped_source(NEW_DRAFT_FILE), mode, theme, now, now),
    )
    return draft_id


def update_draft(c: sqlite3.Connection, project_id: str, draft: Draft, changes: dict[str, Any]) -> None:
    """Change what `changes` names. As on the service, the theme choice is always rewritten: a
    change without `theme_id` puts the draft back on the project's theme."""
    mode, theme = theme_mode(changes.get("theme_id"))
    if mode == PROJECT_THEME:
        theme = draft.theme_id  # (the service keeps the old id, unused while the mode says "project")
    c.execute(
        "UPDATE email_drafts SET display_name = ?, tsx_source = ?, theme_mode = ?, theme_id = ?, updated_at_millis = ?"
        " WHERE project_id = ? AND id = ?",
        (
            changes.get("display_name", draft.display_name),
            changes.get("tsx_source", draft.tsx_source),
            mode,
            theme,
            now_millis(),
            project_id,
            draft.id,
        ),
    )


def delete_draft(c: sqlite3.Connection, project_id: str, draft_id: str) -> bool:
    return bool(c.execute("DELETE FROM email_drafts WHERE project_id = ? AND id = ?", (project_id, draft_id)).rowcount)


def mark_sent(c: sqlite3.Connection, project_id: str, draft_id: str) -> None:
    c.execute(
        "UPDATE email_drafts SET sent_at_millis = ?, updated_at_millis = ? WHERE project_id = ? AND id = ?",
        (now_millis(), now_millis(), project_id, draft_id),
    )
