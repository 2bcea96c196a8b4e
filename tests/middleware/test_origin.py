"""The framework-free cross-site decision (authmw/middleware/_origin.py)."""

from __future__ import annotations

import pytest

from authmw.errors import ConfigurationError
from authmw.middleware._origin import OriginPolicy, normalize_origin, own_origin


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("https://Example.COM", "https://example.com"),
        ("https://example.com:443", "https://example.com"),
        ("http://example.com:80/", "http://example.com"),
        ("http://localhost:5173/path?q#f", "http://localhost:5173"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("null", None),
        ("", None),
        ("file:///etc/passwd", None),
        ("javascript:alert(1)", None),
        ("https://user:pw@example.com", None),
        ("https://example.com:99999", None),
        ("//example.com", None),
    ],
)
def test_normalize_origin(value: str, origin: str | None) -> None:
    assert normalize_origin(value) == origin


def test_own_origin() -> None:
    assert own_origin("http", "Example.com:80") == "http://example.com"
    assert own_origin("ws", "localhost:8000") == "http://localhost:8000"
    assert own_origin("wss", "example.com") == "https://example.com"
    assert own_origin("http", "example.com", "https") == "https://example.com"
    assert own_origin("http", "example.com", "http, https") == "http://example.com"
    for bad in (None, "", "evil.example/x", "a@evil.example", "evil.example?"):
        assert own_origin("http", bad) is None


def test_wildcards_cover_subdomains_only_with_the_same_scheme_and_port() -> None:
    policy = OriginPolicy(trusted_origins=["https://*.example.com", "http://*.localhost:5173"])
    assert policy.is_trusted("https://app.example.com")
    assert policy.is_trusted("https://a.b.example.com")
    assert not policy.is_trusted("https://example.com")
    assert not policy.is_trusted("https://evilexample.com")
    assert not policy.is_trusted("http://app.example.com")
    assert not policy.is_trusted("https://app.example.com:8443")
    assert policy.is_trusted("http://ui.localhost:5173")
    assert not policy.is_trusted("http://ui.localhost:5174")
    assert not policy.is_trusted(None)


def test_the_first_header_present_decides() -> None:
    policy = OriginPolicy(trusted_origins=["https://front.example"])
    own = "https://api.example"

    def decide(method: str = "POST", **headers: str) -> str | None:
        found = {k.replace("_", "-"): v for k, v in headers.items()}
        refusal = policy.refusal(method, found.get, own)
        return None if refusal is None else refusal.details["check"]  # type: ignore[index]

    assert decide(sec_fetch_site="same-origin", origin="https://evil.example") is None  # the browser knows best
    assert decide(sec_fetch_site="cross-site", origin=own) == "sec-fetch-site"
    assert decide(sec_fetch_site="SAME-SITE", origin="https://front.example") is None
    assert decide(origin="https://api.example:443") is None
    assert decide(origin="https://evil.example", referer=own + "/") == "origin"
    assert decide(referer="not a url") == "referer"
    assert decide() is None
    assert decide("OPTIONS", origin="https://evil.example") is None
    assert policy.refusal("GET", {"origin": "null"}.get, own, websocket=True) is not None
    assert OriginPolicy(enabled=False).refusal("POST", {"origin": "null"}.get, own) is None


def test_a_wildcard_must_stand_for_subdomains() -> None:
    for bad in ["https://*example.com", "https://ex*.com", "*.example.com", "https://*.example.com/x"]:
        with pytest.raises(ConfigurationError, match="trusted_origins"):
            OriginPolicy(trusted_origins=[bad])


@pytest.mark.parametrize(
    "public",
    [
        "https://*.com",
        "https://*.co.uk",
        "https://*.CO.UK",
        "http://*.com:8080",
        "https://*.github.io",  # the list's private section: anyone can have a name there too
        "https://*.xn--p1ai",  # .рф as browsers send it
        "https://*.com.",
    ],
)
def test_a_wildcard_directly_under_a_public_suffix_is_refused(public: str) -> None:
    """``https://*.com`` would let every .com site POST with the user's cookies."""
    with pytest.raises(ConfigurationError, match=r"trusted_origins must not trust every site under the public suffix"):
        OriginPolicy(trusted_origins=[public])


def test_a_wildcard_on_an_ip_address_is_refused() -> None:
    for bad in ("https://*.0.0.1", "http://*.[::1]"):
        with pytest.raises(ConfigurationError, match="trusted_origins: a wildcard needs a domain name"):
            OriginPolicy(trusted_origins=[bad])


def test_wildcards_under_a_registrable_domain_or_a_local_name_still_work() -> None:
    policy = OriginPolicy(
        trusted_origins=[
            "https://*.example.co.uk",
            "https://*.me.github.io",
            "http://*.localhost:5173",
            "https://*.dev.internal",
            "https://*.test",  # unknown to the list: a private name, as localhost
            "https://co.uk",  # an exact origin is only itself
        ]
    )
    assert policy.is_trusted("https://shop.example.co.uk")
    assert not policy.is_trusted("https://evil.co.uk")
    assert policy.is_trusted("https://blog.me.github.io")
    assert not policy.is_trusted("https://evil.github.io")
    assert policy.is_trusted("http://ui.localhost:5173")
    assert policy.is_trusted("https://a.test")


def test_the_public_suffix_refusal_names_the_adapters_setting(local_service) -> None:
    from flask import Flask

    from authmw_flask import AuthMW

    app = Flask(__name__)
    app.config["AUTHMW_TRUSTED_ORIGINS"] = ["https://*.co.uk"]
    with pytest.raises(ConfigurationError, match=r'app.config\["AUTHMW_TRUSTED_ORIGINS"\] must not trust every site'):
        AuthMW(app, config=local_service.config)
