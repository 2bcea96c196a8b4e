"""The OAuth records of 2.8's config overrides: `auth.oauth.providers.<id>` and
`domains.trustedDomains.<id>` (what Stack's suite and dashboard write), applied to the local
project config, which keeps providers and trusted domains as lists (projects.py).

    auth.oauth.providers.<id> = {type, isShared, clientId, clientSecret, microsoftTenantId,
                                 facebookConfigId, allowSignIn, allowConnectedAccounts}
    domains.trustedDomains.<id> = {baseUrl, handlerPath}

A record is replaced whole by an object, removed by null, and changed field by field by
dotted keys (`auth.oauth.providers.github.clientId`; a field of a record that does not exist
sets nothing but its `type`, as 2.8.86 renders a record without a type as none). A switch a
record leaves out takes 2.8.86's default: `isShared` true (the shared keys), `allowSignIn` and
`allowConnectedAccounts` false. A provider with keys of its own (`isShared: false`) needs its
`clientId` and `clientSecret` once the levels are combined.
A provider record's id is its config id (what the authorize route and the user's accounts
name); its `type` says which provider it is. When the two differ, the type is kept as
`provider_type` (see `provider_kind`).
`allowSignIn` / `allowConnectedAccounts` are kept on the provider as `allow_sign_in` /
`allow_connected_accounts` (absent: true, as a provider set through the project's list):
see `signs_in` and `connects_accounts`. Domain records keep their ids beside
the list (`trusted_domain_ids`, `[id, url]` per entry, not part of any view); two records may
name the same domain, as in 2.8.86.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import PlainError

PROVIDERS = "auth.oauth.providers"
DOMAINS = "domains.trustedDomains"
PREFIXES = (PROVIDERS, DOMAINS)
#: The provider types 2.8.86 knows, in its order (its error lists them so).
PROVIDER_TYPES = (
    *("google", "github", "microsoft", "spotify", "facebook", "discord"),
    *("gitlab", "bitbucket", "linkedin", "apple", "x", "twitch"),
)

_PROVIDER_FIELDS = {
    "type": "type",
    "isShared": "is_shared",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "microsoftTenantId": "microsoft_tenant_id",
    "facebookConfigId": "facebook_config_id",
    "allowSignIn": "allow_sign_in",
    "allowConnectedAccounts": "allow_connected_accounts",
}
_SWITCHES = ("allow_sign_in", "allow_connected_accounts")


#: 2.8.86's pattern of a provider's config id (its permission-id pattern).
_CONFIG_ID = re.compile(r"\$?[a-z0-9_:]+")


def provider_kind(provider: Mapping[str, Any]) -> str:
    """Which provider a configured one is (google, github, ...): its type, kept apart from its
    config id only when the two differ."""
    return str(provider.get("provider_type") or provider["id"])


def signs_in(provider: dict[str, Any]) -> bool:
    """Whether the provider is offered for sign-in: listed in the project's views and usable by
    a sign-in flow (2.8.86 leaves a provider whose `allowSignIn` is false out of its views)."""
    return bool(provider.get("enabled", True)) and provider.get("allow_sign_in", True) is not False


def connects_accounts(provider: dict[str, Any]) -> bool:
    """Whether the provider may link accounts to users and hand out their tokens."""
    return bool(provider.get("enabled", True)) and provider.get("allow_connected_accounts", True) is not False


def _record_of(provider: dict[str, Any]) -> dict[str, Any]:
    """A local provider as its 2.8 record (the fields a dotted change builds on)."""
    record: dict[str, Any] = {"type": provider_kind(provider), "isShared": provider.get("type") == "shared"}
    for name, local in _PROVIDER_FIELDS.items():
        if local not in ("type", "is_shared") and provider.get(local) is not None:
            record[name] = provider[local]
    for name in ("allowSignIn", "allowConnectedAccounts"):
        record.setdefault(name, True)
    return record


def is_record_key(key: str) -> bool:
    return any(key == prefix or key.startswith(prefix + ".") for prefix in PREFIXES)


def split(
    override: dict[str, Any],
    roots: tuple[str, ...] = PREFIXES,
    is_record: Callable[[str], bool] = is_record_key,
    is_whole: Callable[[str], bool] = lambda path: is_whole_record(path),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the record changes as dotted leaf keys, the rest of the override as given), for the
    records under `roots` (by default the OAuth ones; email_records.py has others)."""
    records: dict[str, Any] = {}
    rest: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict) and value and not is_whole(path):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else key)
        elif is_record(path):
            records[path] = value
        else:
            rest[path] = value

    for key, value in override.items():
        if is_record(key) or any(root.startswith(key + ".") for root in roots):
            walk(value, key)
        else:
            rest[key] = value
    return records, rest


def is_whole_record(path: str) -> bool:
    """`auth.oauth.providers.<id>` or `domains.trustedDomains.<id>` (a whole record)."""
    return any(path.startswith(prefix + ".") and "." not in path[len(prefix) + 1 :] for prefix in PREFIXES)


def apply(config: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    """The config changes (`oauth_providers`, `domains`, `trusted_domain_ids`) the records make."""
    providers = {p["id"]: dict(p) for p in config.get("oauth_providers", [])}
    domains = list(zip(_record_ids(config), (dict(d) for d in config.get("domains", [])), strict=True))
    touched: set[str] = set()
    for key, value in records.items():
        prefix = PROVIDERS if key.startswith(PROVIDERS) else DOMAINS
        record_id, _, field = key[len(prefix) + 1 :].partition(".")
        if not record_id:
            if value not in (None, {}):
                raise PlainError(400, f"Invalid config override: set {prefix} one by one, as {prefix}.<id>.")
            if prefix == PROVIDERS:
                providers.clear()
            else:
                domains = []
            touched.add(prefix)
            continue
        touched.add(prefix)
        if prefix == PROVIDERS:
            _provider_change(providers, record_id, field, value)
        else:
            domains = _domain_change(domains, record_id, field, value)
    changes: dict[str, Any] = {}
    if PROVIDERS in touched:
        changes["oauth_providers"] = list(providers.values())
    if DOMAINS in touched:
        changes["domains"] = [entry for _, entry in domains]
        changes["trusted_domain_ids"] = [[record_id, entry["domain"]] for record_id, entry in domains]
    return changes


def _provider_change(providers: dict[str, dict[str, Any]], record_id: str, field: str, value: Any) -> None:
    if not field and value is None:
        providers.pop(record_id, None)
        return
    current = providers.get(record_id)
    record: dict[str, Any] = {}
    if field and field not in _PROVIDER_FIELDS:
        raise PlainError(400, f"Invalid config override: {PROVIDERS}.{record_id} has unknown fields {field}.")
    if field:
        if current is None and field != "type":
            return  # (no type: 2.8.86 renders no provider)
        record = _record_of(current) if current is not None else {}
        record[field] = value
    elif isinstance(value, dict):
        record = dict(value)
    else:
        raise PlainError(400, f"Invalid config override: {PROVIDERS}.{record_id} must be an object or null.")
    unknown = [name for name in record if name not in _PROVIDER_FIELDS]
    if unknown:
        raise PlainError(400, f"Invalid config override: {PROVIDERS}.{record_id} has unknown fields {', '.join(unknown)}.")
    kind = record.get("type") or record_id
    if kind not in PROVIDER_TYPES:  # 2.8.86's own wording of this schema error
        raise PlainError(400, f"{PROVIDERS}.{record_id}.type must be one of the following values: {', '.join(PROVIDER_TYPES)}")
    if not _CONFIG_ID.fullmatch(record_id):
        raise PlainError(
            400, f"Invalid config override: a provider's id is lower-case letters, digits, _ and : ({record_id!r})."
        )
    shared = record.get("isShared", True) is not False  # (2.8.86's default: the shared keys)
    if not shared and not (record.get("clientId") and record.get("clientSecret")):
        raise PlainError(
            400,
            f"Invalid config override: {PROVIDERS}.{record_id} uses keys of its own (isShared: false) and"
            " needs clientId and clientSecret (set at the environment level).",
        )
    provider: dict[str, Any] = {"id": record_id, "type": "shared" if shared else "standard", "enabled": True}
    if kind != record_id:
        provider["provider_type"] = kind
    for name, local in _PROVIDER_FIELDS.items():
        if local in _SWITCHES:
            provider[local] = record.get(name) is True  # (2.8.86's default: false)
        elif local not in ("type", "is_shared") and record.get(name) is not None:
            provider[local] = record[name]
    if current is not None:  # the local settings of an outside provider stay
        for name in ("real_provider", "oidc_issuer_url"):
            if name in current:
                provider[name] = current[name]
    providers[record_id] = provider


def _record_ids(config: dict[str, Any]) -> list[str | None]:
    """The record id of each entry of `domains` (None: an entry set through the project's
    `domains` list, which has none). `trusted_domain_ids` holds `[id, url]` per entry; when the
    list no longer lines up with `domains` (a project update replaced them), no entry has one.
    An older data folder kept `{id: url}`: each entry takes the first id naming its URL."""
    domains = config.get("domains", [])
    stored = config.get("trusted_domain_ids")
    if isinstance(stored, dict):
        by_url: dict[str, str] = {}
        for record_id, url in stored.items():
            by_url.setdefault(url, record_id)
        return [by_url.pop(d["domain"], None) for d in domains]
    if (
        isinstance(stored, list)
        and len(stored) == len(domains)
        and all(pair[1] == d["domain"] for pair, d in zip(stored, domains, strict=True))
    ):
        return [pair[0] for pair in stored]
    return [None] * len(domains)


def _domain_change(
    domains: list[tuple[str | None, dict[str, Any]]], record_id: str, field: str, value: Any
) -> list[tuple[str | None, dict[str, Any]]]:
    """Records are independent, as 2.8.86 keeps them: two may name the same domain."""
    at = next((i for i, (known, _) in enumerate(domains) if known == record_id), None)
    if not field and value is None:
        return [pair for i, pair in enumerate(domains) if i != at]
    old = domains[at][1] if at is not None else None
    if field and old is None:
        return domains  # as 2.8.86 renders it: a field of a record that does not exist sets nothing
    record = {"baseUrl": old["domain"], "handlerPath": old.get("handler_path", "/handler")} if old else {}
    if field:
        record[field] = value
    elif isinstance(value, dict):
        record = dict(value)
    else:
        raise PlainError(400, f"Invalid config override: {DOMAINS}.{record_id} must be an object or null.")
    base = record.get("baseUrl")
    if not isinstance(base, str) or not base:
        raise PlainError(400, f"Invalid config override: {DOMAINS}.{record_id}.baseUrl must be a URL.")
    entry = {"domain": base, "handler_path": str(record.get("handlerPath") or "/handler")}
    if at is None:
        return [*domains, (record_id, entry)]
    return [*domains[:at], (record_id, entry), *domains[at + 1 :]]


def rendered(config: dict[str, Any]) -> dict[str, Any]:
    """The providers and trusted domains in the 2.8 config shape, as dotted keys
    (`auth.oauth.providers`, `domains.trustedDomains`), for a rendered config."""
    providers = {
        p["id"]: {
            "type": provider_kind(p),
            "isShared": p.get("type") == "shared",
            **({"clientId": p["client_id"]} if p.get("client_id") else {}),
            **({"clientSecret": p["client_secret"]} if p.get("client_secret") else {}),
            "allowSignIn": p.get("allow_sign_in", True) is not False,
            "allowConnectedAccounts": p.get("allow_connected_accounts", True) is not False,
        }
        for p in config.get("oauth_providers", [])
        if p.get("enabled", True)
    }
    domains = {
        record_id or f"domain-{index}": {"baseUrl": d["domain"], "handlerPath": d.get("handler_path", "/handler")}
        for index, (record_id, d) in enumerate(zip(_record_ids(config), config.get("domains", []), strict=True))
    }
    return {PROVIDERS: providers, DOMAINS: domains}
