"""In-process cost of the middleware per request: no network, no server, no framework.

The ASGI middleware (and the WSGI one) is called directly with a minimal scope/environ and
an inner app that answers 200 at once; the same loop without the middleware is the
baseline, timed in alternation with it. Times are this thread's CPU time
(``time.thread_time``), so other load on the machine does not count; each figure is the
best of several repeats with the garbage collector paused, as timeit does, in
microseconds per request.

Cases: a repeated token (the steady state), no cookie at all, unrelated cookies only, the
x-stack-auth header, and a first-seen token. A first-seen token is one the middleware has
never seen: a pool of real sessions is minted by the local service (``POST /auth/sessions``
with the server key), every request of a pass carries another one (so another Cookie value:
no per-Cookie memo, no steady-state outcome, no verified token to reuse), and every pass
runs against a new middleware whose key set was fetched by an untimed request first. The
verifier alone, the bare ES256 check of ``cryptography`` and the recipe an app would write
with PyJWT alone (``jwt.decode`` on every request, key set prepared once) are timed over the
same pool, and the two ratios the first-seen targets are stated in are printed: a first-seen
request over the check compares like with like, each request and each check timed on its own,
its least over the passes, the median over the tokens (as ``bench/first_seen.py`` does; a
pass's average of the check is a fifth to two fifths higher on this VM and flattered the
ratio until 29 November 2026).

    .venv/bin/python bench/inprocess.py [--iterations 20000] [--repeat 7] [--fresh 256]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import gc
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import jwt
from _common import Stack, heading, percentile, row
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from authmw import _jwt
from authmw._jwt import PreparedKey
from authmw._ops import SyncDriver
from authmw._tokens import Claims, TokenVerifier
from authmw.middleware import AuthMiddleware, WSGIAuthMiddleware

UNRELATED = "_ga=GA1.1.1234567890.1700000000; theme=dark; csrftoken=6Jz1y3kq0bXwT1oYw2cQy0V3x9bM"


async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello, world"})


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def send(message: dict[str, Any]) -> None:
    pass


async def _nothing(scope: dict[str, Any], receive: Any, send: Any) -> None:
    pass


def _nothing_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    return []


def inner_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello, world"]


def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
    pass


def scope_headers(cookie: str | None = None, auth: str | None = None) -> list[tuple[bytes, bytes]]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"accept", b"*/*")]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode("latin-1")))
    if auth is not None:
        headers.append((b"x-stack-auth", auth.encode("latin-1")))
    return headers


def environ_for(cookie: str | None = None, auth: str | None = None) -> dict[str, Any]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "wsgi.url_scheme": "http",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "bench",
        "HTTP_ACCEPT": "*/*",
    }
    if cookie is not None:
        environ["HTTP_COOKIE"] = cookie
    if auth is not None:
        environ["HTTP_X_STACK_AUTH"] = auth
    return environ


class Timer:
    def __init__(self, iterations: int, repeat: int) -> None:
        self.iterations = iterations
        self.repeat = repeat
        self.loop = asyncio.new_event_loop()

    def asgi(self, app: Any, header_sets: list[list[tuple[bytes, bytes]]], base: Any = inner) -> float:
        """Best µs per request added by ``app`` over ``base``; requests cycle through ``header_sets``.

        The two are timed in alternation, so a burst of other load on the machine hits both.
        """
        n, k = self.iterations, len(header_sets)

        async def many(target: Any) -> float:
            gc.disable()  # as timeit does: a collection of this process's big heap is not the middleware's
            try:
                start = time.thread_time()
                for i in range(n):
                    scope = {
                        "type": "http",
                        "method": "GET",
                        "scheme": "http",
                        "path": "/",
                        "headers": header_sets[i % k],
                    }
                    await target(scope, receive, send)
                return time.thread_time() - start
            finally:
                gc.enable()

        run = self.loop.run_until_complete
        run(many(app))  # warm-up: key set fetched, caches filled
        timed = [(run(many(base)), run(many(app))) for _ in range(self.repeat)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / n * 1e6

    def bare_asgi(self) -> float:
        return self.asgi(inner, [scope_headers()], base=_nothing)

    def wsgi(self, app: Any, environs: list[dict[str, Any]], base: Any = inner_wsgi) -> float:
        n, k = self.iterations, len(environs)
        # A server decodes its header strings afresh for every request; a string object used
        # again would carry its cached hash and flatter every dictionary lookup keyed by it.
        raw = [
            {name: value.encode("latin-1") for name, value in e.items() if name.startswith("HTTP_")} for e in environs
        ]

        def many(target: Any) -> float:
            gc.disable()
            try:
                start = time.thread_time()
                for i in range(n):
                    environ = dict(environs[i % k])
                    for name, value in raw[i % k].items():
                        environ[name] = value.decode("latin-1")
                    target(environ, start_response)
                return time.thread_time() - start
            finally:
                gc.enable()

        many(app)
        timed = [(many(base), many(app)) for _ in range(self.repeat)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / n * 1e6

    def first_seen_asgi(
        self, make: Callable[[], Any], warm: list[tuple[bytes, bytes]], header_sets: list[list[tuple[bytes, bytes]]]
    ) -> tuple[float, list[float]]:
        """µs added per request when every request carries a token the middleware never saw.

        Each pass runs over a new middleware (``make()``) whose key set an untimed request
        with the ``warm`` headers fetched first; the bare app runs over the same requests in
        alternation. Returns the best pass's µs per request and, for each request, its own
        thread time (whole call, bare app included), the least over ``repeat`` more passes.
        """
        each: list[float] = []

        async def many(target: Any, record: bool) -> float:
            gc.disable()
            try:
                start = time.thread_time()
                for headers in header_sets:
                    t0 = time.thread_time() if record else 0.0
                    await target({"type": "http", "scheme": "http", "path": "/", "headers": headers}, receive, send)
                    if record:
                        each.append((time.thread_time() - t0) * 1e6)
                return time.thread_time() - start
            finally:
                gc.enable()

        async def one_pass(record: bool) -> tuple[float, float]:
            app = make()
            await app({"type": "http", "scheme": "http", "path": "/", "headers": warm}, receive, send)
            base = await many(inner, False)
            timed = await many(app, record)
            await app.aclose()
            return base, timed

        run = self.loop.run_until_complete
        run(one_pass(False))  # warm-up of the code paths
        timed = [run(one_pass(False)) for _ in range(self.repeat)]
        n = len(header_sets)
        passes = []
        for _ in range(self.repeat):
            each.clear()
            run(one_pass(True))
            passes.append(list(each))
        least = [min(p[i] for p in passes) for i in range(n)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / n * 1e6, least

    def first_seen_wsgi(self, make: Callable[[], Any], warm: dict[str, Any], environs: list[dict[str, Any]]) -> float:
        """As first_seen_asgi, for the WSGI middleware."""

        def many(target: Any) -> float:
            fresh = [dict(e) for e in environs]
            gc.disable()
            try:
                start = time.thread_time()
                for environ in fresh:
                    target(environ, start_response)
                return time.thread_time() - start
            finally:
                gc.enable()

        def one_pass() -> tuple[float, float]:
            app = make()
            app(dict(warm), start_response)
            base, timed = many(inner_wsgi), many(app)
            app.close()
            return base, timed

        one_pass()
        timed = [one_pass() for _ in range(self.repeat)]
        return (min(t for _, t in timed) - min(b for b, _ in timed)) / len(environs) * 1e6

    def close(self) -> None:
        self.loop.close()


def der_checks(tokens: list[str]) -> list[tuple[bytes, bytes]]:
    """(DER signature, signed bytes) of each ES256 token: what ``cryptography`` checks alone."""
    checks = []
    for token in tokens:
        signing_input, _, sig = token.rpartition(".")
        raw = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        checks.append((der, signing_input.encode()))
    return checks


def floor_check(
    verifier: TokenVerifier, key: PreparedKey, project_id: str, *, pyjwt: bool = True
) -> Callable[[Any], None]:
    """The least any middleware must do with a first-seen token, written out straight, as a
    check of an ASGI request's headers: find the Cookie header and in it the session's two
    cookies, slice the access token out of the pair (as SessionCookieReader does for the SDKs'
    value), then PyJWT's read and ``verify_parsed``, the verifier's kind, issuer and subject
    checks and Claims (``TokenVerifier._check``), and the verified-token cache entry. No user
    object, no refresh decision, no cookie rewriting, no other credential: a floor to set issue
    38's first-seen target against (bench/first_seen.py, bench/instructions.py), not a
    middleware.

    ``pyjwt=False`` is a reference only, for what PyJWT's part costs in that floor: the token
    read with ``binascii`` and ``json`` and its signature handed to ``cryptography`` directly,
    checking no more than that the header says ES256 (authmw never verifies a token so)."""
    refresh_name = f"stack-refresh-{project_id}"
    ecdsa = ec.ECDSA(hashes.SHA256())
    to_standard = bytes.maketrans(b"-_", b"+/")

    def unpadded(segment: bytes) -> bytes:
        return binascii.a2b_base64(segment.translate(to_standard) + b"==")

    def without_pyjwt(token: str) -> Claims:
        signing_input, _, signature = token.encode().rpartition(b".")
        header, _, payload_segment = signing_input.partition(b".")
        if json.loads(unpadded(header)).get("alg") != "ES256":
            raise ValueError("not an ES256 token")
        payload, raw = json.loads(unpadded(payload_segment)), unpadded(signature)
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        key.key.verify(encode_dss_signature(r, s), signing_input, ecdsa)
        kind = verifier._kind(payload)
        return Claims(
            payload["sub"],
            kind.audience,
            payload["iss"],
            float(payload["iat"]),
            float(payload["exp"]),
            payload,
            kind.name,
        )

    def check(headers: list[tuple[bytes, bytes]]) -> None:
        cookie = next(value.decode("latin-1") for name, value in headers if name == b"cookie")
        refresh = access = ""
        for chunk in cookie.split(";"):
            name, _, value = chunk.partition("=")
            name = name.strip()
            if name == refresh_name:
                refresh = value
            elif name == "stack-access":
                access = value
        pair_refresh, _, token = access[6:-6].partition("%22%2C%22")
        if pair_refresh != refresh:
            raise ValueError("the floor reads only the access cookie the SDKs write")
        claims = verifier._check(_jwt.parse(token), key) if pyjwt else without_pyjwt(token)
        verifier._remember(token, claims)

    return check


def time_verifier(config: Any, tokens: list[str], repeat: int) -> tuple[float, float, float]:
    """µs of TokenVerifier.verify per token it never saw (key set fetched before), and of the
    ES256 check alone (``cryptography``, signature converted to DER beforehand): the best
    pass's average of each, and of the check also what the first-seen request is stated in,
    each check timed on its own, the least over the passes, the median over the tokens."""
    driver = SyncDriver()
    best = float("inf")
    for _ in range(repeat + 1):
        verifier = TokenVerifier(config)
        driver.run(verifier.verify(tokens[0]))  # fetches the key set
        gc.disable()
        try:
            start = time.thread_time()
            for token in tokens[1:]:
                driver.run(verifier.verify(token))
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    driver.close()
    # The same signatures, checked by cryptography alone.
    key = jwt.PyJWK(httpx.get(config.jwks_url, timeout=10).json()["keys"][0]).key
    checks = der_checks(tokens)
    algorithm = ec.ECDSA(hashes.SHA256())
    best_sig = float("inf")
    least = [float("inf")] * len(checks)
    for _ in range(repeat):
        gc.disable()
        try:
            start = time.thread_time()
            for der, data in checks:
                key.verify(der, data, algorithm)
            best_sig = min(best_sig, time.thread_time() - start)
            for i, (der, data) in enumerate(checks):
                t0 = time.thread_time()
                key.verify(der, data, algorithm)
                least[i] = min(least[i], time.thread_time() - t0)
        finally:
            gc.enable()
    return best / (len(tokens) - 1) * 1e6, best_sig / len(checks) * 1e6, percentile(least, 50) * 1e6


def time_pyjwt(config: Any, tokens: list[str], repeat: int) -> float:
    """µs per token of the recipe an app writes with PyJWT alone, on every request: the
    token's ``kid`` read unverified, its key from a key set fetched and prepared once
    (``PyJWKSet``), ``jwt.decode`` with the project's audience and issuer and 30 s of leeway."""
    keys = jwt.PyJWKSet.from_dict(httpx.get(config.jwks_url, timeout=10).json())
    claims = jwt.decode(tokens[0], options={"verify_signature": False})
    audience, issuer = claims["aud"], claims["iss"]

    def by_the_book(token: str) -> dict[str, Any]:
        key = keys[jwt.get_unverified_header(token)["kid"]]
        return jwt.decode(
            token,
            key,
            algorithms=["ES256"],
            audience=audience,
            issuer=issuer,
            leeway=30,
            options={"require": ["exp", "sub"]},
        )

    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            start = time.thread_time()
            for token in tokens:
                by_the_book(token)
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    return best / len(tokens) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20_000, help="requests per timed run (default 20000)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per case; the best counts (default 7)")
    parser.add_argument(
        "--fresh", type=int, default=256, help="sessions minted for first-seen tokens, one per request (default 256)"
    )
    args = parser.parse_args()
    timer = Timer(args.iterations, args.repeat)

    with Stack() as stack:
        config = stack.config
        first = stack.sign_up()
        # Real sessions of one user, each with its own access token: first-seen tokens.
        pool = stack.mint(max(2, args.fresh), first.user_id)
        cookie = stack.cookie(first)
        header = json.dumps({"accessToken": first.access_token, "refreshToken": first.refresh_token})

        # -- ASGI ---------------------------------------------------------------------
        mw = AuthMiddleware(inner, config=config)
        cases = {
            "no cookie": [scope_headers()],
            "session cookie": [scope_headers(cookie)],
            "unrelated cookies only": [scope_headers(UNRELATED)],
            "unrelated cookies + session cookie": [scope_headers(UNRELATED + "; " + cookie)],
            "x-stack-auth header": [scope_headers(auth=header)],
        }
        heading(f"In-process cost, ASGI (AuthMiddleware): best of {args.repeat} x {args.iterations} requests")
        row("bare app alone (over an empty coroutine)", f"{timer.bare_asgi():7.2f} us per request")
        results = {name: timer.asgi(mw, hs) for name, hs in cases.items()}
        row("anonymous, no cookie: added", f"{results['no cookie']:7.2f} us")
        row("anonymous, unrelated cookies only: added", f"{results['unrelated cookies only']:7.2f} us")
        row("repeated token, session cookie: added", f"{results['session cookie']:7.2f} us   (target <= 10 us)")
        row("repeated token, + unrelated cookies: added", f"{results['unrelated cookies + session cookie']:7.2f} us")
        row("repeated token, x-stack-auth header: added", f"{results['x-stack-auth header']:7.2f} us")
        fresh_headers = [scope_headers(stack.cookie(s)) for s in pool]
        added, each = timer.first_seen_asgi(
            lambda: AuthMiddleware(inner, config=config), scope_headers(stack.cookie(first)), fresh_headers
        )
        row(
            f"first-seen token, session cookie: added ({len(pool)} tokens)",
            f"{added:7.2f} us   (a new token per request: cookie parse + ES256 check)",
        )
        row(
            "first-seen token, one request (least of passes): median / p90",
            f"{percentile(each, 50):7.2f} us / {percentile(each, 90):.2f} us   (whole call, bare app included)",
        )
        verifier_us, signature_us, check_us = time_verifier(config, [s.access_token for s in pool], args.repeat)
        row("  of which TokenVerifier.verify, cached key set", f"{verifier_us:7.2f} us per new token")
        row("  of which the ES256 check alone (cryptography)", f"{signature_us:7.2f} us")
        row("  the ES256 check, one at a time: median", f"{check_us:7.2f} us   (least of passes, as the request above)")
        pyjwt_us = time_pyjwt(config, [s.access_token for s in pool], args.repeat)
        row("PyJWT by the book per token (jwt.decode, PyJWKSet)", f"{pyjwt_us:7.2f} us")
        median = percentile(each, 50)
        row(
            "first-seen request / ES256 check alone",
            f"{median / check_us:7.2f}x   (target <= 1.5x; both timed one at a time, least of passes, median)",
        )
        row(
            "PyJWT by the book / TokenVerifier.verify",
            f"{pyjwt_us / verifier_us:7.2f}x   (target >= 1.5x)",
        )

        # -- WSGI ---------------------------------------------------------------------
        wmw = WSGIAuthMiddleware(inner_wsgi, config)
        heading(f"In-process cost, WSGI (WSGIAuthMiddleware): best of {args.repeat} x {args.iterations} requests")
        wcases = {
            "no cookie": [environ_for()],
            "session cookie": [environ_for(cookie)],
            "unrelated cookies only": [environ_for(UNRELATED)],
            "x-stack-auth header": [environ_for(auth=header)],
        }
        row(
            "bare app alone (over an empty function)",
            f"{timer.wsgi(inner_wsgi, [environ_for()], base=_nothing_wsgi):7.2f} us per request",
        )
        for name, label in (
            ("no cookie", "anonymous, no cookie: added"),
            ("unrelated cookies only", "anonymous, unrelated cookies only: added"),
            ("session cookie", "repeated token, session cookie: added"),
            ("x-stack-auth header", "repeated token, x-stack-auth header: added"),
        ):
            extra = "   (target <= 10 us)" if name == "session cookie" else ""
            row(label, f"{timer.wsgi(wmw, wcases[name]):7.2f} us{extra}")
        wadded = timer.first_seen_wsgi(
            lambda: WSGIAuthMiddleware(inner_wsgi, config),
            environ_for(stack.cookie(first)),
            [environ_for(stack.cookie(s)) for s in pool],
        )
        row(f"first-seen token, session cookie: added ({len(pool)} tokens)", f"{wadded:7.2f} us")
        wmw.close()
        timer.close()
        row(
            "key-set fetches / refresh calls, all of the above",
            f"{stack.proxy.jwks_fetches} (one per middleware and per first-seen pass) / {stack.proxy.refreshes}",
        )


if __name__ == "__main__":
    main()
