"""The cross-site cases every adapter's test runs through its own framework test client.

Each adapter's test app has an ``/action`` route for every method that records
``(method, user id)`` and answers ``{"done": true}``; ``run_cases`` sends each case with the
session cookies of a real user and checks both the answer and whether the action happened.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

EVIL = "https://evil.example"
#: What the adapters under test are given as AUTHMW trusted origins.
TRUSTED = ["https://front.example", "https://*.trusted.example"]

#: name, method, headers (``{own}`` stands for the test client's own origin).
REFUSED: list[tuple[str, str, dict[str, str]]] = [
    ("foreign Origin", "POST", {"origin": EVIL}),
    ("Sec-Fetch-Site cross-site", "POST", {"sec-fetch-site": "cross-site", "origin": EVIL}),
    ("Sec-Fetch-Site cross-site, no Origin", "POST", {"sec-fetch-site": "cross-site"}),
    ("Sec-Fetch-Site wins over an own Origin", "POST", {"sec-fetch-site": "cross-site", "origin": "{own}"}),
    (
        "Sec-Fetch-Site same-site, untrusted",
        "POST",
        {"sec-fetch-site": "same-site", "origin": "https://a.evil.example"},
    ),
    ("unknown Sec-Fetch-Site", "POST", {"sec-fetch-site": "whatever"}),
    ("foreign Referer, no Origin", "POST", {"referer": EVIL + "/page?x=1"}),
    ("Origin null", "POST", {"origin": "null"}),
    ("own origin on another port", "POST", {"origin": "{own}:1"}),
    ("own host over https", "POST", {"origin": "{own_https}"}),
    ("PUT", "PUT", {"origin": EVIL}),
    ("PATCH", "PATCH", {"origin": EVIL}),
    ("DELETE", "DELETE", {"origin": EVIL}),
    ("a made-up method", "PURGE", {"origin": EVIL}),
]
ALLOWED: list[tuple[str, str, dict[str, str]]] = [
    ("own Origin", "POST", {"origin": "{own}"}),
    ("Sec-Fetch-Site same-origin", "POST", {"sec-fetch-site": "same-origin", "origin": "{own}"}),
    ("Sec-Fetch-Site none (typed by the user)", "POST", {"sec-fetch-site": "none"}),
    ("own Referer, no Origin", "POST", {"referer": "{own}/form"}),
    ("trusted Origin", "POST", {"origin": "https://front.example"}),
    ("trusted Origin, cross-site", "DELETE", {"sec-fetch-site": "cross-site", "origin": "https://front.example"}),
    ("wildcard-trusted Origin", "PUT", {"sec-fetch-site": "same-site", "origin": "https://app.trusted.example"}),
    ("trusted Referer, cross-site", "POST", {"sec-fetch-site": "cross-site", "referer": "https://front.example/x"}),
    ("no browser headers (curl, a server)", "POST", {}),
    ("GET from another site", "GET", {"sec-fetch-site": "cross-site", "origin": EVIL}),
    ("HEAD from another site", "HEAD", {"sec-fetch-site": "cross-site", "referer": EVIL}),
]

Send = Callable[[str, dict[str, str]], Any]


def headers_for(case_headers: dict[str, str], own: str) -> dict[str, str]:
    own_https = "https://" + own.split("://", 1)[1]
    return {k: v.format(own=own, own_https=own_https) for k, v in case_headers.items()}


def run_cases(send: Send, actions: list[tuple[str, Any]], cookie: str, user_id: str, own: str) -> None:
    """``send(method, headers)`` answers with a framework test client's response;
    ``actions`` is what the app's ``/action`` recorded."""
    failures = []
    for name, method, extra in REFUSED:
        before = len(actions)
        r = send(method, {"cookie": cookie, **headers_for(extra, own)})
        content = _content(r)
        body = json.loads(content) if content else None
        if r.status_code != 403 or not body or body.get("code") != "CROSS_SITE_REQUEST_REFUSED":
            failures.append(f"{name}: expected the 403, got {r.status_code} {content[:200]!r}")
        if len(actions) != before:
            failures.append(f"{name}: the action happened")
        if any("stack-" in v for v in _set_cookies(r)):
            failures.append(f"{name}: the refusal touched the session cookies")
    for name, method, extra in ALLOWED:
        before = len(actions)
        r = send(method, {"cookie": cookie, **headers_for(extra, own)})
        if r.status_code != 200 or actions[before:] != [(method, user_id)]:
            failures.append(f"{name}: expected the action, got {r.status_code} {_content(r)[:200]!r}")
    assert not failures, "\n".join(failures)


def header_sessions(session: Any) -> list[dict[str, str]]:
    """The ways a session travels in headers: x-stack-auth, Authorization: Bearer, x-stack-access-token."""
    pair = json.dumps({"accessToken": session.access_token, "refreshToken": session.refresh_token})
    return [
        {"x-stack-auth": pair},
        {"authorization": f"Bearer {session.access_token}"},
        {"x-stack-access-token": session.access_token},
    ]


def run_header_sessions(send: Send, actions: list[tuple[str, Any]], session: Any) -> None:
    """A session in a header is never checked, whatever site the request claims to come from."""
    for auth, (name, method, extra) in ((a, case) for a in header_sessions(session) for case in REFUSED):
        before = len(actions)
        r = send(method, {**auth, **headers_for(extra, "http://x")})
        assert r.status_code == 200 and actions[before:] == [(method, session.user_id)], (name, auth, _content(r))


def _content(r: Any) -> bytes:
    content = getattr(r, "content", None)
    return content if isinstance(content, bytes) else r.data  # Flask's test responses have .data


def _set_cookies(r: Any) -> list[str]:
    if isinstance(getattr(r, "cookies", None), SimpleCookie):  # Django's responses
        return [morsel.OutputString() for morsel in r.cookies.values()]
    headers = r.headers
    if hasattr(headers, "get_list"):
        return list(headers.get_list("set-cookie"))
    if hasattr(headers, "getlist"):
        return list(headers.getlist("Set-Cookie"))
    return [v for k, v in headers.items() if k.lower() == "set-cookie"]
