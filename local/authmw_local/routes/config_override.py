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

from .. import email_records, oauth_config, sign_up_rules
from ..api_version import ApiVersion
from ..endpoint import ADMIN, SERVER_OR_ADMIN, EndpointGroup, RequestContext, also_at_latest, without_lone_surrogates
from ..errors import PlainError
from ..projects import APP_IDS, app_setting, default_config
from ..schema import Arr, Num, Obj, Str
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
    **{f"apps.installed.{app}.enabled": (app_setting(app), _BRANCH, None) for app in APP_IDS},
}
#: How the error for an unsupported key lists the app switches (one line for all of them).
APPS_PATTERN = "apps.installed.<app id>.enabled"
#: The objects of 2.8.86's config schema whose fields are all known here (the environment level's,
#: which holds every other level's), path -> field names; every understood setting is a leaf (no
#: fields). A key naming a field none of these objects has does not exist on the backend at all,
#: and is refused in the backend's words (`_not_in_backend_schema`).
BACKEND_OBJECTS: dict[str, frozenset[str]] = {
    "": frozenset(
        ("sourceOfTruth", "project", "rbac", "teams", "users", "onboarding", "apiKeys", "apps", "domains",
         "auth", "emails", "payments", "dbSync", "dataVault", "analytics", "customDashboards")
    ),  # fmt: skip
    "project": frozenset(("requirePublishableClientKey",)),
    "rbac": frozenset(("permissions", "defaultPermissions")),
    "teams": frozenset(("createPersonalTeamOnSignUp", "allowClientTeamCreation")),
    "users": frozenset(("allowClientUserDeletion",)),
    "onboarding": frozenset(("requireEmailVerification",)),
    "apiKeys": frozenset(("enabled",)),
    "apiKeys.enabled": frozenset(("team", "user")),
    "apps": frozenset(("installed",)),
    "domains": frozenset(("allowLocalhost", "trustedDomains")),
    "auth": frozenset(
        ("allowSignUp", "password", "otp", "passkey", "oauth", "signUpRules", "signUpRulesDefaultAction")
    ),
    **{f"auth.{method}": frozenset(("allowSignIn",)) for method in ("password", "otp", "passkey")},
    "auth.oauth": frozenset(("accountMergeStrategy", "providers")),
    "emails": frozenset(("selectedThemeId", "themes", "templates", "server")),
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


def _not_in_backend_schema(key: str) -> PlainError | None:
    """2.8.86's 400 for a key its config schema does not have anywhere (naming the first part of
    the key that is not there), or None when the key may exist there."""
    parts = key.split(".")
    for end in range(1, len(parts) + 1):
        parent = ".".join(parts[: end - 1])
        fields = frozenset() if parent in CONFIG_KEYS else BACKEND_OBJECTS.get(parent)
        if fields is None:
            return None  # a record or an object whose fields are not listed here
        if parts[end - 1] not in fields:
            prefix = ".".join(parts[:end])
            return PlainError(
                400, f"The key {json.dumps(key)} is not valid (nested object not found in schema: {json.dumps(prefix)})."
            )
    return None


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


def translate(
    level: str, override_string: str, current: dict[str, Any] | None = None, check_level: bool = True
) -> dict[str, Any]:
    """The local config changes an override stands for (`current`: the project's config, which
    field-wise rule changes build on); PlainError 400 naming the first problem. Without
    `check_level`, a key is not checked against the level (the levels' values combined)."""
    override = _load(override_string)
    if not isinstance(override, dict):
        raise PlainError(400, "Invalid config override: config_override_string must hold a JSON object.")
    defaults = default_config()
    changes: dict[str, Any] = {}
    for key, value in _expand_nulls(flatten(override), level).items():
        if key == RULES_PREFIX.rstrip(".") or key.startswith(RULES_PREFIX):
            if check_level and level not in _BRANCH:
                raise PlainError(
                    400,
                    f"Config key {key!r} cannot be overridden at the {level} level; use the branch or environment level.",
                )
            if "sign_up_rules" not in changes:
                changes["sign_up_rules"] = json.loads(json.dumps((current or defaults).get("sign_up_rules") or {}))
            _rule_change(changes["sign_up_rules"], key, value)
            continue
        if value == {} and any(name.startswith(key + ".") for name in CONFIG_KEYS):
            continue  # an empty object above understood keys, e.g. {"onboarding": {}}: no change
        known = CONFIG_KEYS.get(key)
        if known is None and (backend_error := _not_in_backend_schema(key)) is not None:
            raise backend_error
        if known is None:
            supported = ", ".join(
                k for k, (_, levels, _) in CONFIG_KEYS.items() if level in levels and not k.startswith("apps.")
            )
            if level in _BRANCH:
                supported += f", auth.signUpRules.<id>, {APPS_PATTERN} ({', '.join(APP_IDS)})"
            raise PlainError(
                400,
                f"Config key {key!r} is not supported by the authmw local service's {level} config override"
                f" (supported at this level: {supported}). Change other settings with"
                " PATCH /api/v1/internal/projects/current.",
            )
        local, levels, choices = known
        if check_level and level not in levels:
            raise PlainError(
                400,
                f"Config key {key!r} cannot be overridden at the {level} level; use the {' or '.join(levels)} level.",
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


#: Private config entries (not part of any view): each level's override as stored
#: (`{level: {dotted key: value}}`) and where the branch config was pushed from.
LAYERS_KEY = "config_overrides"
SOURCE_KEY = "config_source"
UNLINKED: dict[str, Any] = {"type": "unlinked"}
#: Records whose empty object means "none" (it clears them).
RECORD_ROOTS = (RULES_PREFIX.rstrip("."), *oauth_config.PREFIXES)
UNDERSTOOD = (*CONFIG_KEYS, *RECORD_ROOTS, *email_records.ROOTS)


def normalized(override: dict[str, Any]) -> dict[str, Any]:
    """An override as dotted keys down to its leaves, a sign-up rule, an OAuth provider, a
    trusted domain, the e-mail server or an e-mail template staying whole (as a level's override
    is kept and returned)."""
    flat: dict[str, Any] = {}
    for key, value in override.items():
        if value == {} and key not in RECORD_ROOTS and any(k.startswith(key + ".") for k in UNDERSTOOD):
            continue  # an empty object above understood keys ({"teams": {}}) sets nothing
        whole = _is_rule_path(key) or oauth_config.is_whole_record(key) or email_records.is_whole_record(key)
        if isinstance(value, dict) and value and not whole:
            flat.update(normalized({f"{key}.{inner}": item for inner, item in value.items()}))
        else:
            flat[key] = value
    return flat


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith(prefix + ".")


def merged(stored: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A level's override with `changes` on top: a key replaces itself and what is under it;
    a key inside a whole record kept by the level changes that record."""
    result: dict[str, Any] = json.loads(json.dumps(stored))
    for key, value in changes.items():
        for existing in [k for k in result if _under(k, key)]:
            del result[existing]
        holder = next((k for k in result if key.startswith(k + ".") and isinstance(result[k], dict)), None)
        if holder is None:
            result[key] = value
            continue
        *parents, last = key[len(holder) + 1 :].split(".")
        node = result[holder]
        for part in parents:
            node = node.setdefault(part, {}) if isinstance(node.get(part), dict) or part not in node else {}
        node[last] = value
    return result


def without(stored: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """A level's override with `keys` (and what is under them) taken out."""
    result: dict[str, Any] = json.loads(json.dumps(stored))
    for key in keys:
        for existing in [k for k in result if _under(k, key)]:
            del result[existing]
        holder = next((k for k in result if key.startswith(k + ".") and isinstance(result[k], dict)), None)
        if holder is not None:
            *parents, last = key[len(holder) + 1 :].split(".")
            node = result[holder]
            for part in parents:
                node = node.get(part) if isinstance(node.get(part), dict) else {}
            node.pop(last, None)
    return result


def _layers(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    stored = config.get(LAYERS_KEY) or {}
    return {level: dict(stored.get(level) or {}) for level in LEVELS}


def _load(text: str) -> Any:
    """The JSON of a config string, read as request bodies are (a lone surrogate is U+FFFD);
    400 when it is not JSON or nests too deep to read."""
    try:
        return without_lone_surrogates(json.loads(text))
    except (ValueError, RecursionError):
        raise PlainError(400, "Invalid config JSON") from None


def _parsed(text: str, field: str) -> dict[str, Any]:
    override = _load(text)
    if not isinstance(override, dict):
        raise PlainError(400, f"Invalid config override: {field} must hold a JSON object.")
    return normalized(override)


#: Provider fields only the environment level sets (2.8.86's environment config schema); the
#: branch level has a provider's `type`, `allowSignIn` and `allowConnectedAccounts`.
ENVIRONMENT_PROVIDER_FIELDS = (
    "isShared",
    "clientId",
    "clientSecret",
    "facebookConfigId",
    "microsoftTenantId",
    "appleBundles",
)


def _check_record_levels(level: str, records: dict[str, Any]) -> None:
    """Trusted domains and a provider's credentials belong to the environment level."""
    for key, value in records.items():
        parts = key.split(".")
        if key.startswith(oauth_config.PROVIDERS) and level == "branch":
            fields = set(value) if len(parts) == 4 and isinstance(value, dict) else set(parts[4:5])
            misplaced = sorted(fields & set(ENVIRONMENT_PROVIDER_FIELDS))
            if not misplaced:
                continue
            key = f"{key}.{misplaced[0]}" if len(parts) == 4 else key
        elif level == "environment":
            continue
        raise PlainError(
            400, f"Config key {key!r} cannot be overridden at the {level} level; use the environment level."
        )


def _check_mail_levels(level: str, records: dict[str, Any]) -> None:
    """The e-mail server belongs to the environment level, templates to the branch one (and so
    to the environment one too)."""
    for key in records:
        on_server = key == email_records.SERVER or key.startswith(email_records.SERVER + ".")
        allowed = ("environment",) if on_server else _BRANCH
        if level not in allowed:
            raise PlainError(
                400,
                f"Config key {key!r} cannot be overridden at the {level} level; use the {' or '.join(allowed)} level.",
            )


def _changes(
    ctx: RequestContext, level: str, override: dict[str, Any], current: dict[str, Any], check_level: bool = True
) -> dict[str, Any]:
    """The local config changes an (already normalized) override stands for; 400 on a problem.
    Template changes come as `email_records.TEMPLATE_CHANGES` (written by `_write_level`)."""
    records, rest = oauth_config.split(override)
    mail, rest = oauth_config.split(
        rest, email_records.ROOTS, email_records.is_record_key, email_records.is_whole_record
    )
    if check_level:
        _check_record_levels(level, records)
        _check_mail_levels(level, mail)
    changes = translate(level, json.dumps(rest), current, check_level=check_level)
    if records:  # the OAuth providers and trusted domains (oauth_config.py)
        changes.update(oauth_config.apply({**current, **changes}, records))
    if mail:  # the e-mail server and templates (email_records.py)
        changes.update(email_records.apply(ctx.sql, ctx.project.id, {**current, **changes}, mail))
    return changes


def _write_level(ctx: RequestContext, level: str, layer: dict[str, Any], source: dict[str, Any] | None = None) -> None:
    """Keep `layer` as the level's override and bring the project's settings in line: every key
    the level had or has now takes the value of the highest level setting it (environment over
    branch over project), or its default when none does. Settings no level names (those changed
    through /internal/projects/current) stay as they are."""
    config = ctx.project.config
    layers = _layers(config)
    touched = set(layers[level]) | set(layer)
    layers[level] = layer
    combined: dict[str, Any] = {}
    for name in LEVELS:
        combined = merged(combined, layers[name])
    effective: dict[str, Any] = {}
    for key in sorted(touched):
        picked = {k: v for k, v in combined.items() if _under(k, key) or key.startswith(k + ".")}
        effective.update(picked or {key: None})
    changes = _changes(ctx, level, effective, config, check_level=False)
    email_records.write_templates(ctx.sql, ctx.project.id, changes.pop(email_records.TEMPLATE_CHANGES, {}))
    changes[LAYERS_KEY] = layers
    if source is not None:
        changes[SOURCE_KEY] = source
    apply_update(ctx, ctx.project, {"config": changes})


def _check_server_level(ctx: RequestContext) -> None:
    if ctx.auth is not None and ctx.auth.tier == "server" and ctx.params["level"] != "branch":
        raise PlainError(403, "Server access can only manage branch config overrides.")


LEVEL_PARAM = Obj({"level": Str(required=True, one_of=LEVELS)})


@group.get("/internal/config/override/{level}", tiers=SERVER_OR_ADMIN, params=LEVEL_PARAM, when=_has_config_overrides)
def get_override(ctx: RequestContext) -> dict[str, Any]:
    """A level's override as kept (dotted keys), in `config_string`."""
    _check_server_level(ctx)
    return {"config_string": json.dumps(_layers(ctx.project.config)[ctx.params["level"]])}


@group.patch(
    "/internal/config/override/{level}",
    tiers=SERVER_OR_ADMIN,
    params=LEVEL_PARAM,
    body=Obj({"config_override_string": Str(required=True)}, required=True),
    when=_has_config_overrides,
)
def update_override(ctx: RequestContext) -> dict[str, Any]:
    _check_server_level(ctx)
    level = ctx.params["level"]
    override = _parsed(ctx.body["config_override_string"], "config_override_string")
    _changes(ctx, level, override, ctx.project.config)  # names the first problem (400) before saving
    _write_level(ctx, level, merged(_layers(ctx.project.config)[level], override))
    return {"success": True}


SOURCE = Obj(
    {
        "type": Str(required=True, one_of=("pushed-from-github", "pushed-from-unknown", "unlinked")),
        **{name: Str() for name in ("owner", "repo", "branch", "commit_hash", "config_file_path")},
    }
)
GITHUB_FIELDS = ("owner", "repo", "branch", "commit_hash", "config_file_path")


def _checked_source(source: dict[str, Any] | None) -> dict[str, Any] | None:
    if source is None:
        return None
    if source["type"] != "pushed-from-github":
        extra = [name for name in GITHUB_FIELDS if name in source]
        if extra:
            raise PlainError(400, f"body.source of type {source['type']} takes no {', '.join(extra)}.")
        return {"type": source["type"]}
    missing = [name for name in GITHUB_FIELDS if source.get(name) is None]
    if missing:
        raise PlainError(400, f"body.source of type pushed-from-github needs {', '.join(missing)}.")
    return {"type": source["type"], **{name: source[name] for name in GITHUB_FIELDS}}


@group.put(
    "/internal/config/override/{level}",
    tiers=SERVER_OR_ADMIN,
    params=LEVEL_PARAM,
    body=Obj({"config_string": Str(required=True), "source": SOURCE}, required=True),
    when=_has_config_overrides,
)
def replace_override(ctx: RequestContext) -> dict[str, Any]:
    """Replace a level's override; the branch level also records where it was pushed from."""
    _check_server_level(ctx)
    level = ctx.params["level"]
    override = _parsed(ctx.body["config_string"], "config_string")
    _changes(ctx, level, override, ctx.project.config)
    source = _checked_source(ctx.body.get("source"))
    if level == "branch" and source is None:
        raise PlainError(400, "source is required for branch level config")
    _write_level(ctx, level, override, source if level == "branch" else None)
    return {"success": True}


@group.post(
    "/internal/config/override/{level}/reset-keys",
    tiers=ADMIN,
    params=LEVEL_PARAM,
    body=Obj({"keys": Arr(Str(required=True), required=True)}, required=True),
    when=_has_config_overrides,
)
def reset_keys(ctx: RequestContext) -> dict[str, Any]:
    """Take keys (and what is under them) out of a level's override; a key the level does not
    set changes nothing."""
    level = ctx.params["level"]
    layer = _layers(ctx.project.config)[level]
    reduced = without(layer, ctx.body["keys"])
    if reduced != layer:
        _write_level(ctx, level, reduced)
    return {"success": True}


@group.get("/internal/config/source", tiers=ADMIN, when=_has_config_overrides)
def get_source(ctx: RequestContext) -> dict[str, Any]:
    """Where the branch config was pushed from (`unlinked` until a push names it)."""
    return {"source": ctx.project.config.get(SOURCE_KEY) or UNLINKED}


@group.delete("/internal/config/source", tiers=ADMIN, when=_has_config_overrides)
def unlink_source(ctx: RequestContext) -> dict[str, Any]:
    """Mark the branch config as unlinked (its values stay)."""
    apply_update(ctx, ctx.project, {"config": {SOURCE_KEY: UNLINKED}})
    return {"success": True}


RISK_SCORE = Num(required=True, integer=True, min_value=0, max_value=100)


@group.post(
    "/internal/sign-up-rules-test",
    tiers=ADMIN,
    body=Obj(
        {
            "email": Str(required=True, nullable=True),
            "auth_method": Str(required=True, one_of=sign_up_rules.AUTH_METHODS),
            "oauth_provider": Str(required=True, nullable=True),
            "country_code": Str(required=True, nullable=True, pattern=r"[A-Za-z]{2}"),
            "turnstile_result": Str(one_of=("ok", "invalid", "error")),
            "risk_scores": Obj({"bot": RISK_SCORE, "free_trial_abuse": RISK_SCORE}),
        },
        required=True,
    ),
    when=_has_config_overrides,
)
def test_sign_up_rules(ctx: RequestContext) -> dict[str, Any]:
    """What the project's sign-up rules would decide for a sign-up described in the body, rule
    by rule (the dashboard's rule tester). The local service scores no risk: the risk scores
    are 0 unless the body gives them."""
    body = ctx.body
    facts = sign_up_rules.sign_up_facts(body["email"], body["auth_method"], body["oauth_provider"])
    if body["country_code"] is not None:
        facts["countryCode"] = body["country_code"].upper()
    if body.get("risk_scores") is not None:
        facts["riskScores"] = dict(body["risk_scores"])
    evaluations, decision = sign_up_rules.trace(ctx.project.config, facts)
    return {
        "context": {
            "email": facts["email"],
            "email_domain": facts["emailDomain"],
            "country_code": facts["countryCode"],
            "auth_method": facts["authMethod"],
            "oauth_provider": facts["oauthProvider"],
            "turnstile_result": body.get("turnstile_result") or "invalid",
            "risk_scores": facts["riskScores"],
        },
        "evaluations": [
            {
                "rule_id": e.rule_id,
                "display_name": e.rule.get("displayName") or "",
                "enabled": e.rule["enabled"],
                "condition": e.rule.get("condition") or "",
                "status": e.status,
                "action": {k: v for k, v in e.rule["action"].items() if v is not None},
                **({"error": e.error} if e.error else {}),
            }
            for e in evaluations
        ],
        "outcome": {
            "should_allow": decision.allowed,
            "decision": decision.decision,
            "decision_rule_id": decision.rule_id,
            "restricted_because_of_rule_id": decision.restricted_by[0] if decision.restricted_by else None,
        },
    }


def render(config: dict[str, Any], mail: dict[str, Any]) -> dict[str, Any]:
    """The project's settings in the 2.8 config shape, nested (only the keys above, and `mail`:
    `emails.server` and `emails.templates` as email_records.rendered gives them)."""
    flat: dict[str, Any] = {key: config[local] for key, (local, _, _) in CONFIG_KEYS.items()}
    flat.update(mail)
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
    mail = email_records.rendered(ctx.sql, ctx.project.id, ctx.project.config)
    return {"config_string": json.dumps(render(ctx.project.config, mail))}


routes = also_at_latest(group.routes)
