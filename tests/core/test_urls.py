"""Return and callback URLs are judged as a browser reads them (authmw._urls; issue 18).

Node's ``URL`` (the WHATWG parser browsers implement) is the reference: a differential test
feeds the same hostile URLs to both and compares.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, strategies as st

from authmw._urls import same_origin_path
from authmw_local.urls import trusted_callback

PIECES = [
    "/", "//", "\\", "/\\", ".", "..", "%2e", "%2E", "%2f", "%5c", "\t", "\n", "\r", " ", "@", ":", "?", "#",
    "evil.example", "localhost", "app.example.com", "javascript:", "http:", "https:", "HTTP:", "//evil.example",
    "user:pw@", "xn--n3h", "\u2603", ":443", ":8080", "%00", "\x00", "\x1f", "a", "cb",
]  # fmt: skip
hostile = st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/dashboard", "/dashboard"),
        ("/a/b?x=1#frag", "/a/b?x=1#frag"),
        ("relative", "/relative"),
        ("/a/../b", "/b"),
        ("/%2e%2f%2fevil.example", "/%2e%2f%2fevil.example"),  # one harmless segment
        ("/.//evil.example", None),  # resolves to //evil.example: a host to the browser
        ("/./\\evil.example", None),
        ("/a/..//evil.example", None),
        ("/%2e//evil.example", None),
        ("//evil.example", None),
        ("/\\evil.example", None),
        ("\\\\evil.example", None),
        ("\t/\n/evil.example", None),
        (" //evil.example", None),
        ("https://evil.example/", None),
        ("javascript:alert(1)", None),
        ("java\nscript:alert(1)", None),
        ("", None),
        (None, None),
    ],
)
def test_same_origin_path(url: str | None, expected: str | None) -> None:
    assert same_origin_path(url) == expected


@given(hostile)
def test_an_accepted_path_starts_with_exactly_one_slash(url: str) -> None:
    judged = same_origin_path(url)
    if judged is not None:
        assert judged.startswith("/") and not judged.startswith(("//", "/\\"))
        assert same_origin_path(judged) == judged  # stable: judging again changes nothing


def test_guards_send_people_to_sign_in_with_a_judged_way_back() -> None:
    from authmw._oauth_flow import safe_return_path
    from authmw.middleware._access import sign_in_url

    assert sign_in_url("/handler", "/page?x=1") == "/handler/sign-in?after_auth_return_to=%2Fpage%3Fx%3D1"
    for hostile in ("/.//evil.example", "//evil.example", "/\\evil.example", "https://evil.example/", None):
        assert sign_in_url("/handler", hostile) == "/handler/sign-in"
        assert safe_return_path(hostile) is None  # the server-rendered OAuth routes judge the same way


@pytest.mark.parametrize(
    ("url", "domains", "allow_localhost", "trusted"),
    [
        ("http://localhost:3000/cb", [], True, True),
        ("http://127.0.0.1/cb", [], True, True),
        ("http://app.localhost/cb", [], True, True),
        ("http://localhost:3000/cb", [], False, False),
        ("http://evil.example\\@localhost/cb", [], True, False),  # the browser goes to evil.example
        ("http://evil.example\\\\@localhost/cb", [], True, False),
        ("http://localhost\\@evil.example/cb", [], True, True),  # ... and this one to localhost
        ("https://evil.example\\@app.example.com/", ["https://app.example.com"], False, False),
        ("https://app.example.com/handler/x", ["https://app.example.com"], False, True),
        ("https://APP.example.com/x", ["https://app.example.com/"], False, True),
        ("https://app.example.com:8443/x", ["https://app.example.com"], False, True),  # ports not compared (7.3)
        ("http://app.example.com/x", ["https://app.example.com"], False, False),
        ("https://app.example.com/application", ["https://app.example.com/app"], False, False),
        ("https://app.example.com/app/cb", ["https://app.example.com/app"], False, True),
        ("https://app.example.com.evil.example/", ["https://app.example.com"], False, False),
        ("javascript://localhost/%0aalert(1)", [], True, False),
        ("/relative", [], True, False),
        ("https://user@evil.example@app.example.com/", ["https://app.example.com"], False, True),
    ],
)
def test_trusted_callback(url: str, domains: list[str], allow_localhost: bool, trusted: bool) -> None:
    assert trusted_callback(url, domains, allow_localhost=allow_localhost) is trusted


# -- differential: Node's URL is the browser --------------------------------------------------

NODE_JUDGE = r"""
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const base = "https://base-origin.invalid";
const out = lines.map(({ url, domains }) => {
  let path = null;
  try {
    const r = new URL(url, base);
    if (r.origin === base && r.pathname.startsWith("/") && !r.pathname.startsWith("//")) {
      path = r.pathname + r.search + r.hash;
    }
  } catch {}
  let callback = false;
  try {
    const u = new URL(url);
    const local = /^(localhost|.*\.localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.test(u.hostname);
    callback = ["http:", "https:"].includes(u.protocol) && !!u.hostname && (local || domains.some((d) => {
      const t = new URL(d);
      const p = t.pathname.replace(/\/+$/, "");
      return t.protocol === u.protocol && t.hostname === u.hostname && (u.pathname === p || u.pathname.startsWith(p + "/"));
    }));
  } catch {}
  return { path, callback };
});
process.stdout.write(JSON.stringify(out));
"""


def test_python_and_node_judge_hostile_urls_alike() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("the differential test needs Node (node on PATH), as the test command installs")
    cases = [example for example in _examples(4000) if example]  # "" means "no return path" here
    domains = ["https://app.example.com", "http://cb.example/handler"]
    payload = "\n".join(json.dumps({"url": url, "domains": domains}) for url in cases) + "\n"
    done = subprocess.run([node, "-e", NODE_JUDGE], input=payload, capture_output=True, text=True, check=True)
    for url, reference in zip(cases, json.loads(done.stdout), strict=True):
        assert same_origin_path(url) == reference["path"], url
        assert trusted_callback(url, domains, allow_localhost=True) is reference["callback"], url


def _examples(count: int) -> list[str]:
    import random

    rng = random.Random(18)  # the same cases on every run
    prefixes = ["", "http://", "https://", "//", "/", "\\\\", "javascript:", "HTTPS://"]
    hosts = ["localhost", "localhost:3000", "127.0.0.1", "app.example.com", "cb.example", "evil.example", ""]
    out = []
    for _ in range(count):
        parts = [rng.choice(prefixes)]
        for _ in range(rng.randint(0, 6)):
            parts.append(rng.choice(PIECES + hosts))
        out.append("".join(parts))
    return out


@pytest.mark.parametrize("handler_path", ["//evil.example/handler", "/\\evil.example", "/\t/evil.example"])
def test_a_handler_path_a_browser_reads_as_another_host_is_refused(handler_path: str) -> None:
    """Every sign-in redirect, return link and page URL starts with the handler path: one that
    a browser reads as a network path sent them all off the site. The control: a path."""
    from authmw import AuthConfig
    from authmw.errors import ConfigurationError

    project = "00000000-0000-4000-8000-000000000001"
    with pytest.raises(ConfigurationError, match="not a path of this site"):
        AuthConfig(project_id=project, api_url="http://localhost:8102", handler_path=handler_path)
    assert AuthConfig(project_id=project, api_url="http://localhost:8102", handler_path="/auth/").handler_path == "/auth"
