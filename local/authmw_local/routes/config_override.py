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
Sign-up rules are a record: `auth.signUpRules.<id>` sets a whole rule (its object replaces the
rule; `null` drops it), `auth.signUpRules.<id>.<field>` one field of it (sign_up_rules.py).
"""

from __future__ import annotations

import json
from typing import Any

from .. import oauth_config, sign_up_rules
from ..api_version import ApiVersion
from ..endpoint import ADMIN, EndpointGroup, RequestContext, also_at_latest
from ..errors import PlainError
from ..projects import default_config
from ..schema import Arr, Obj, Str
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
    "auth.signUpRulesDefaultAction": ("sign_up_rules_default_action", _BRANCH, sign_up_rules.DEFAULT_ACTIONS),
}
#: `auth.signUpRules.<id>` (a whole rule, or null to drop it) and `auth.signUpRules.<id>.<field>`.
RULES_PREFIX = "auth.signUpRules."

group = EndpointGroup()


def _has_config_overrides(api: ApiVersion) -> bool:
    return api.admin_project_at_internal  # the 2.8 config layout


def flatten(override: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"a": {"b": 1}, "c.d": 2}` -> `{"a.b": 1, "c.d": 2}`; an empty object stays a value, and
    so does a sign-up rule (`auth.signUpRules.<id>`: the rule's object replaces the rule)."""
    flat: dict[str, Any] = {}
    for key, value in override.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and not _is_rule_path(path):
            flat.update(flatten(value, path + "."))
        else:
            flat[path] = value
    return flat


def _is_rule_path(path: str) -> bool:
    return path.startswith(RULES_PREFIX) and "." not in path[len(RULES_PREFIX) :]


def _rule_change(rules: dict[str, Any], key: str, value: Any) -> None:
    """Apply `auth.signUpRules[.<id>[.<field>...]]` = value to `rules` (edited in place)."""
    if key == RULES_PREFIX.rstrip("."):  # the whole record: {} or null clears it
        if value not in (None, {}):
            raise PlainError(400, "Invalid config override: set sign-up rules one by one, as auth.signUpRules.<id>.")
        rules.clear()
        return
    rule_id, _, field = key[len(RULES_PREFIX) :].partition(".")
    try:
        if not field:
            if value is None:
                rules.pop(rule_id, None)
            else:
                rules[rule_id] = sign_up_rules.checked_rule(rule_id, value)
            return
        rule = json.loads(json.dumps(rules.get(rule_id) or sign_up_rules.default_rule()))
        if field == "action.type" or field == "action.message":
            rule["action"] = {**rule["action"], field.split(".")[1]: value}
        else:
            rule[field] = value
        rules[rule_id] = sign_up_rules.checked_rule(rule_id, {k: rule[k] for k in sign_up_rules.RULE_FIELDS})
    except ValueError as error:
        raise PlainError(400, f"Invalid config override: {error}") from None


def _expand_nulls(flat: dict[str, Any], level: str) -> dict[str, Any]:
    """`{"auth": null}` stands for every understood key under `auth` (of this level)."""
    expanded: dict[str, Any] = {}
    for key, value in flat.items():
        below = [
            name
            for name in [*CONFIG_KEYS, RULES_PREFIX.rstrip(".")]
            if name.startswith(key + ".") and (name not in CONFIG_KEYS or level in CONFIG_KEYS[name][1])
        ]
        if value is None and key not in CONFIG_KEYS and below:
            expanded.update(dict.fromkeys(below))
        else:
            expanded[key] = value
    return expanded


def translate(level: str, override_string: str, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The local config changes an override stands for (`current`: the project's config, which
    field-wise rule changes build on); PlainError 400 naming the first problem."""
    try:
        override = json.loads(override_string)
    except ValueError:
        raise PlainError(400, "Invalid config JSON") from None
    if not isinstance(override, dict):
        raise PlainError(400, "Invalid config override: config_override_string must hold a JSON object.")
    defaults = default_config()
    changes: dict[str, Any] = {}
    for key, value in _expand_nulls(flatten(override), level).items():
        if key == RULES_PREFIX.rstrip(".") or key.startswith(RULES_PREFIX):
            if level not in _BRANCH:
                raise PlainError(
                    400, f"Config key {key!r} cannot be overridden at the {level} level; use the branch or environment level."
                )
            if "sign_up_rules" not in changes:
                changes["sign_up_rules"] = json.loads(json.dumps((current or defaults).get("sign_up_rules") or {}))
            _rule_change(changes["sign_up_rules"], key, value)
            continue
        if value == {} and any(name.startswith(key + ".") for name in CONFIG_KEYS):
            continue  # an empty object above understood keys, e.g. {"onboarding": {}}: no change
        known = CONFIG_KEYS.get(key)
        if known is None:
            supported = ", ".join(k for k, (_, levels, _) in CONFIG_KEYS.items() if level in levels)
            if level in _BRANCH:
                supported += ", auth.signUpRules.<id>"
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
    changes = translate(ctx.params["level"], rest, ctx.project.config)
    if records:  # the OAuth providers and trusted domains (oauth_config.py)
        changes.update(oauth_config.apply({**ctx.project.config, **changes}, records))
    if changes:
        apply_update(ctx, ctx.project, {"config": changes})
    return {"success": True}


@group.post(
    "/internal/config/override/{level}/reset-keys",
    tiers=ADMIN,
    params=Obj({"level": Str(required=True, one_of=LEVELS)}),
    body=Obj({"keys": Arr(Str(required=True), required=True)}, required=True),
    when=_has_config_overrides,
)
def reset_keys(ctx: RequestContext) -> dict[str, Any]:
    """Put keys (and what is under them) back to their defaults: the local service keeps one
    config, so this is an override of each key with null."""
    changes = translate(ctx.params["level"], json.dumps({key: None for key in ctx.body["keys"]}), ctx.project.config)
    if changes:
        apply_update(ctx, ctx.project, {"config": changes})
    return {"success": True}


def render(config: dict[str, Any]) -> dict[str, Any]:
    """The project's settings in the 2.8 config shape, nested (only the keys above)."""
    flat: dict[str, Any] = {key: config[local] for key, (local, _, _) in CONFIG_KEYS.items()}
    flat["auth.signUpRules"] = dict(sign_up_rules.ordered_rules(config))
    flat.update(oauth_config.rendered(config))  # auth.oauth.providers, domains.trustedDomains
    nested: dict[str, Any] = {}
    for key, value in sorted(flat.items()):
        *parents, last = key.split(".")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


@group.get("/internal/config", tiers=ADMIN, when=_has_config_overrides)
def get_config(ctx: RequestContext) -> dict[str, Any]:
    """The rendered config (`config_string`), limited to the settings the local service keeps
    in the 2.8 shape (CONFIG_KEYS and the sign-up rules)."""
    return {"config_string": json.dumps(render(ctx.project.config))}


routes = also_at_latest(group.routes)
