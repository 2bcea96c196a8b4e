"""The e-mail records of 2.8's config overrides: `emails.server` (the project's e-mail server,
environment level) and `emails.templates.<id>` (a TSX template, branch or environment level),
applied to what the local service keeps: the project's `email_config` (projects.py) and the rows
of its templates (email_templates_28.py).

    emails.server = {isShared, provider, host, port, username, password, senderName, senderEmail}
    emails.templates.<uuid> = {displayName, tsxSource, themeId}

As with the OAuth records (oauth_config.py), an object replaces the record, null removes it
(the shared server again; a built-in template back to its shipped source, an own template
deleted) and a dotted key changes one field of it. A server of its own (`isShared: false`)
needs the six fields a project's `email_config` needs (`host`, `port`, `username`, `password`,
`senderName`, `senderEmail`) and sends through SMTP: the `resend` and `managed` providers are
not offered. A template's source is kept as given and
rendered when a mail is sent (one that does not render gives way to the shipped source).
As on 2.8.86, a project on the shared server has the built-in templates only: its own stay
stored and come back with a server of its own.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .email_templates_28 import (
    BUILT_IN_TEMPLATES,
    Template,
    delete_template,
    find_template,
    save_template,
    shipped_source,
    templates,
)
from .errors import PlainError
from .ids import is_uuid

SERVER = "emails.server"
TEMPLATES = "emails.templates"
ROOTS = (SERVER, TEMPLATES)
#: Not a config key: the template changes an override makes ({id: Template or None}), which
#: the config-override route writes to the templates' rows (routes/config_override.py).
TEMPLATE_CHANGES = "__email_template_changes__"

#: emails.server field -> the local `email_config` field (None: no local counterpart).
_SERVER_FIELDS: dict[str, str | None] = {
    "isShared": None,
    "provider": None,
    "host": "host",
    "port": "port",
    "username": "username",
    "password": "password",
    "senderName": "sender_name",
    "senderEmail": "sender_email",
    "managedSubdomain": None,
    "managedSenderLocalPart": None,
}
_TEMPLATE_FIELDS = ("displayName", "tsxSource", "themeId")


def is_record_key(key: str) -> bool:
    return any(key == root or key.startswith(root + ".") for root in ROOTS)


def is_whole_record(path: str) -> bool:
    """`emails.server` or `emails.templates.<id>` (a whole record)."""
    return path == SERVER or (path.startswith(TEMPLATES + ".") and "." not in path[len(TEMPLATES) + 1 :])


def apply(c: sqlite3.Connection, project_id: str, config: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    """The changes the records make: `email_config`, and TEMPLATE_CHANGES for the rows."""
    changes: dict[str, Any] = {}
    server: dict[str, Any] | None = _server_record(config.get("email_config") or {"type": "shared"})
    changed: dict[str, Template | None] = {}
    for key, value in records.items():
        if key == SERVER or key.startswith(SERVER + "."):
            server = _changed(server, key[len(SERVER) + 1 :], value, SERVER, tuple(_SERVER_FIELDS))
            changes["email_config"] = _email_config(server)
            continue
        template_id, _, field = key[len(TEMPLATES) + 1 :].partition(".")
        if not template_id:
            raise PlainError(400, f"Invalid config override: set {TEMPLATES} one by one, as {TEMPLATES}.<id>.")
        if not is_uuid(template_id):
            raise PlainError(400, f"Invalid config override: {TEMPLATES}.{template_id}: a template's id is a UUID.")
        current = changed[template_id] if template_id in changed else find_template(c, project_id, template_id)
        if field and current is None:
            continue  # a field of a template that does not exist sets nothing (it has no source)
        record = _changed(
            None if current is None else _template_record(current),
            field, value, f"{TEMPLATES}.{template_id}", _TEMPLATE_FIELDS,
        )  # fmt: skip
        changed[template_id] = None if record is None else _template(template_id, record)
    if changed:
        changes[TEMPLATE_CHANGES] = changed
    return changes


def _changed(
    record: dict[str, Any] | None, field: str, value: Any, where: str, fields: tuple[str, ...]
) -> dict[str, Any] | None:
    """The record after `where[.field] = value` (None: removed)."""
    if field:
        if field not in fields:
            raise PlainError(400, f"Invalid config override: {where} has no field {field}.")
        return {**(record or {}), field: value}
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PlainError(400, f"Invalid config override: {where} must be an object or null.")
    unknown = [name for name in value if name not in fields]
    if unknown:
        raise PlainError(400, f"Invalid config override: {where} has unknown fields {', '.join(unknown)}.")
    return dict(value)


def _server_record(email_config: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"isShared": email_config.get("type") != "standard", "provider": "smtp"}
    if not record["isShared"]:
        for name, local in _SERVER_FIELDS.items():
            if local is not None and email_config.get(local) is not None:
                record[name] = email_config[local]
    return record


def _email_config(record: dict[str, Any] | None) -> dict[str, Any]:
    """The local `email_config` of a server record (None or `isShared` not false: shared)."""
    if record is None or record.get("isShared", True) is not False:
        return {"type": "shared"}
    provider = record.get("provider", "smtp")
    if provider != "smtp":
        raise PlainError(
            400,
            f"Invalid config override: {SERVER}.provider {provider!r} is not offered by the authmw local"
            " service, which sends through SMTP; use provider smtp with host, port and senderEmail.",
        )
    missing = [name for name, local in _SERVER_FIELDS.items() if local and record.get(name) in (None, "")]
    if missing:
        raise PlainError(
            400, f"Invalid config override: an e-mail server of the project's own ({SERVER}) needs {', '.join(missing)}."
        )
    if not isinstance(record["port"], int) or isinstance(record["port"], bool) or not 0 < record["port"] < 65536:
        raise PlainError(400, f"Invalid config override: {SERVER}.port must be a port number (1-65535).")
    for name, local in _SERVER_FIELDS.items():
        if local is not None and local != "port" and record.get(name) is not None and not isinstance(record[name], str):
            raise PlainError(400, f"Invalid config override: {SERVER}.{name} must be a string.")
    config: dict[str, Any] = {"type": "standard"}
    for name, local in _SERVER_FIELDS.items():
        if local is not None and record.get(name) is not None:
            config[local] = record[name]
    return config


def _template_record(template: Template) -> dict[str, Any]:
    record: dict[str, Any] = {"displayName": template.display_name, "tsxSource": template.tsx_source}
    if template.theme_id != "absent":
        record["themeId"] = template.theme_id
    return record


def _template(template_id: str, record: dict[str, Any]) -> Template:
    where = f"{TEMPLATES}.{template_id}"
    for name in ("displayName", "tsxSource"):
        if not isinstance(record.get(name), str):
            raise PlainError(400, f"Invalid config override: {where}.{name} must be a string.")
    theme = record.get("themeId", "absent")
    if not (theme in ("absent", None, False) or (isinstance(theme, str) and is_uuid(theme))):
        raise PlainError(400, f"Invalid config override: {where}.themeId must be a theme's id, false or null.")
    return Template(template_id, record["displayName"], record["tsxSource"], theme)


def write_templates(c: sqlite3.Connection, project_id: str, changed: dict[str, Template | None]) -> None:
    """Save the template changes of an override into the project's rows."""
    for template_id, template in changed.items():
        if template is None:
            delete_template(c, project_id, template_id)
        else:
            save_template(c, project_id, template)


def rendered(c: sqlite3.Connection, project_id: str, config: dict[str, Any]) -> dict[str, Any]:
    """`emails.server` and `emails.templates` in the 2.8 config shape (dotted keys): on the shared
    server, the built-in templates as shipped only (2.8.86 renders its defaults there)."""
    email_config = config.get("email_config") or {"type": "shared"}
    if email_config.get("type") == "standard":
        kept = templates(c, project_id)
    else:
        kept = [Template(tid, name, shipped_source(file)) for tid, (_, name, file) in BUILT_IN_TEMPLATES.items()]
    return {SERVER: _server_record(email_config), TEMPLATES: {t.id: _template_record(t) for t in kept}}
