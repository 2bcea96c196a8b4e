"""`authmw project|keys|users ...`: the admin tier from the command line.

Settings: ``--env-file PATH``; else the first ``.authmw/project.env`` (what ``authmw dev``
writes) in the current folder or a folder above it, when the user running the command owns it;
else the ``AUTHMW_*`` / ``STACK_*`` environment variables. ``-v`` says which was used. Errors are one line on stderr with exit
status 2; a call that takes longer than a second shows what it waits for on stderr. Each call
is sent once: a service that does not answer is said at once, not after retries.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import pydantic

from ._apps import AdminApp
from ._config import HOSTED_API_URL, VERSION, AuthConfig, read_env_file
from ._production import DEFAULT_DASHBOARD_URL, LOCALHOST_ALLOWED, ProductionModeError, production_mode_errors
from .errors import (
    ApiKeyNotFound,
    AuthmwError,
    ConfigurationError,
    KnownError,
    SchemaError,
    ServiceUnreachable,
    SettingsFileNotFound,
)
from .models import AdminOAuthProvider, AdminProject, AdminProjectConfigUpdate, ApiKey, ServerUser

__all__ = ["ENV_FILE", "PROGRESS_DELAY_SECONDS", "dashboard_for", "find_env_file", "fix_text", "register"]

#: Calls that take longer than this show a progress line on stderr.
PROGRESS_DELAY_SECONDS = 1.0
#: Shown in place of secrets unless --show-secrets is given.
HIDDEN = "********"
#: A new key set lives this long unless --expires-in says otherwise.
DEFAULT_KEY_LIFETIME = "90d"
#: The settings file looked for in the current folder and the folders above it.
ENV_FILE = Path(".authmw") / "project.env"
#: Seconds a command waits for one answer of the service.
TIMEOUT_SECONDS = 15.0
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

#: The on/off settings of a project, in the order of the model.
_BOOLEAN_SETTINGS = tuple(
    name for name, field in AdminProjectConfigUpdate.model_fields.items() if field.annotation == (bool | None)
)
_PROJECT_SETTINGS = ("display_name", "description", "is_production_mode")
_LIST_SETTINGS = ("domains",)
#: One OAuth provider, given as a JSON object; the project's other providers are kept.
_PROVIDER_SETTING = "oauth_provider"
#: What happens to a sign-up no rule decided (API 2.8); the rules are `authmw sign-up-rules`.
SIGN_UP_DEFAULT = "sign_up_default_action"
SETTINGS = (*_PROJECT_SETTINGS, *_BOOLEAN_SETTINGS, *_LIST_SETTINGS, _PROVIDER_SETTING, SIGN_UP_DEFAULT)
_TRUE, _FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


class CommandError(Exception):
    """A one-line error of a command (exit status 2)."""


# -- plumbing ----------------------------------------------------------------------------------


@contextmanager
def progress(what: str, stream: TextIO | None = None) -> Iterator[None]:
    """Say ``what...`` on stderr if the block takes longer than PROGRESS_DELAY_SECONDS."""
    stream = stream or sys.stderr
    done = threading.Event()
    shown = threading.Event()
    lock = threading.Lock()

    def show() -> None:
        with lock:
            if not done.is_set():
                stream.write(f"{what}...\n")
                stream.flush()
                shown.set()

    if PROGRESS_DELAY_SECONDS <= 0:
        show()
        timer = None
    else:
        timer = threading.Timer(PROGRESS_DELAY_SECONDS, show)
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        with lock:
            done.set()
        if timer is not None:
            timer.cancel()


def find_env_file(start: Path | None = None) -> Path | None:
    """The first ``.authmw/project.env`` in ``start`` (default: the current folder) or a folder above it."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ENV_FILE).is_file():
            return candidate / ENV_FILE
    return None


def _refuse_a_planted(found: Path) -> None:
    """A settings file found by looking (not named) must be the user's own. In a shared folder
    (/tmp, a shared checkout) another account could leave a ``.authmw/project.env`` that sends
    every command, and what it carries (users, passwords), to a service of its own."""
    if not hasattr(os, "getuid"):  # Windows: no owner ids to compare
        return
    owner = found.stat().st_uid
    if owner != os.getuid():
        raise CommandError(
            f"{found} belongs to another account (uid {owner}), so its service may not be yours; "
            f"pass --env-file {found} to use it anyway, or run the command in your own app's folder"
        )


def _config(args: argparse.Namespace) -> AuthConfig:
    """The settings, as the module docstring says; records where they came from in ``args.source``."""
    found = None if args.env_file else find_env_file()
    if found is not None:
        _refuse_a_planted(found)
    file = args.env_file or found
    if args.env_file:
        args.source = f"--env-file {args.env_file}"
    elif found is not None:
        args.source = str(found)
    else:
        args.source = _FROM_VARIABLES
    if args.verbose:
        where = "" if file else f" (no {ENV_FILE} in {Path.cwd()} or a folder above it)"
        print(f"authmw: settings from {args.source}{where}", file=sys.stderr)
    try:
        if file:
            values = read_env_file(file)
            if not any(values.get(name) for name in _PROJECT_ID_VARIABLES):
                raise CommandError(
                    f"{args.source} has no AUTHMW_PROJECT_ID line: use the project.env that `authmw dev` writes, "
                    "or add AUTHMW_PROJECT_ID=<the project's id>"
                )
            return AuthConfig.from_env(values)
        return AuthConfig.from_env()
    except SettingsFileNotFound:
        if Path(args.env_file).is_dir():
            raise CommandError(
                f"--env-file: {args.env_file} is a folder; pass the project.env inside it "
                f"({Path(args.env_file) / 'project.env'})"
            ) from None
        raise CommandError(
            f"--env-file: there is no settings file at {args.env_file} ({Path(args.env_file).resolve()}); pass the "
            "project.env that `authmw dev --data-dir <folder>` writes into <folder>, or leave --env-file out to "
            f"read {ENV_FILE} of this folder or one above it"
        ) from None
    except ConfigurationError as error:
        if file:
            raise CommandError(f"{args.source}: {error}") from None
        if not any(os.environ.get(name) for name in _PROJECT_ID_VARIABLES):
            raise CommandError(
                f"no project settings: no {ENV_FILE} in {Path.cwd()} or a folder above it, and AUTHMW_PROJECT_ID "
                "is not set. Run `authmw dev --background` in your app's folder (it writes that file), "
                "pass --env-file PATH, or set the AUTHMW_* variables."
            ) from None
        raise CommandError(f"{args.source}: {error}") from None


_FROM_VARIABLES = "the AUTHMW_* environment variables"
_PROJECT_ID_VARIABLES = ("AUTHMW_PROJECT_ID", "STACK_PROJECT_ID", "NEXT_PUBLIC_STACK_PROJECT_ID")


def _admin(args: argparse.Namespace) -> AdminApp:
    config = _config(args)
    if not config.super_secret_admin_key:
        raise CommandError(
            f"{args.source} has no super secret admin key (AUTHMW_SUPER_SECRET_ADMIN_KEY), which these commands "
            "need: use the project.env that `authmw dev` writes, or a key set made with `authmw keys create --admin`."
        )
    return AdminApp(config, timeout=TIMEOUT_SECONDS, max_attempts=1)


def _unreachable(error: ServiceUnreachable, args: argparse.Namespace) -> str:
    """A service that did not answer, in one line: where, why, and what to do."""
    start = " (for the local service: `authmw dev --background`)" if _on_this_machine(error.api_url) else ""
    setting = "AUTHMW_API_URL" if args.source == _FROM_VARIABLES else f"AUTHMW_API_URL in {args.source}"
    return f"no answer from the service at {error.api_url} ({error.cause}). Start it{start}, or point {setting} at it."


def _refused(error: KnownError) -> str:
    """A known error of the service in a command's words: its message without the wire code,
    and a refused request (SCHEMA_ERROR) as the reasons the service gave."""
    if not isinstance(error, SchemaError):
        return error.message
    _, found, reasons = error.message.partition(": ")  # "Request validation failed on PATCH /api/...: - reason"
    lines = [line.strip().removeprefix("- ").strip() for line in (reasons if found else error.message).splitlines()]
    return "the service refused the value: " + "; ".join(line for line in lines if line)


def _on_this_machine(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def _when(value: dt.datetime | None) -> str:
    return "-" if value is None else value.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _on(value: bool | None) -> str:
    return "-" if value is None else "on" if value else "off"  # None: the service does not say


def _table(rows: Sequence[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out.writelines("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() + "\n" for row in rows)


def _json(value: Any, out: TextIO) -> None:
    out.write(json.dumps(value, indent=2, default=str) + "\n")


def parse_duration(text: str) -> dt.timedelta:
    """``30d``, ``12h``, ``2w``, ``1y``, ``90m``, ``45s`` (a number and one unit)."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhdwy])\s*", text)
    if not match or int(match.group(1)) == 0:
        raise CommandError(f"--expires-in takes a number and a unit (s, m, h, d, w, y) such as 30d, not {text!r}")
    return dt.timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


# -- project -----------------------------------------------------------------------------------


def _project_dict(project: AdminProject, show_secrets: bool) -> dict[str, Any]:
    data = project.model_dump(mode="json")
    if not show_secrets:
        for provider in data["config"]["oauth_providers"]:
            if provider.get("client_secret"):
                provider["client_secret"] = HIDDEN
        if data["config"]["email_config"].get("password"):
            data["config"]["email_config"]["password"] = HIDDEN
    return data


def _project_summary(project: AdminProject, show_secrets: bool, out: TextIO) -> None:
    config = project.config
    providers = [
        f"{p.id} ({p.type}, {'enabled' if p.enabled else 'disabled'}"
        + (f", client id {p.client_id}" if p.client_id else "")
        + (f", secret {p.client_secret if show_secrets else HIDDEN}" if p.client_secret else "")
        + ")"
        for p in config.oauth_providers
    ]
    mail = config.email_config
    if mail.type == "standard":
        password = mail.password if show_secrets else HIDDEN
        email = f"SMTP {mail.username}@{mail.host}:{mail.port} (password {password}), from {mail.sender_name} <{mail.sender_email}>"
    else:
        email = "shared (the service's sender)"
    rows = [
        ("Project", f"{project.display_name} ({project.id})"),
        ("Description", project.description or "-"),
        ("Created", _when(project.created_at)),
        # API 2.8 no longer counts the users in the project's view: the row is left out then.
        *([("Users", str(project.user_count))] if project.user_count is not None else []),
        ("Production mode", _on(project.is_production_mode)),
        *((name, _on(getattr(config, name))) for name in _BOOLEAN_SETTINGS),
        ("Domains", ", ".join(f"{d.domain} (handler {d.handler_path})" for d in config.domains) or "none"),
        ("OAuth providers", "; ".join(providers) or "none"),
        ("E-mail", email),
        ("Team creator permissions", ", ".join(p.id for p in config.team_creator_default_permissions) or "none"),
        ("Team member permissions", ", ".join(p.id for p in config.team_member_default_permissions) or "none"),
    ]
    _table(rows, out)


def _project_show(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Reading the project"):
        project = admin.get_project()
    if args.json:
        _json(_project_dict(project, args.show_secrets), out)
    else:
        _project_summary(project, args.show_secrets, out)
    return 0


def _project_check(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Reading the project"):
        project = admin.get_project()
    dashboard = dashboard_for(admin.config.api_url, args.dashboard_url)
    problems = production_mode_errors(project, dashboard_url=dashboard or DEFAULT_DASHBOARD_URL)
    if not problems:
        out.write(f"{project.display_name} ({project.id}) is ready for production mode.\n")
        return 0
    out.writelines(
        f"{problem.message} (fix: {fix_text(problem, admin.config.api_url, dashboard)})\n" for problem in problems
    )
    return 1


def dashboard_for(api_url: str, dashboard_url: str | None) -> str | None:
    """The dashboard the fix links point at: ``--dashboard-url``, else the hosted one for the
    hosted service, else none (the local service has no dashboard; a self-hosted one's is unknown)."""
    if dashboard_url:
        return dashboard_url
    return DEFAULT_DASHBOARD_URL if api_url == HOSTED_API_URL else None


def fix_text(problem: ProductionModeError, api_url: str, dashboard: str | None) -> str:
    """How to fix ``problem``: the ``authmw project set`` command, and the dashboard page when known."""
    if problem.message == LOCALHOST_ALLOWED:
        command = "authmw project set allow-localhost off"
    else:
        command = "authmw project set domains https://app.example.com,..."
    if dashboard:
        return f"{command}, or {problem.fix_url}"
    if _on_this_machine(api_url):
        return command
    return f"{command}, or your dashboard's {problem.relative_fix_url} (--dashboard-url URL prints the link)"


def _setting_value(key: str, value: str) -> Any:
    if key in _BOOLEAN_SETTINGS or key == "is_production_mode":
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise CommandError(f"{key} takes true or false (on/off, yes/no), not {value!r}")
    if key == "domains":
        domains = [d.strip() for d in value.split(",") if d.strip()]
        return [{"domain": d, "handler_path": "/handler"} for d in domains]
    return value


def _project_set(args: argparse.Namespace, out: TextIO) -> int:
    key = args.key.strip().replace("-", "_").lower()
    key = {"production_mode": "is_production_mode", "name": "display_name"}.get(key, key)
    if key == SIGN_UP_DEFAULT:  # a 2.8 config setting: the same as `authmw sign-up-rules default`
        if args.value not in ("allow", "reject"):
            raise CommandError(f"{SIGN_UP_DEFAULT} takes allow or reject, not {args.value!r}")
        args.action = args.value
        return _rules_default(args, out)
    if key not in SETTINGS:
        raise CommandError(f"unknown setting {args.key!r}; one of: {', '.join(SETTINGS)}")
    if key == _PROVIDER_SETTING:
        return _set_provider(args, out)
    value = _setting_value(key, args.value)
    change = {key: value} if key in _PROJECT_SETTINGS else {"config": {key: value}}
    with _admin(args) as admin, progress("Saving the project"):
        project = admin.update_project(change)
    shown = getattr(project, key) if key in _PROJECT_SETTINGS else getattr(project.config, key)
    if shown is None and isinstance(value, bool):
        shown = value  # saved, though the service's answer does not show it (require_email_verification)
    if key == "domains":
        shown = ", ".join(d.domain for d in shown) or "none"
    elif isinstance(shown, bool):
        shown = _on(shown)
    out.write(f"{key} = {shown}\n")
    return 0


def _set_provider(args: argparse.Namespace, out: TextIO) -> int:
    """``project set oauth_provider '{"id": "google", "type": "standard", ...}'``: add or replace
    that provider (by id), keeping the others."""
    try:
        provider = AdminOAuthProvider.model_validate(json.loads(args.value))
    except (ValueError, pydantic.ValidationError) as error:
        raise CommandError(
            'oauth_provider takes a JSON object such as {"id": "google", "type": "standard", "client_id": "...",'
            f' "client_secret": "..."}} ({str(error).splitlines()[0]})'
        ) from None
    with _admin(args) as admin, progress("Saving the project"):
        current = admin.get_project().config.oauth_providers
        providers = [p for p in current if p.id != provider.id] + [provider]
        project = admin.update_project(config={"oauth_providers": providers})
    saved = next((p for p in project.config.oauth_providers if p.id == provider.id), None)
    if saved is None:
        out.write(f"oauth_provider {provider.id} = off\n")
        return 0
    where = f", issuer {saved.oidc_issuer_url}" if saved.oidc_issuer_url else ""
    real = " (the real provider)" if saved.real_provider or saved.oidc_issuer_url else ""
    out.write(f"oauth_provider {saved.id} = {saved.type}{real}{where}\n")
    return 0


# -- keys --------------------------------------------------------------------------------------


def _key_status(key: ApiKey) -> str:
    reason = key.why_invalid()
    return {"expired": "expired", "manually-revoked": "revoked"}.get(reason or "", "valid")


def _keys_create(args: argparse.Namespace, out: TextIO) -> int:
    lifetime = parse_duration(args.expires_in)
    expires = dt.datetime.now(dt.timezone.utc) + lifetime
    with _admin(args) as admin, progress("Creating the keys"):
        created = admin.api_keys.create(
            description=args.description,
            expires_at_millis=expires,
            has_publishable_client_key=not args.no_publishable,
            has_secret_server_key=True,
            has_super_secret_admin_key=args.admin,
        )
    print(f"Created key set {created.id}, valid until {_when(created.expires_at)}.", file=sys.stderr)
    out.write(f"AUTHMW_PROJECT_ID={admin.config.project_id}\n")
    for name, value in (
        ("AUTHMW_PUBLISHABLE_CLIENT_KEY", created.publishable_client_key),
        ("AUTHMW_SECRET_SERVER_KEY", created.secret_server_key),
        ("AUTHMW_SUPER_SECRET_ADMIN_KEY", created.super_secret_admin_key),
    ):
        if value:
            out.write(f"{name}={value}\n")
    print("Store them now: the full keys are not shown again.", file=sys.stderr)
    return 0


def _keys_list(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Listing the keys"):
        keys = admin.api_keys.list()
    if args.json:
        _json([{**key.model_dump(mode="json"), "status": _key_status(key)} for key in keys], out)
        return 0
    if not keys:
        out.write("No API keys.\n")
        return 0
    rows = [("ID", "DESCRIPTION", "STATUS", "CREATED", "EXPIRES", "KEYS")]
    for key in keys:
        lasts = [
            f"{prefix}...{last}"
            for prefix, last in (
                ("pck_", key.publishable_client_key_last_four),
                ("ssk_", key.secret_server_key_last_four),
                ("sak_", key.super_secret_admin_key_last_four),
            )
            if last
        ]
        rows.append(
            (key.id, key.description, _key_status(key), _when(key.created_at), _when(key.expires_at), " ".join(lasts))
        )
    _table(rows, out)
    return 0


def _keys_revoke(args: argparse.Namespace, out: TextIO) -> int:
    key_id = args.id.strip()
    if not _UUID.fullmatch(key_id):
        raise CommandError(
            f"{args.id!r} is not a key set id: ids are UUIDs such as 3f0c8a52-9d1e-4c07-b1a4-5e2f6d7c8b90, "
            "`authmw keys list` shows them"
        )
    with _admin(args) as admin, progress("Revoking the keys"):
        try:
            key = admin.api_keys.get(key_id)
            if key.why_invalid() == "manually-revoked":
                out.write(f"Key set {key.id} ({key.description}) was already revoked.\n")
                return 0
            key = admin.api_keys.revoke(key_id)
        except ApiKeyNotFound:
            raise CommandError(
                f"no key set {key_id} in project {admin.config.project_id}; `authmw keys list` shows them"
            ) from None
    out.write(f"Revoked key set {key.id} ({key.description}).\n")
    return 0


# -- users -------------------------------------------------------------------------------------


def _user_row(user: ServerUser) -> tuple[str, str, str, str]:
    return (user.id, user.primary_email or "-", user.display_name or "-", _when(user.signed_up_at))


def _users_list(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Listing the users"):
        users = list(
            admin.users.iter(
                query=args.query or None, include_anonymous=args.anonymous, include_restricted=args.restricted
            )
        )
    if args.json:
        _json([user.model_dump(mode="json") for user in users], out)
        return 0
    if not users:
        out.write("No users" + (f" match {args.query!r}" if args.query else "") + ".\n")
        return 0
    _table([("ID", "E-MAIL", "NAME", "SIGNED UP"), *(_user_row(user) for user in users)], out)
    return 0


def _users_create(args: argparse.Namespace, out: TextIO) -> int:
    fields: dict[str, Any] = {"primary_email": args.email, "primary_email_auth_enabled": True}
    if args.verified:
        fields["primary_email_verified"] = True
    if args.display_name:
        fields["display_name"] = args.display_name
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise CommandError("--password-stdin: no password on standard input")
        fields["password"] = password
    with _admin(args) as admin, progress("Creating the user"):
        user = admin.users.create(**fields)
    out.write(f"{user.id}\n")
    print(f"Created user {user.primary_email} ({user.id}).", file=sys.stderr)
    return 0


# -- project permission definitions (API 2.8) ------------------------------------------------


def _permissions_list(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Listing the permissions"):
        definitions = admin.project_permission_definitions.list()
    if args.json:
        _json([definition.model_dump(mode="json") for definition in definitions], out)
        return 0
    if not definitions:
        out.write("No project permissions.\n")
        return 0
    rows = [("ID", "DESCRIPTION", "CONTAINS")]
    rows += [(d.id, d.description or "-", ", ".join(d.contained_permission_ids) or "-") for d in definitions]
    _table(rows, out)
    return 0


def _permissions_create(args: argparse.Namespace, out: TextIO) -> int:
    fields: dict[str, Any] = {}
    if args.description:
        fields["description"] = args.description
    if args.contains:
        fields["contained_permission_ids"] = args.contains
    with _admin(args) as admin, progress("Creating the permission"):
        created = admin.project_permission_definitions.create(args.id, **fields)
    out.write(f"Created project permission {created.id}.\n")
    return 0


def _permissions_delete(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Deleting the permission"):
        admin.project_permission_definitions.delete(args.id)
    out.write(f"Deleted project permission {args.id} (and every grant of it).\n")
    return 0


# -- sign-up rules (API 2.8) ------------------------------------------------------------------


def _rules_list(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Reading the sign-up rules"):
        listed = admin.sign_up_rules.list()
    if args.json:
        _json(listed.model_dump(mode="json"), out)
        return 0
    if listed.rules:
        rows = [("ID", "PRIORITY", "ACTION", "ON", "CONDITION", "NAME")]
        rows += [
            (rule_id, str(rule.priority), rule.action, _on(rule.enabled), rule.condition or "-", rule.display_name or "-")
            for rule_id, rule in listed.rules.items()
        ]
        _table(rows, out)
    else:
        out.write("No sign-up rules.\n")
    out.write(f"When no rule decides: {listed.default_action}\n")
    return 0


def _rules_set(args: argparse.Namespace, out: TextIO) -> int:
    fields: dict[str, Any] = {"condition": args.condition, "action": args.action, "enabled": not args.disabled}
    fields["priority"] = args.priority
    if args.name is not None:
        fields["display_name"] = args.name
    if args.message is not None:
        fields["message"] = args.message
    with _admin(args) as admin, progress("Saving the sign-up rule"):
        admin.sign_up_rules.set(args.id, **fields)
    state = "off" if args.disabled else "on"
    out.write(f"Sign-up rule {args.id} ({state}): {args.action} when {args.condition}\n")
    return 0


def _rules_delete(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Deleting the sign-up rule"):
        admin.sign_up_rules.delete(args.id)
    out.write(f"Deleted sign-up rule {args.id}.\n")
    return 0


def _rules_default(args: argparse.Namespace, out: TextIO) -> int:
    with _admin(args) as admin, progress("Saving the default action"):
        admin.sign_up_rules.set_default_action(args.action)
    out.write(f"When no rule decides: {args.action}\n")
    return 0


# -- registration ------------------------------------------------------------------------------

Handler = Callable[[argparse.Namespace, TextIO], int]


def _run(handler: Handler) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args, sys.stdout)
        except ServiceUnreachable as error:
            print(f"authmw {args.command}: {_unreachable(error, args)}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # the reader of the output left (`| head`): main() ends quietly
            raise
        except (AuthmwError, CommandError, ValueError, OSError) as error:
            text = _refused(error) if isinstance(error, KnownError) else str(error)
            message = " ".join(text.split()) or type(error).__name__
            print(f"authmw {args.command}: {message}", file=sys.stderr)
            return 2

    return run


def register(parser: argparse.ArgumentParser, commands: Any) -> None:
    """Add ``--version`` and the ``project``, ``keys``, ``users`` and ``permissions`` commands to
    the ``authmw`` parser."""
    parser.add_argument("--version", action="version", version=f"authmw {VERSION}")
    settings = argparse.ArgumentParser(add_help=False)
    settings.add_argument(
        "--env-file",
        metavar="PATH",
        help=f"read the settings from this file (default: the first {ENV_FILE} in this folder or one above it, "
        "else the AUTHMW_* variables)",
    )
    settings.add_argument("-v", "--verbose", action="store_true", help="say where the settings were read from")

    def group(name: str, help_text: str) -> Any:
        sub = commands.add_parser(name, help=help_text)
        return sub.add_subparsers(dest="action", required=True, metavar="ACTION")

    project = group("project", "show, check or change the project's settings (admin key)")
    show = project.add_parser("show", parents=[settings], help="a summary of the project's settings")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    show.add_argument("--show-secrets", action="store_true", help="print OAuth client secrets and the SMTP password")
    show.set_defaults(run=_run(_project_show))
    check = project.add_parser("check", parents=[settings], help="the production-mode checks (exit 1 when not ready)")
    check.add_argument(
        "--dashboard-url",
        default=None,
        help=f"base of the dashboard fix links (default {DEFAULT_DASHBOARD_URL} for the hosted service, "
        "none for the local one)",
    )
    check.set_defaults(run=_run(_project_check))
    set_ = project.add_parser(
        "set", parents=[settings], help="change one setting", description="Settings: " + ", ".join(SETTINGS) + "."
    )
    set_.add_argument("key", help="a setting (say allow_localhost)")
    set_.add_argument("value", help="its value: true/false, text, or comma-separated domains")
    set_.set_defaults(run=_run(_project_set))

    keys = group("keys", "create, list or revoke API keys (admin key)")
    create = keys.add_parser("create", parents=[settings], help="create a key set and print its keys once")
    create.add_argument("--description", default="Created with the authmw CLI", help="what the keys are for")
    create.add_argument(
        "--expires-in",
        default=DEFAULT_KEY_LIFETIME,
        help=f"lifetime such as 30d, 12h, 1y (default {DEFAULT_KEY_LIFETIME})",
    )
    create.add_argument("--admin", action="store_true", help="also create a super secret admin key")
    create.add_argument("--no-publishable", action="store_true", help="no publishable client key")
    create.set_defaults(run=_run(_keys_create))
    list_keys = keys.add_parser("list", parents=[settings], help="the key sets (last four characters only)")
    list_keys.add_argument("--json", action="store_true", help="print JSON for scripts")
    list_keys.set_defaults(run=_run(_keys_list))
    revoke = keys.add_parser("revoke", parents=[settings], help="revoke a key set: its keys stop working at once")
    revoke.add_argument("id", help="the key set's id (from keys list)")
    revoke.set_defaults(run=_run(_keys_revoke))

    users = group("users", "list or create users (admin key)")
    list_users = users.add_parser("list", parents=[settings], help="the project's users")
    list_users.add_argument("--query", help="only users whose e-mail, name or id contains this")
    list_users.add_argument("--json", action="store_true", help="print JSON for scripts")
    list_users.add_argument(
        "--restricted", action="store_true", help="include restricted users (API 2.8 leaves them out)"
    )
    list_users.add_argument(
        "--anonymous", action="store_true", help="include anonymous and restricted users (API 2.8)"
    )
    list_users.set_defaults(run=_run(_users_list))
    create_user = users.add_parser("create", parents=[settings], help="create a user (prints the new id)")
    create_user.add_argument("--email", required=True, help="the user's primary e-mail")
    create_user.add_argument("--display-name", help="the user's name")
    create_user.add_argument("--verified", action="store_true", help="mark the e-mail as verified")
    create_user.add_argument(
        "--password-stdin", action="store_true", help="read a password from standard input (first line)"
    )
    create_user.set_defaults(run=_run(_users_create))

    rules = group("sign-up-rules", "who may sign up: list, set or delete sign-up rules (admin key, API 2.8)")
    list_rules = rules.add_parser("list", parents=[settings], help="the rules in the order they are tried")
    list_rules.add_argument("--json", action="store_true", help="print JSON for scripts")
    list_rules.set_defaults(run=_run(_rules_list))
    set_rule = rules.add_parser(
        "set",
        parents=[settings],
        help="create or replace a rule",
        description="A condition is a CEL expression over email, emailDomain, authMethod (password, otp, oauth, "
        'passkey), oauthProvider and countryCode, e.g. \'emailDomain in ["tempmail.com"]\' or '
        "'email.endsWith(\"@acme.com\")'.",
    )
    set_rule.add_argument("id", help="the rule's id (letters, digits, _ and -)")
    set_rule.add_argument("--condition", required=True, help="when the rule matches (a CEL expression)")
    set_rule.add_argument(
        "--action",
        required=True,
        choices=("allow", "reject", "restrict", "log"),
        help="allow or reject decide; restrict makes the user restricted and goes on; log only counts",
    )
    set_rule.add_argument("--priority", type=int, default=0, help="higher is tried first (default 0)")
    set_rule.add_argument("--name", help="a name for people")
    set_rule.add_argument("--message", help="a note for the project's staff (never shown to the user)")
    set_rule.add_argument("--disabled", action="store_true", help="save the rule switched off")
    set_rule.set_defaults(run=_run(_rules_set))
    delete_rule = rules.add_parser("delete", parents=[settings], help="delete a rule")
    delete_rule.add_argument("id", help="the rule's id")
    delete_rule.set_defaults(run=_run(_rules_delete))
    default_rule = rules.add_parser(
        "default", parents=[settings], help="what happens when no rule decides (reject: an allowlist)"
    )
    default_rule.add_argument("action", choices=("allow", "reject"))
    default_rule.set_defaults(run=_run(_rules_default))

    permissions = group("permissions", "list, create or delete project permissions (admin key, API 2.8)")
    list_permissions = permissions.add_parser("list", parents=[settings], help="the project permission definitions")
    list_permissions.add_argument("--json", action="store_true", help="print JSON for scripts")
    list_permissions.set_defaults(run=_run(_permissions_list))
    create_permission = permissions.add_parser("create", parents=[settings], help="define a project permission")
    create_permission.add_argument("id", help="lower-case letters, digits, _ and : (say docs:write)")
    create_permission.add_argument("--description", help="what holding it allows")
    create_permission.add_argument(
        "--contains", action="append", metavar="ID", help="a project permission it includes (repeatable)"
    )
    create_permission.set_defaults(run=_run(_permissions_create))
    delete_permission = permissions.add_parser(
        "delete", parents=[settings], help="delete a project permission and every grant of it"
    )
    delete_permission.add_argument("id", help="the permission's id")
    delete_permission.set_defaults(run=_run(_permissions_delete))
