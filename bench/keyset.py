"""Key-set (JWKS) fetches: one in steady state, and what tokens with unknown key ids cause.

The middlewares run in-process here (their key-set fetches are real HTTP requests to the
local service, through the counting proxy). Target: one fetch over 10,000 authenticated
requests. Then tokens signed by a foreign key under a random key id (``kid``): one such
token causes one refetch; a flood of them does not cause a flood of fetches (at most one
per ``jwks_min_refetch_interval``, 10 s by default). Time is moved forward with the
verifier's ``monotonic`` clock instead of sleeping.

    .venv/bin/python bench/keyset.py [--requests 10000] [--users 20] [--flood 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import jwt
from _common import Stack, heading, row
from cryptography.hazmat.primitives.asymmetric import ec

from authmw._tokens import ACCESS_TOKEN_ISSUER, TokenVerifier
from authmw.middleware import AuthMiddleware, WSGIAuthMiddleware


class Clock:
    """time.monotonic() plus an offset the benchmark moves forward."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


class Recorder:
    """An inner app (ASGI and WSGI) that counts who the middleware said the caller was."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.seen["signed in" if scope["user"].is_authenticated else "anonymous"] += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def wsgi(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        self.seen["signed in" if environ["authmw.user"].is_authenticated else "anonymous"] += 1
        start_response("200 OK", [])
        return [b""]


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message: dict[str, Any]) -> None:
    pass


def scope(cookie: str | None = None, auth: str | None = None) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    if auth:
        headers.append((b"x-stack-auth", auth.encode()))
    return {"type": "http", "scheme": "http", "path": "/", "headers": headers}


def forged(project_id: str, key: ec.EllipticCurvePrivateKey, kid: str | None = None) -> str:
    """A well-formed access token of this project, signed by a key the project does not have."""
    now = int(time.time())
    claims = {
        "sub": "forged-user",
        "branchId": "main",
        "iss": ACCESS_TOKEN_ISSUER,
        "iat": now,
        "aud": project_id,
        "exp": now + 600,
    }
    return jwt.encode(claims, key, algorithm="ES256", headers={"kid": kid or secrets.token_hex(16)})


def header(access_token: str) -> str:
    return json.dumps({"accessToken": access_token, "refreshToken": None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--requests", type=int, default=10_000, help="authenticated requests in steady state (default 10000)"
    )
    parser.add_argument("--users", type=int, default=20, help="distinct users (tokens) they cycle through (default 20)")
    parser.add_argument(
        "--flood", type=int, default=1_000, help="tokens with unknown key ids in a flood (default 1000)"
    )
    args = parser.parse_args()
    foreign = ec.generate_private_key(ec.SECP256R1())

    with Stack() as stack:
        config = stack.config
        project = config.project_id
        proxy = stack.proxy
        sessions = [stack.sign_up() for _ in range(args.users)]
        cookies = [stack.cookie(session) for session in sessions]
        real_kid = json.loads(
            httpx.get(f"{stack.service.url}/api/v1/projects/{project}/.well-known/jwks.json").content
        )["keys"][0]["kid"]
        loop = asyncio.new_event_loop()

        def serve(app: Any, scopes: list[dict[str, Any]], concurrently: bool = False) -> None:
            async def one(s: dict[str, Any]) -> None:
                await app(s, _receive, _send)

            async def all_() -> None:
                if concurrently:
                    await asyncio.gather(*(one(s) for s in scopes))
                else:
                    for s in scopes:
                        await one(s)

            loop.run_until_complete(all_())

        # -- steady state ------------------------------------------------------------------
        heading(f"Key-set fetches in steady state: {args.requests} authenticated requests, {args.users} users")
        # The middleware remembers its decision per Cookie value, so cookies would skip the
        # verifier altogether: the second case sends the tokens in x-stack-auth instead.
        headers = [header(session.access_token) for session in sessions]
        for label, make_verifier, make_scope in (
            ("default middleware (session cookies)", lambda: None, lambda i: scope(cookies[i % len(cookies)])),
            (
                "verifier cache of 1, x-stack-auth: every request checks a signature",
                lambda: TokenVerifier(config, cache_size=1),
                lambda i: scope(auth=headers[i % len(headers)]),
            ),
        ):
            recorder = Recorder()
            mw = AuthMiddleware(recorder, config=config, verifier=make_verifier())
            verifier = mw.core.verifier
            proxy.reset()
            start = time.perf_counter()
            serve(mw, [make_scope(i) for i in range(args.requests)])
            seconds = time.perf_counter() - start
            row(
                f"{label}: JWKS fetches",
                f"{proxy.jwks_fetches}   (target 1){'' if proxy.jwks_fetches == 1 else '  <-- MISSED'}",
            )
            row(
                "   signed in / anonymous; time",
                f"{recorder.seen['signed in']} / {recorder.seen['anonymous']}; {seconds:.2f} s",
            )
            row("   signature checks", str(verifier.signature_checks))
            loop.run_until_complete(mw.aclose())

        # -- unknown key ids, ASGI -------------------------------------------------------
        heading("Tokens with unknown key ids (ASGI): a foreign key, random kid, x-stack-auth header")
        clock = Clock()
        recorder = Recorder()
        verifier = TokenVerifier(config, monotonic=clock)
        mw = AuthMiddleware(recorder, config=config, verifier=verifier)
        proxy.reset()
        serve(mw, [scope(cookies[0])])
        row("first valid request: fetches", str(proxy.jwks_fetches))
        base = proxy.jwks_fetches
        serve(mw, [scope(auth=header(forged(project, foreign, kid=real_kid)))])
        row(
            "foreign key under the project's own kid: fetches",
            f"{proxy.jwks_fetches - base}   (a bad signature, no fetch needed)",
        )
        clock.offset += 11  # past the 10 s minimum between refetches
        base = proxy.jwks_fetches
        serve(mw, [scope(auth=header(forged(project, foreign)))])
        row("one unknown kid (11 s after the last fetch): fetches", f"{proxy.jwks_fetches - base}   (target 1)")
        flood = [scope(auth=header(forged(project, foreign))) for _ in range(args.flood)]
        base = proxy.jwks_fetches
        start = time.perf_counter()
        serve(mw, flood, concurrently=True)
        row(
            f"flood of {args.flood} unknown kids right after, concurrent: fetches",
            f"{proxy.jwks_fetches - base}   ({time.perf_counter() - start:.2f} s)",
        )
        clock.offset += 11
        base = proxy.jwks_fetches
        serve(mw, flood, concurrently=True)
        row(
            f"flood of {args.flood} concurrent, 11 s later: fetches",
            f"{proxy.jwks_fetches - base}   (target 1: shared)",
        )
        base = proxy.jwks_fetches
        step = 0.1

        async def spread() -> None:
            for s in flood:
                clock.offset += step
                await mw(s, _receive, _send)

        loop.run_until_complete(spread())
        simulated = step * len(flood)
        row(
            f"flood of {args.flood} over {simulated:.0f} s (simulated): fetches",
            f"{proxy.jwks_fetches - base}   (at most one per 10 s: {int(simulated // 10) + 1})",
        )
        forged_total = 2 + 3 * len(flood)
        row("forged tokens let in", f"{recorder.seen['signed in'] - 1}   (of {forged_total})")
        recorder.seen.clear()
        serve(mw, [scope(cookies[1])])
        row("a valid token after the floods", "signed in" if recorder.seen["signed in"] == 1 else "NOT signed in")
        loop.run_until_complete(mw.aclose())

        # -- unknown key ids, WSGI with threads --------------------------------------------
        heading(f"Tokens with unknown key ids (WSGI): {args.flood} from 32 threads")
        wclock = Clock()
        wrecorder = Recorder()
        wmw = WSGIAuthMiddleware(wrecorder.wsgi, config, verifier=TokenVerifier(config, monotonic=wclock))
        proxy.reset()
        wmw({"HTTP_COOKIE": cookies[0], "wsgi.url_scheme": "http"}, lambda *a: None)
        wclock.offset += 11
        base = proxy.jwks_fetches
        environs = [
            {"HTTP_X_STACK_AUTH": header(forged(project, foreign)), "wsgi.url_scheme": "http"}
            for _ in range(args.flood)
        ]
        with ThreadPoolExecutor(32) as pool:
            list(pool.map(lambda e: wmw(e, lambda *a: None), environs))
        row("first valid request: fetches", str(base))
        row(f"flood of {args.flood} unknown kids, 11 s after: fetches", f"{proxy.jwks_fetches - base}   (target 1)")
        row("forged tokens let in", f"{wrecorder.seen['signed in'] - 1}   (of {args.flood})")
        wmw.close()
        loop.close()


if __name__ == "__main__":
    main()
