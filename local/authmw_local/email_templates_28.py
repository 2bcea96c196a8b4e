"""API 2.8's e-mail templates and themes (service-api B14.4): TSX sources kept per project.

A project has the four built-in templates the local service sends (e-mail verification,
password reset, magic link, team invitation; their ids are the service's), the templates its
admins create, and the built-in themes (light, dark, colourful) plus its own. A changed built-in template or
theme is a row of its own; deleting that row brings back the source shipped in `email_sources/`.

Mail is rendered by tsx_render.py (a subset of TSX, no Node). `render_mail` is what the flows
use: the project's template of the kind, wrapped in its theme.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .db import load
from .errors import CatalogueError
from .ids import is_uuid
from .tsx_render import Rendered, TsxError, check_theme, render

logger = logging.getLogger("authmw_local.mail")

SOURCES = Path(__file__).with_name("email_sources")

#: The service's ids of the built-in templates (API facts: apps address them by id).
BUILT_IN_TEMPLATES: dict[str, tuple[str, str, str]] = {
    # id: (kind, display name, source file)
    "e7d009ce-8d47-4528-b245-5bf119f2ffa3": ("email_verification", "Email Verification", "email_verification.tsx"),
    "a70fb3a4-56c1-4e42-af25-49d25603abd0": ("password_reset", "Password Reset", "password_reset.tsx"),
    "822687fe-8d0a-4467-a0d1-416b6e639478": ("magic_link", "Magic Link/OTP", "magic_link.tsx"),
    "e84de395-2076-4831-9c19-8e9a96a868e4": ("team_invitation", "Team Invitation", "team_invitation.tsx"),
}
TEMPLATE_OF_KIND = {kind: template_id for template_id, (kind, _, _) in BUILT_IN_TEMPLATES.items()}

DEFAULT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac"
BUILT_IN_THEMES: dict[str, tuple[str, str]] = {
    DEFAULT_THEME_ID: ("Default Light", "theme_light.tsx"),
    "a0172b5d-cff0-463b-83bb-85124697373a": ("Default Dark", "theme_dark.tsx"),
    "c7e2d94f-8a1b-4e6d-b3f5-9d0a2e7c1b8f": ("Default Colorful", "theme_colorful.tsx"),
}
#: What `theme_id: false` ("no theme") renders in: a bare document around the template, as the
#: service's empty theme.
NO_THEME_FILE = "theme_none.tsx"
NEW_TEMPLATE_FILE = "new_template.tsx"
#: A template's `theme_id` as stored: NULL = not given (the project's theme), else JSON-ish text.
_NO_THEME, _NULL_THEME = "false", "null"


@cache
def shipped_source(file_name: str) -> str:
    return (SOURCES / file_name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Template:
    id: str
    display_name: str
    tsx_source: str
    #: A theme id, False (no theme), None (the project's theme, said explicitly) or "absent".
    theme_id: Any = "absent"

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "display_name": self.display_name, "tsx_source": self.tsx_source}
        if self.theme_id != "absent":
            out["theme_id"] = self.theme_id
        return out


def valid_theme_id(theme_id: Any) -> bool:
    """The service's theme id field (`templateThemeIdSchema`): a UUID, false, null or absent (None)."""
    return theme_id is None or theme_id is False or (isinstance(theme_id, str) and is_uuid(theme_id))


def _theme_from_column(value: str | None) -> Any:
    if value is None:
        return "absent"
    return {_NO_THEME: False, _NULL_THEME: None}.get(value, value)


def _theme_to_column(value: Any) -> str | None:
    if value == "absent":
        return None
    return _NO_THEME if value is False else _NULL_THEME if value is None else str(value)


def templates(c: sqlite3.Connection, project_id: str) -> list[Template]:
    """The built-in templates (changed or not) in their order, then the project's own by name.
    A project on the shared e-mail server has the built-in ones as shipped only, as on 2.8.86
    (its changes stay stored, and count again once it has a server of its own)."""
    rows = {
        row["id"]: row
        for row in c.execute("SELECT * FROM email_templates_28 WHERE project_id = ? ORDER BY rowid", (project_id,))
    }
    if not _has_own_server(c, project_id):
        rows = {}
    out = []
    for template_id, (_, name, file_name) in BUILT_IN_TEMPLATES.items():
        row = rows.pop(template_id, None)
        if row is None:
            out.append(Template(template_id, name, shipped_source(file_name)))
        else:
            out.append(
                Template(template_id, row["display_name"], row["tsx_source"], _theme_from_column(row["theme_id"]))
            )
    for row in rows.values():
        out.append(Template(row["id"], row["display_name"], row["tsx_source"], _theme_from_column(row["theme_id"])))
    return out


def find_template(c: sqlite3.Connection, project_id: str, template_id: str) -> Template | None:
    return next((t for t in templates(c, project_id) if t.id == template_id), None)


def save_template(c: sqlite3.Connection, project_id: str, template: Template) -> None:
    c.execute(
        "INSERT INTO email_templates_28 (project_id, id, display_name, tsx_source, theme_id) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name,"
        " tsx_source = excluded.tsx_source, theme_id = excluded.theme_id",
        (project_id, template.id, template.display_name, template.tsx_source, _theme_to_column(template.theme_id)),
    )


def new_template(display_name: str, template_id: str) -> Template:
    return Template(template_id, display_name, shipped_source(NEW_TEMPLATE_FILE), None)


def delete_template(c: sqlite3.Connection, project_id: str, template_id: str) -> bool:
    """Remove the project's own template, or bring a built-in one back to its shipped source."""
    deleted = c.execute(
        "DELETE FROM email_templates_28 WHERE project_id = ? AND id = ?", (project_id, template_id)
    ).rowcount
    return bool(deleted) or template_id in BUILT_IN_TEMPLATES


@dataclass(frozen=True)
class Theme:
    id: str
    display_name: str
    tsx_source: str


def themes(c: sqlite3.Connection, project_id: str) -> list[Theme]:
    rows = {
        row["id"]: row
        for row in c.execute("SELECT * FROM email_themes WHERE project_id = ? ORDER BY rowid", (project_id,))
    }
    out = []
    for theme_id, (name, file_name) in BUILT_IN_THEMES.items():
        row = rows.pop(theme_id, None)
        out.append(Theme(theme_id, name, shipped_source(file_name)) if row is None else _theme_row(row))
    out.extend(_theme_row(row) for row in rows.values())
    return out


def _has_own_server(c: sqlite3.Connection, project_id: str) -> bool:
    row = c.execute("SELECT config FROM projects WHERE id = ?", (project_id,)).fetchone()
    email_config = (load(row["config"]) or {}).get("email_config") if row is not None else None
    return isinstance(email_config, dict) and email_config.get("type") == "standard"


def _theme_row(row: sqlite3.Row) -> Theme:
    return Theme(row["id"], row["display_name"], row["tsx_source"])


def find_theme(c: sqlite3.Connection, project_id: str, theme_id: str) -> Theme | None:
    return next((t for t in themes(c, project_id) if t.id == theme_id), None)


def save_theme(c: sqlite3.Connection, project_id: str, theme: Theme) -> None:
    c.execute(
        "INSERT INTO email_themes (project_id, id, display_name, tsx_source) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name,"
        " tsx_source = excluded.tsx_source",
        (project_id, theme.id, theme.display_name, theme.tsx_source),
    )


def new_theme_source() -> str:
    return shipped_source(BUILT_IN_THEMES[DEFAULT_THEME_ID][1])


def rendering_error(error: TsxError | str) -> CatalogueError:
    return CatalogueError("EMAIL_RENDERING_ERROR", error=str(error))


def check_theme_source(source: str) -> None:
    """EMAIL_RENDERING_ERROR when the theme cannot be rendered."""
    try:
        check_theme(source)
    except TsxError as exc:
        raise rendering_error(exc) from None


def theme_source_for(c: sqlite3.Connection, project_id: str, theme_id: Any, project_theme: str) -> str | None:
    """The theme a template's `theme_id` picks: False = none (a bare document), None/absent =
    the project's."""
    if theme_id is False:
        return shipped_source(NO_THEME_FILE)
    chosen = project_theme if theme_id in (None, "absent") else str(theme_id)
    # (an id that is none of the project's themes gives the project's theme, as on the service)
    theme = (
        find_theme(c, project_id, chosen)
        or find_theme(c, project_id, project_theme)
        or find_theme(c, project_id, DEFAULT_THEME_ID)
    )
    return theme.tsx_source if theme else None


def preview(c: sqlite3.Connection, project_id: str, project_name: str, tsx_source: str, project_theme: str) -> Rendered:
    """Render a template source as the editor's preview (its PreviewVariables, a sample user);
    EMAIL_RENDERING_ERROR when it cannot be rendered or lacks a subject or category."""
    theme = theme_source_for(c, project_id, "absent", project_theme)
    try:
        result = render(
            tsx_source,
            theme,
            user={"displayName": "John Doe"},
            project={"displayName": project_name},
            variables={"projectDisplayName": project_name},
            preview=True,
        )
    except TsxError as exc:
        raise rendering_error(exc) from None
    if result.subject is None:
        raise rendering_error("Subject is required, import it from @stackframe/emails")
    if result.notification_category is None:
        raise rendering_error("NotificationCategory is required, import it from @stackframe/emails")
    return result


def render_mail(
    c: sqlite3.Connection,
    project_id: str,
    project_name: str,
    project_theme: str,
    kind: str,
    user_display_name: str | None,
    variables: dict[str, str],
) -> Rendered:
    """The mail of a flow from the project's template of `kind`. A template that no longer renders
    (say its theme was changed since) falls back to the shipped source, with a log line, so the
    flow still gets its mail."""
    template_id = TEMPLATE_OF_KIND[kind]
    chosen = find_template(c, project_id, template_id)
    shipped = shipped_source(BUILT_IN_TEMPLATES[template_id][2])
    source = chosen.tsx_source if chosen else shipped
    theme_id = chosen.theme_id if chosen else "absent"
    props: dict[str, Any] = {
        "user": {"displayName": user_display_name},
        "project": {"displayName": project_name},
        "variables": {"projectDisplayName": project_name, **variables},
    }
    try:
        result = render(source, theme_source_for(c, project_id, theme_id, project_theme), **props)
        if result.subject is None:
            raise TsxError("Subject is required")
    except TsxError as exc:
        logger.warning("The %s template of project %s does not render (%s); sending the default", kind, project_id, exc)
        result = render(shipped, theme_source_for(c, project_id, "absent", project_theme), **props)
    subject = " ".join((result.subject or "").split())  # one header line, whatever the names hold
    return Rendered(
        html=result.html, text=result.text, subject=subject, notification_category=result.notification_category
    )
