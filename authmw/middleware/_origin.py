"""Cross-site request checks for sessions read from cookies. No I/O, no web framework.

A browser attaches the session cookies to any request for the site, whichever page caused
it: a form on another site can POST to the app as the signed-in user (CSRF), a script on
another site can open a WebSocket to it (cross-site WebSocket hijacking). Every adapter
asks :meth:`OriginPolicy.refusal` once it knows the request's session came from cookies::

    policy = OriginPolicy(trusted_origins=["https://app.example.com"])
    refusal = policy.refusal(method, header, own_origin(scheme, host, forwarded_proto))
    if refusal is not None: answer refusal (403) without running the app

Which requests are checked: unsafe methods (anything but GET, HEAD, OPTIONS, TRACE) and
WebSocket handshakes, and only when the session came from cookies. A session sent in a
header (``x-stack-auth``, and any bearer token) is not checked: a page on another site
cannot make the browser attach such a header without the app's CORS consent, so it can only
come from code the app trusts. Adapters decide "from cookies" from what the core read
(:attr:`Tokens.from_cookies`), so every header-borne source is exempt alike.

The decision, in order:

1. ``Sec-Fetch-Site`` (sent by every current browser, computed by the browser itself, so
   proxies do not matter): ``same-origin`` and ``none`` (the user typed, bookmarked or
   reloaded it) pass; ``same-site`` and ``cross-site`` pass only when the request's origin
   (``Origin``, else ``Referer``) is a trusted origin; any other value is refused.
2. Else ``Origin`` (older browsers): it must be the request's own origin or a trusted one;
   ``null`` (sandboxed frames, cross-origin redirects, ``file:`` pages) is refused.
3. Else ``Referer``: its origin must be the request's own origin or a trusted one.
4. None of the three: the request passes. Browsers send ``Origin`` with every unsafe
   cross-origin request (and ``Sec-Fetch-Site`` with every request), so a request without
   any is not a cross-site browser request but a non-browser client (curl, a server, a
   test client), which could send any cookie it likes anyway; Django's and Rails' origin
   checks pass such requests for the same reason. ``SameSite=Lax`` cookies cover browsers
   too old to send any of these headers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

from authmw.errors import ConfigurationError, CrossSiteRequestRefused

from ._credentials import is_secure
from ._refusal import Refusal

#: Methods that must not change anything (RFC 9110 9.2.1); never checked.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: What a WebSocket handshake that fails the check gets: closed before the app sees it, or
#: handed to the app with no user.
WebSocketCrossSite = Literal["refuse", "anonymous"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
#: A DNS name or IPv4 address as browsers send it in origins (IDNs arrive as punycode).
_HOST = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")


#: The Public Suffix List bundled with ``publicsuffixlist`` (no I/O), made on first use. Names
#: under a top-level domain the list does not know (``localhost``, ``test``, ``internal``) are
#: not public suffixes: a wildcard under them names a development or private network.
_PUBLIC_SUFFIXES: list[PublicSuffixList] = []


def is_public_suffix(host: str) -> bool:
    """Whether ``host`` is a public suffix (``com``, ``co.uk``, ``github.io``), under which
    anyone can register a name of their own."""
    if not _PUBLIC_SUFFIXES:
        _PUBLIC_SUFFIXES.append(PublicSuffixList(accept_unknown=False))
    return bool(_PUBLIC_SUFFIXES[0].is_public(host.rstrip(".").lower()))


def normalize_origin(value: str) -> str | None:
    """``scheme://host[:port]`` as browsers serialise origins (lower case, no default port),
    or None when ``value`` is not an http(s) URL with a host (``null``, garbage)."""
    try:
        parts = urlsplit(value.strip())
        scheme, host, port = parts.scheme.lower(), parts.hostname, parts.port
    except ValueError:  # a bad port or IPv6 literal
        return None
    if scheme not in _DEFAULT_PORTS or not host or parts.username is not None or parts.password is not None:
        return None
    if ":" in host:
        host = f"[{host}]"
    elif not _HOST.fullmatch(host):
        return None
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def own_origin(scheme: str, host: str | None, forwarded_proto: str | None = None) -> str | None:
    """The request's own origin from its scheme (``ws``/``wss`` count as http/https; HTTPS
    when ``X-Forwarded-Proto`` says so, as for the cookies' ``Secure``) and ``Host``; None
    when the host is missing or malformed."""
    if not host or any(ch in host for ch in "/\\@?#"):
        return None
    scheme = "https" if is_secure(scheme, forwarded_proto) else {"ws": "http"}.get(scheme, scheme)
    return normalize_origin(f"{scheme}://{host}")


@dataclass(frozen=True)
class _Trusted:
    scheme: str
    host: str  # without "*." for a wildcard
    port: int | None
    wildcard: bool

    def matches(self, origin: str) -> bool:
        parts = urlsplit(origin)
        if parts.scheme != self.scheme or parts.port != self.port or not parts.hostname:
            return False
        host = parts.hostname
        return host.endswith("." + self.host) if self.wildcard else host == self.host


def _parse_trusted(value: object, setting: str) -> str | _Trusted:
    fix = f'{setting} lists origins such as "https://app.example.com" or "https://*.example.com"'
    if not isinstance(value, str):
        raise ConfigurationError(f"{fix}; got {value!r}.")
    wildcard = "://*." in value
    origin = normalize_origin(value.replace("://*.", "://", 1) if wildcard else value)
    parts = urlsplit(value.strip())
    if origin is None or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigurationError(f"{fix} (scheme, host and port only; no path); got {value!r}.")
    if not wildcard:
        return origin
    at = urlsplit(origin)
    assert at.hostname is not None
    if at.hostname.replace(".", "").isdigit() or ":" in at.hostname:
        raise ConfigurationError(f"{setting}: a wildcard needs a domain name, not an IP address; got {value!r}.")
    if is_public_suffix(at.hostname):
        raise ConfigurationError(
            f"{setting} must not trust every site under the public suffix {at.hostname!r} ({value!r}): anyone can "
            f"register a name there. List your own domain's subdomains, e.g. \"{at.scheme}://*.your-domain."
            f"{at.hostname}\", or the exact origins."
        )
    return _Trusted(at.scheme, at.hostname, at.port, True)


@dataclass(frozen=True)
class OriginPolicy:
    """The cross-site check of cookie sessions; see the module docstring.

    ``enabled=False`` turns it off (for an app with CSRF tokens of its own);
    ``trusted_origins`` lists other origins whose pages may send unsafe requests and open
    WebSockets with the user's cookies (a front end on another subdomain), exactly
    (``https://app.example.com``) or by subdomain wildcard (``https://*.example.com``, which
    does not include ``https://example.com`` itself). ``websocket``: "refuse" (close the
    handshake) or "anonymous" (let it in without the user). ``name`` gives a setting's name
    (``"TRUSTED_ORIGINS"`` -> ``trusted_origins``) for configuration errors.
    """

    enabled: bool = True
    trusted_origins: Iterable[str] = ()
    websocket: WebSocketCrossSite = "refuse"
    name: Callable[[str], str] = field(default=str.lower, repr=False, compare=False)
    _exact: frozenset[str] = field(init=False, repr=False, compare=False)
    _wildcards: tuple[_Trusted, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigurationError(f"{self.name('CSRF_CHECK')} must be True or False, not {self.enabled!r}.")
        if self.websocket not in ("refuse", "anonymous"):
            raise ConfigurationError(
                f'{self.name("WEBSOCKET_CROSS_SITE")} must be "refuse" or "anonymous", not {self.websocket!r}.'
            )
        setting = self.name("TRUSTED_ORIGINS")
        if isinstance(self.trusted_origins, str) or not isinstance(self.trusted_origins, Iterable):
            raise ConfigurationError(f'{setting} must be a list of origins, e.g. ["https://app.example.com"].')
        parsed = [_parse_trusted(value, setting) for value in self.trusted_origins]
        object.__setattr__(self, "trusted_origins", tuple(self.trusted_origins))
        object.__setattr__(self, "_exact", frozenset(p for p in parsed if isinstance(p, str)))
        object.__setattr__(self, "_wildcards", tuple(p for p in parsed if isinstance(p, _Trusted)))

    def is_trusted(self, origin: str | None) -> bool:
        if origin is None:
            return False
        return origin in self._exact or any(w.matches(origin) for w in self._wildcards)

    def applies(self, method: str, websocket: bool = False) -> bool:
        """Whether a cookie session's request of this kind is checked at all (cheap)."""
        return self.enabled and (websocket or method not in SAFE_METHODS)

    def refusal(
        self,
        method: str,
        header: Callable[[str], str | None],
        own: str | None,
        *,
        websocket: bool = False,
    ) -> Refusal | None:
        """None when a request whose session came from cookies may go on, else the 403 to answer.

        ``header(name)`` gives a request header by lower-case name (None when absent);
        ``own`` is the request's own origin (:func:`own_origin`).
        """
        if not self.applies(method, websocket=websocket):
            return None
        fetch_site = header("sec-fetch-site")
        origin_header = header("origin")
        if fetch_site is not None:
            fetch_site = fetch_site.strip().lower()
            if fetch_site in ("same-origin", "none"):
                return None
            if fetch_site in ("same-site", "cross-site"):
                origin = self._claimed_origin(origin_header, header)
                if self.is_trusted(origin):
                    return None
                return _refused("sec-fetch-site", origin)
            return _refused("sec-fetch-site", None)
        if origin_header is not None:
            origin = normalize_origin(origin_header)
            if origin is not None and (origin == own or self.is_trusted(origin)):
                return None
            return _refused("origin", origin)
        referer = header("referer")
        if referer is not None:
            origin = normalize_origin(referer)
            if origin is not None and (origin == own or self.is_trusted(origin)):
                return None
            return _refused("referer", origin)
        return None  # not a browser: see the module docstring

    @staticmethod
    def _claimed_origin(origin_header: str | None, header: Callable[[str], str | None]) -> str | None:
        if origin_header is not None:
            return normalize_origin(origin_header)
        referer = header("referer")
        return normalize_origin(referer) if referer is not None else None


def _refused(check: str, origin: str | None) -> Refusal:
    return Refusal.of(CrossSiteRequestRefused(details={"check": check, "origin": origin}))
