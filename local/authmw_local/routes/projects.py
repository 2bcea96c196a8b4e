"""The current project: read, update, delete (service-api A5.8).

API 2.8 (service-api B14.4): `/projects/current` is the client view on every tier and has no
PATCH / DELETE (405); the admin view and changes live at `/internal/projects/current`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from .. import oauth_config
from ..api_version import ApiVersion
from ..auth import INTERNAL_PROJECT_ID
from ..db import dump, load
from ..email_templates_28 import find_theme
from ..endpoint import ADMIN, ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError, schema_error
from ..outside_oauth import setting_problem
from ..projects import BOOLEAN_FLAGS, LOGO_FIELDS, Project, save_project, system_permissions, user_count
from ..schema import Arr, Bool, Num, Obj, Str, Unprefixed, Uuid
from ..user_updates import MAX_IMAGE_URL_LENGTH

OAUTH_PROVIDER_IDS = (
    "google", "github", "microsoft", "spotify", "facebook", "discord",
    "gitlab", "bitbucket", "linkedin", "apple", "x",
)  # fmt: skip
SHARED_OAUTH_PROVIDER_IDS = ("google", "github", "microsoft", "spotify")
_BASE64_IMAGE = re.compile(r"^data:image/[a-zA-Z0-9]+;base64,")
EMAIL_CONFIG_FIELDS = ("host", "port", "username", "password", "sender_name", "sender_email")


def _http_url(value: str) -> str | None:
    return None if value.startswith(("http://", "https://")) else Unprefixed("URL must start with http:// or https://")


def _permission_refs() -> Arr:
    return Arr(Obj({"id": Str(required=True)}))


def project_body(*, creating: bool, api_28: bool = False) -> Obj:
    """The PATCH /projects/current body; creating a project also needs `display_name`.

    API 2.8 (service-api B14.4): creating one also needs `owner_team_id`, a team of `internal`
    the creator belongs to; providers have no `enabled` (every listed one signs in), so it is
    optional and defaults to true.
    """
    owner = {"owner_team_id": Uuid(required=True)} if creating and api_28 else {}
    logos = {name: Str(nullable=True, url=True, max_length=MAX_IMAGE_URL_LENGTH) for name in LOGO_FIELDS} if api_28 else {}
    return Obj(
        {
            **owner,
            **logos,
            "display_name": Str(required=creating),
            "description": Str(nullable=True),
            "is_production_mode": Bool(),
            "config": Obj(
                {
                    **{flag: Bool() for flag in BOOLEAN_FLAGS},
                    "legacy_global_jwt_signing": Bool(only=False),
                    "domains": Arr(
                        Obj(
                            {
                                "domain": Str(required=True, url=True, test=_http_url),
                                "handler_path": Str(required=True, pattern=r"^/"),
                            }
                        )
                    ),
                    "oauth_providers": Arr(
                        Obj(
                            {
                                "id": Str(required=True, one_of=OAUTH_PROVIDER_IDS),
                                "type": Str(required=True, one_of=("shared", "standard")),
                                "enabled": Bool(required=not api_28),
                                "client_id": Str(),
                                "client_secret": Str(),
                                "facebook_config_id": Str(),
                                "microsoft_tenant_id": Str(),
                                **({"apple_bundle_ids": Arr(Str())} if api_28 else {}),
                                # local settings: an outside provider instead of the mock
                                "real_provider": Bool(),
                                "oidc_issuer_url": Str(url=True),
                            }
                        )
                    ),
                    "email_config": Obj(
                        {
                            "type": Str(required=True, one_of=("shared", "standard")),
                            "host": Str(),
                            "port": Num(integer=True, min_value=0, max_value=65535),
                            "username": Str(),
                            "password": Str(max_length=70),
                            "sender_name": Str(),
                            "sender_email": Str(email=True),
                        }
                    ),
                    "team_creator_default_permissions": _permission_refs(),
                    "team_member_default_permissions": _permission_refs(),
                    # 2.8 settings (service-api B7.4, B8.1, B14.4; the publishable-key setting
                    # is the local service's way to reach the project config of 1.2)
                    "require_email_verification": Bool(),
                    "allow_user_api_keys": Bool(),
                    "allow_team_api_keys": Bool(),
                    "require_publishable_client_key": Bool(),
                    "oauth_account_merge_strategy": Str(
                        one_of=("link_method", "raise_error", "allow_duplicates")
                    ),
                    "user_default_permissions": _permission_refs(),
                    # 2.8: the e-mail theme of the project's mails, an id of its themes
                    **({"email_theme": Str()} if api_28 else {}),
                }
            ),
        },
        required=True,
    )


PROJECT_UPDATE = project_body(creating=False)
PROJECT_UPDATE_28 = project_body(creating=False, api_28=True)

group = EndpointGroup()


def _admin_at_internal(api: ApiVersion) -> bool:
    return api.admin_project_at_internal


def _admin_at_current(api: ApiVersion) -> bool:
    return not api.admin_project_at_internal


@group.get("/projects/current", tiers=ANY)
def get_current(ctx: RequestContext) -> dict[str, Any]:
    if ctx.tier == "admin" and not ctx.api.admin_project_at_internal:
        return ctx.project.admin_view(user_count(ctx.sql, ctx.project.id))
    return ctx.project.client_view(ctx.api)


@group.get("/internal/projects/current", tiers=ADMIN, when=_admin_at_internal)
def get_current_as_admin(ctx: RequestContext) -> dict[str, Any]:
    return ctx.project.admin_view_28()


@group.patch("/projects/current", tiers=ADMIN, body=PROJECT_UPDATE, when=_admin_at_current, absent_status=405)
def update_current(ctx: RequestContext) -> dict[str, Any]:
    return _update_current(ctx)


@group.patch("/internal/projects/current", tiers=ADMIN, body=PROJECT_UPDATE_28, when=_admin_at_internal)
def update_current_as_admin(ctx: RequestContext) -> dict[str, Any]:
    return _update_current(ctx)


def _update_current(ctx: RequestContext) -> dict[str, Any]:
    if not ctx.api.anonymous_users:
        _refuse_28_settings(ctx, ctx.body)
    updated = apply_update(ctx, ctx.project, ctx.body)
    return updated.owner_view(ctx.api, user_count(ctx.sql, updated.id))


#: Settings 2.7 does not have.
SETTINGS_28 = (
    "user_default_permissions",
    "require_email_verification",
    "allow_user_api_keys",
    "allow_team_api_keys",
    "require_publishable_client_key",
    "oauth_account_merge_strategy",
)


def _refuse_28_settings(ctx: RequestContext, body: dict[str, Any]) -> None:
    unknown = [name for name in SETTINGS_28 if name in body.get("config", {})]
    if unknown:
        problems = [f"body.config contains unknown properties: {', '.join(unknown)}"]
        raise schema_error(ctx.request.method, ctx.request.url.path, problems)


def apply_update(ctx: RequestContext, project: Project, body: dict[str, Any]) -> Project:
    """Check and save a project update (or the settings of a new project)."""
    config = json.loads(json.dumps(project.config))  # a deep copy to edit
    for key, value in body.get("config", {}).items():
        config[key] = value
    for provider in config["oauth_providers"]:
        provider.setdefault("enabled", True)  # 2.8 bodies have no `enabled`: listed means enabled
    _check_config(ctx, project, body.get("config", {}))
    for name in LOGO_FIELDS:
        if name in body:
            config[name] = _checked_logo(body[name])
    updated = dataclasses.replace(
        project,
        display_name=body.get("display_name", project.display_name),
        description=(body["description"] or "") if "description" in body else project.description,
        is_production_mode=body.get("is_production_mode", project.is_production_mode),
        config=config,
    )
    save_project(ctx.sql, updated)
    return updated


@group.delete("/projects/current", tiers=ADMIN, when=_admin_at_current, absent_status=405)
def delete_current(ctx: RequestContext) -> dict[str, Any]:
    return _delete_current(ctx)


@group.delete("/internal/projects/current", tiers=ADMIN, when=_admin_at_internal)
def delete_current_as_admin(ctx: RequestContext) -> dict[str, Any]:
    return _delete_current(ctx)


def _delete_current(ctx: RequestContext) -> dict[str, Any]:
    project_id = ctx.project.id
    for row in ctx.sql.execute(
        "SELECT id, server_metadata FROM users WHERE project_id = ?", (INTERNAL_PROJECT_ID,)
    ).fetchall():
        metadata = load(row["server_metadata"])
        managed = metadata.get("managedProjectIds") if isinstance(metadata, dict) else None
        if isinstance(managed, list) and project_id in managed:
            metadata["managedProjectIds"] = [pid for pid in managed if pid != project_id]
            ctx.sql.execute(
                "UPDATE users SET server_metadata = ? WHERE project_id = ? AND id = ?",
                (dump(metadata), INTERNAL_PROJECT_ID, row["id"]),
            )
    ctx.sql.execute("DELETE FROM projects WHERE id = ?", (project_id,))
    ctx.service.keys.forget(project_id)
    return {"success": True}


def _checked_logo(value: str | None) -> str | None:
    """A logo as 2.8.86 takes it: an http(s) URL, or a base64 image (`data:image/...;base64,`),
    which the local service keeps as given (it stores no images: the backend uploads it and
    answers its storage URL); anything else is the service's 400."""
    if value is None or value.lower().startswith(("http://", "https://")) or _BASE64_IMAGE.match(value):
        return value
    raise PlainError(400, "Invalid profile image URL")  # (the service's words, for logos too)


def _missing_or_empty(value: Any) -> str:
    return "must not be empty" if value == "" else "must be defined"


def _check_config(ctx: RequestContext, project: Project, changes: dict[str, Any]) -> None:
    current = project.config
    problems: list[str] = []
    email_config = changes.get("email_config")
    if email_config and email_config["type"] == "standard":
        for name in EMAIL_CONFIG_FIELDS:
            if email_config.get(name) in (None, ""):
                problems.append(f"body.config.email_config.{name} {_missing_or_empty(email_config.get(name))}")
    providers = changes.get("oauth_providers")
    for index, provider in enumerate(providers or []):
        outside_problem = setting_problem(provider)
        if outside_problem:
            problems.append(f"body.config.oauth_providers[{index}]: {outside_problem}")
        if provider["type"] == "standard" and provider.get("enabled", True):
            for name in ("client_id", "client_secret"):
                if not provider.get(name):
                    problems.append(
                        f"body.config.oauth_providers[{index}].{name} {_missing_or_empty(provider.get(name))}"
                    )
    if problems:
        raise schema_error(ctx.request.method, ctx.request.url.path, problems)

    if "email_theme" in changes and find_theme(ctx.sql, project.id, changes["email_theme"]) is None:
        raise PlainError(400, "Invalid email theme")  # (the service's words; the ids: GET /internal/email-themes)

    domains = changes.get("domains")
    duplicated = domains is not None and len({d["domain"] for d in domains}) != len(domains)
    if duplicated and ctx.api.refuses_duplicate_domains:
        raise PlainError(400, "Duplicated domain found")
    if providers is not None:
        given = {p["id"] for p in providers}
        # 2.7 wants every configured provider in the list; 2.8 lists enabled providers only, so a
        # provider left out of its update is turned off (service-api B14.4).
        for existing in [] if ctx.api.admin_project_at_internal else current["oauth_providers"]:
            if existing["id"] not in given:
                raise PlainError(400, f"Provider with id '{existing['id']}' not found in the update")
        for provider in providers:
            if provider["type"] == "shared" and oauth_config.provider_kind(provider) not in SHARED_OAUTH_PROVIDER_IDS:
                raise CatalogueError("INVALID_SHARED_OAUTH_PROVIDER_ID", provider_id=provider["id"])
    for key in ("team_creator_default_permissions", "team_member_default_permissions", "user_default_permissions"):
        if key in changes:
            scope = "project" if key == "user_default_permissions" else "team"
            defined = {
                row["id"]
                for row in ctx.sql.execute(
                    "SELECT id FROM permission_definitions WHERE project_id = ? AND scope = ?", (project.id, scope)
                )
            }
            if scope == "team":
                defined |= set(system_permissions(ctx.api))
            if any(ref["id"] not in defined for ref in changes[key]):
                raise PlainError(400, f"Invalid {scope} default permission ids")


routes = group.routes
