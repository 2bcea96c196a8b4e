"""Config overrides (API 2.8): `PATCH /internal/config/override/{level}` with the admin key.

The backend keeps a project's settings as layered config overrides (project, branch,
environment) in its own 2.8 schema (`onboarding.requireEmailVerification`,
`auth.password.allowSignIn`, ...); Stack's e2e suite and dashboard change settings this way.
The local service keeps one config per project (projects.py), so an override is translated
into that config, key by key, and saved like `PATCH /internal/projects/current`. Only the
keys below are understood; any other key of the backend's schema is refused with a 400 that
names it and the supported keys, rather than being accepted and ignored. Both `/api/v1` and
`/api/latest` (the suite's prefix) answer.

An override is a JSON object in the string `config_override_string`; nested objects and
dotted keys mean the same (`{"onboarding": {"requireEmailVerification": true}}` equals
`{"onboarding.requireEmailVerification": true}`); `null` puts the local default back.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.routing import Route

from .. import oauth_config
from ..api_version import ApiVersion
from ..endpoint import ADMIN, API_PREFIX, EndpointGroup, RequestContext
from ..errors import PlainError
from ..projects import default_config
from ..schema import Obj, Str
from .projects import apply_update

LEVELS = ("project", "branch", "environment")
MERGE_STRATEGIES = ("link_method", "raise_error", "allow_duplicates")

#: Backend config key -> (local config key, levels that may override it, allowed strings or
#: None for a boolean). Branch keys can be overridden at the environment level too (the
#: backend's environment schema extends the branch one); project keys only at project level.
_BRANCH = ("branch", "environment")
CONFIG_KEYS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...] | None]] = {
    "project.requirePublishableClientKey": ("require_publishable_client_key", ("project",), None),
    "auth.allowSignUp": ("sign_up_enabled", _BRANCH, None),
    "auth.password.allowSignIn": ("credential_enabled", _BRANCH, None),
    "auth.otp.allowSignIn": ("magic_link_enabled", _BRANCH, None),
    "auth.passkey.allowSignIn": ("passkey_enabled", _BRANCH, None),
    "auth.oauth.accountMergeStrategy": ("oauth_account_merge_strategy", _BRANCH, MERGE_STRATEGIES),
    "teams.createPersonalTeamOnSignUp": ("create_team_on_sign_up", _BRANCH, None),
    "teams.allowClientTeamCreation": ("client_team_creation_enabled", _BRANCH, None),
    "users.allowClientUserDeletion": ("client_user_deletion_enabled", _BRANCH, None),
    "onboarding.requireEmailVerification": ("require_email_verification", _BRANCH, None),
    "apiKeys.enabled.user": ("allow_user_api_keys", _BRANCH, None),
    "apiKeys.enabled.team": ("allow_team_api_keys", _BRANCH, None),
    "domains.allowLocalhost": ("allow_localhost", ("environment",), None),
}

group = EndpointGroup()


def _has_config_overrides(api: ApiVersion) -> bool:
    return api.admin_project_at_internal  # the 2.8 config layout


def flatten(override: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"a": {"b": 1}, "c.d": 2}` -> `{"a.b": 1, "c.d": 2}`; an empty object stays a value."""
    flat: dict[str, Any] = {}
    for key, value in override.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten(value, path + "."))
        else:
            flat[path] = value
    return flat


def translate(level: str, override_string: str) -> dict[str, Any]:
    """The local config changes an override stands for; PlainError 400 naming the first problem."""
    try:
        override = json.loads(override_string)
    except ValueError:
        raise PlainError(400, "Invalid config JSON") from None
    if not isinstance(override, dict):
        raise PlainError(400, "Invalid config override: config_override_string must hold a JSON object.")
    defaults = default_config()
    changes: dict[str, Any] = {}
    for key, value in flatten(override).items():
        if value == {} and any(name.startswith(key + ".") for name in CONFIG_KEYS):
            continue  # an empty object above understood keys, e.g. {"onboarding": {}}: no change
        known = CONFIG_KEYS.get(key)
        if known is None:
            supported = ", ".join(k for k, (_, levels, _) in CONFIG_KEYS.items() if level in levels)
            raise PlainError(
                400,
                f"Config key {key!r} is not supported by the authmw local service's {level} config override"
                f" (supported at this level: {supported}). Change other settings with"
                " PATCH /api/v1/internal/projects/current.",
            )
        local, levels, choices = known
        if level not in levels:
            raise PlainError(
                400,
                f"Config key {key!r} cannot be overridden at the {level} level; use the"
                f" {' or '.join(levels)} level.",
            )
        if value is None:
            changes[local] = defaults[local]
        elif choices is None and not isinstance(value, bool):
            raise PlainError(400, f"Invalid config override: {key} must be a boolean, not {json.dumps(value)}.")
        elif choices is not None and value not in choices:
            raise PlainError(400, f"Invalid config override: {key} must be one of {', '.join(choices)}.")
        else:
            changes[local] = value
    return changes


def _oauth_records(override_string: str) -> tuple[dict[str, Any], str]:
    """The provider and trusted-domain records of an override, and the override without them."""
    try:
        override = json.loads(override_string)
    except ValueError:
        return {}, override_string  # translate() names the problem
    if not isinstance(override, dict):
        return {}, override_string
    records, rest = oauth_config.split(override)
    return records, json.dumps(rest)


@group.patch(
    "/internal/config/override/{level}",
    tiers=ADMIN,
    params=Obj({"level": Str(required=True, one_of=LEVELS)}),
    body=Obj({"config_override_string": Str(required=True)}, required=True),
    when=_has_config_overrides,
)
def update_override(ctx: RequestContext) -> dict[str, Any]:
    records, rest = _oauth_records(ctx.body["config_override_string"])
    changes = translate(ctx.params["level"], rest)
    if records:  # the OAuth providers and trusted domains (oauth_config.py)
        changes.update(oauth_config.apply({**ctx.project.config, **changes}, records))
    if changes:
        apply_update(ctx, ctx.project, {"config": changes})
    return {"success": True}


#: The same endpoints under `/api/latest`, the prefix the backend gives its newest version.
routes = group.routes + [
    Route("/api/latest" + route.path.removeprefix(API_PREFIX), route.endpoint, methods=route.methods)
    for route in group.routes
]
