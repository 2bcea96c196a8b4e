"""The OAuth records of 2.8's config overrides: `auth.oauth.providers.<id>` and
`domains.trustedDomains.<id>` (what Stack's suite and dashboard write), applied to the local
project config, which keeps providers and trusted domains as lists (projects.py).

    auth.oauth.providers.<id> = {type, isShared, clientId, clientSecret, microsoftTenantId,
                                 facebookConfigId, allowSignIn, allowConnectedAccounts}
    domains.trustedDomains.<id> = {baseUrl, handlerPath}

A record is replaced whole by an object, removed by null, and changed field by field by
dotted keys (`auth.oauth.providers.github.clientId`). The local service names a provider by
its type, so a provider record's id must be its type. Domain records keep their ids beside
the list (`trusted_domain_ids`, not part of any view).
"""

from __future__ import annotations

from typing import Any

from .errors import PlainError

PROVIDERS = "auth.oauth.providers"
DOMAINS = "domains.trustedDomains"
PREFIXES = (PROVIDERS, DOMAINS)

_PROVIDER_FIELDS = {
    "type": "type",
    "isShared": "is_shared",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "microsoftTenantId": "microsoft_tenant_id",
    "facebookConfigId": "facebook_config_id",
    "allowSignIn": None,  # per-account settings in the local service (oauth_providers.py)
    "allowConnectedAccounts": None,
}


def is_record_key(key: str) -> bool:
    return any(key == prefix or key.startswith(prefix + ".") for prefix in PREFIXES)


def split(override: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the record changes as dotted leaf keys, the rest of the override as given)."""
    records: dict[str, Any] = {}
    rest: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict) and value and not _is_record(path):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else key)
        elif is_record_key(path):
            records[path] = value
        else:
            rest[path] = value

    for key, value in override.items():
        if is_record_key(key) or any(prefix.startswith(key + ".") for prefix in PREFIXES):
            walk(value, key)
        else:
            rest[key] = value
    return records, rest


def _is_record(path: str) -> bool:
    """`auth.oauth.providers.<id>` or `domains.trustedDomains.<id>` (a whole record)."""
    return any(path.startswith(prefix + ".") and "." not in path[len(prefix) + 1 :] for prefix in PREFIXES)


def apply(config: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    """The config changes (`oauth_providers`, `domains`, `trusted_domain_ids`) the records make."""
    providers = {p["id"]: dict(p) for p in config.get("oauth_providers", [])}
    domains = [dict(d) for d in config.get("domains", [])]
    ids: dict[str, str] = dict(config.get("trusted_domain_ids") or {})
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
                domains, ids = [], {}
            touched.add(prefix)
            continue
        touched.add(prefix)
        if prefix == PROVIDERS:
            _provider_change(providers, record_id, field, value)
        else:
            domains = _domain_change(domains, ids, record_id, field, value)
    changes: dict[str, Any] = {}
    if PROVIDERS in touched:
        changes["oauth_providers"] = list(providers.values())
    if DOMAINS in touched:
        changes["domains"] = domains
        changes["trusted_domain_ids"] = ids
    return changes


def _provider_change(providers: dict[str, dict[str, Any]], record_id: str, field: str, value: Any) -> None:
    if not field and value is None:
        providers.pop(record_id, None)
        return
    record = {"type": record_id, "isShared": providers.get(record_id, {}).get("type") == "shared"} if field else {}
    current = providers.get(record_id)
    if field and current is not None:
        record.update({"clientId": current.get("client_id"), "clientSecret": current.get("client_secret")})
    if field:
        record[field] = value
    elif isinstance(value, dict):
        record = dict(value)
    else:
        raise PlainError(400, f"Invalid config override: {PROVIDERS}.{record_id} must be an object or null.")
    unknown = [name for name in record if name not in _PROVIDER_FIELDS]
    if unknown:
        raise PlainError(400, f"Invalid config override: {PROVIDERS}.{record_id} has unknown fields {', '.join(unknown)}.")
    kind = record.get("type") or record_id
    if kind != record_id:
        raise PlainError(
            400,
            f"Invalid config override: the authmw local service names a provider by its type; use"
            f" {PROVIDERS}.{kind} for a provider of type {kind}.",
        )
    provider: dict[str, Any] = {"id": record_id, "type": "shared" if record.get("isShared") else "standard", "enabled": True}
    for name, local in _PROVIDER_FIELDS.items():
        if local and local not in ("type", "is_shared") and record.get(name) is not None:
            provider[local] = record[name]
    if current is not None:  # the local settings of an outside provider stay
        for name in ("real_provider", "oidc_issuer_url"):
            if name in current:
                provider[name] = current[name]
    providers[record_id] = provider


def _domain_change(
    domains: list[dict[str, Any]], ids: dict[str, str], record_id: str, field: str, value: Any
) -> list[dict[str, Any]]:
    old_url = ids.get(record_id)
    old = next((d for d in domains if d["domain"] == old_url), None) if old_url else None
    if not field and value is None:
        ids.pop(record_id, None)
        return [d for d in domains if d is not old]
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
    kept = [d for d in domains if d is not old and d["domain"] != base]
    ids[record_id] = base
    return [*kept, entry]


def rendered(config: dict[str, Any]) -> dict[str, Any]:
    """The providers and trusted domains in the 2.8 config shape, as dotted keys
    (`auth.oauth.providers`, `domains.trustedDomains`), for a rendered config."""
    providers = {
        p["id"]: {
            "type": p["id"],
            "isShared": p.get("type") == "shared",
            **({"clientId": p["client_id"]} if p.get("client_id") else {}),
            **({"clientSecret": p["client_secret"]} if p.get("client_secret") else {}),
            "allowSignIn": True,
            "allowConnectedAccounts": True,
        }
        for p in config.get("oauth_providers", [])
        if p.get("enabled", True)
    }
    by_url = {url: record_id for record_id, url in (config.get("trusted_domain_ids") or {}).items()}
    domains = {
        by_url.get(d["domain"], f"domain-{index}"): {"baseUrl": d["domain"], "handlerPath": d.get("handler_path", "/handler")}
        for index, d in enumerate(config.get("domains", []))
    }
    return {PROVIDERS: providers, DOMAINS: domains}
