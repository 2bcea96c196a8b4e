"""Cost as the work grows: many distinct users, a larger key set, and the memory of the caches.

1. **Distinct users cycling.** N users (10, 10,000, 100,000 and, with ``--big``, 1,000,000),
   each with its own access token (signed with the local service's project key, the same
   claims as the service's), request in turn through the ASGI middleware, twice over: the
   first round is all first-seen tokens, the second shows what the caches keep. µs added per
   request (this thread's CPU time, the making of each cookie excluded).
2. **Memory held by the caches** once every one is full (each is a bounded map, see
   ``authmw/middleware/_core.py``), measured with tracemalloc.
3. **A key set of 1 and of 20 keys**: ``TokenVerifier.verify`` of first-seen tokens.

    .venv/bin/python bench/scaling.py [--big]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import secrets
import time
import tracemalloc
import uuid
from typing import Any
from urllib.parse import quote

import jwt
from _common import Stack, heading, machine, row
from cryptography.hazmat.primitives.asymmetric import ec

from authmw._ops import SyncDriver
from authmw._tokens import TokenVerifier, parse_jwks
from authmw.middleware import AuthMiddleware, _core as core_module


async def _inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message: dict[str, Any]) -> None:
    pass


class Minter:
    """Access tokens for made-up users of the project, signed with its key."""

    def __init__(self, stack: Stack, template: str) -> None:
        self.key = stack.service.app.state.service.keys.for_project(stack.service.project_id)
        self.claims = jwt.decode(template, options={"verify_signature": False})
        self.project_id = stack.service.project_id

    def access_token(self, n: int) -> str:
        return str(self.key.sign({**self.claims, "sub": str(uuid.UUID(int=n)), "exp": int(time.time()) + 600}))

    def cookie(self, n: int) -> str:
        access = self.access_token(n)
        refresh = f"bench-refresh-{n:045d}"[-45:]
        pair = json.dumps([refresh, access], separators=(",", ":"))
        return f"stack-refresh-{self.project_id}={quote(refresh, safe='')}; stack-access={quote(pair, safe='')}"


def bare_cost(loop: asyncio.AbstractEventLoop, n: int = 20_000) -> float:
    """Seconds per call of the bare app run the same way (subtracted from every figure)."""
    scope = {"type": "http", "scheme": "http", "method": "GET", "path": "/", "headers": []}
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        for _ in range(n):
            loop.run_until_complete(_inner(scope, _receive, _send))
        best = min(best, time.thread_time() - start)
    return best / n


def cycle(
    mw: AuthMiddleware, minter: Minter, users: int, loop: asyncio.AbstractEventLoop, bare: float
) -> tuple[float, float]:
    """µs added per request in the first round (first-seen) and the second (what the caches keep)."""
    warm = {
        "type": "http",
        "scheme": "http",
        "method": "GET",
        "path": "/",
        "headers": [(b"cookie", minter.cookie(10**9).encode())],
    }
    loop.run_until_complete(mw(warm, _receive, _send))  # the key set fetched, outside the figures
    cookies: dict[int, str] = {}
    spent = [0.0, 0.0]
    for round_ in (0, 1):
        for n in range(users):
            cookie = cookies.get(n) if users <= 100_000 else None
            if cookie is None:
                cookie = minter.cookie(n)
                if users <= 100_000:
                    cookies[n] = cookie
            scope = {
                "type": "http",
                "scheme": "http",
                "method": "GET",
                "path": "/",
                "headers": [(b"cookie", cookie.encode())],
            }
            start = time.thread_time()
            loop.run_until_complete(mw(scope, _receive, _send))
            spent[round_] += time.thread_time() - start
    return (spent[0] / users - bare) * 1e6, (spent[1] / users - bare) * 1e6


def cache_sizes(mw: AuthMiddleware) -> str:
    core = mw.core
    return (
        f"decided {len(core._decided)}, cookie reads {len(core.credentials.cookie_memo)}, "
        f"verified {len(core.verifier._verified)}, fresh {len(core._fresh)}, refused {len(core._refused)}"
    )


def full_cache_memory(stack: Stack, minter: Minter, loop: asyncio.AbstractEventLoop) -> tuple[float, str]:
    """MiB held by a middleware whose caches are all full (more users than the largest bound)."""
    mw = AuthMiddleware(_inner, config=stack.config)
    scope = {"type": "http", "scheme": "http", "method": "GET", "path": "/", "headers": []}
    loop.run_until_complete(mw(scope, _receive, _send))  # start-up work done before measuring
    users = core_module.MEMO_SIZE + 10_000  # past every bound (verified tokens: 10,000)
    cookies = [minter.cookie(n) for n in range(users)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for cookie in cookies:
        loop.run_until_complete(mw({**scope, "headers": [(b"cookie", cookie.encode())]}, _receive, _send))
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / 2**20, cache_sizes(mw)


def key_set_cost(stack: Stack, minter: Minter, extra_keys: int, tokens: list[str]) -> float:
    """µs of TokenVerifier.verify per first-seen token with the project key among `extra_keys` others."""
    verifier = TokenVerifier(stack.config)
    driver = SyncDriver()
    driver.run(verifier.verify(tokens[0]))  # fetches the real key set
    if extra_keys:
        jwks = {"keys": [minter.key.jwk()]}
        for _ in range(extra_keys):
            other = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
            jwks["keys"].append(
                {
                    "kty": "EC",
                    "alg": "ES256",
                    "crv": "P-256",
                    "kid": secrets.token_hex(6),
                    "x": jwt.utils.base64url_encode(other.x.to_bytes(32, "big")).decode(),
                    "y": jwt.utils.base64url_encode(other.y.to_bytes(32, "big")).decode(),
                }
            )
        verifier._keys = parse_jwks(json.dumps(jwks).encode())
    best = float("inf")
    for _ in range(5):
        verifier._verified.clear()
        start = time.thread_time()
        for token in tokens[1:]:
            driver.run(verifier.verify(token))
        best = min(best, time.thread_time() - start)
    return best / (len(tokens) - 1) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", action="store_true", help="also 1,000,000 users (several minutes)")
    args = parser.parse_args()
    print(" ".join(f"{k}={v}" for k, v in machine().items()))
    loop = asyncio.new_event_loop()
    with Stack() as stack:
        minter = Minter(stack, stack.sign_up().access_token)
        counts = [10, 10_000, 100_000] + ([1_000_000] if args.big else [])
        heading("Distinct users cycling through one ASGI middleware, two rounds (µs added per request)")
        bare = bare_cost(loop)
        for users in counts:
            mw = AuthMiddleware(_inner, config=stack.config)
            first, second = cycle(mw, minter, users, loop, bare)
            row(f"{users:>9,} users: first round / second round", f"{first:7.2f} / {second:7.2f} us")
            row("            caches after it", cache_sizes(mw))
        heading("Memory held once every cache is full")
        mib, sizes = full_cache_memory(stack, minter, loop)
        row("traced memory held by the middleware", f"{mib:6.1f} MiB  ({sizes})")
        heading("Key set size: TokenVerifier.verify of first-seen tokens")
        tokens = [minter.access_token(n) for n in range(257)]
        for extra in (0, 19):
            row(f"{extra + 1:>2} key(s) in the set", f"{key_set_cost(stack, minter, extra, tokens):7.2f} us per token")
        row(
            "key-set fetches / refresh calls, all of the above", f"{stack.proxy.jwks_fetches} / {stack.proxy.refreshes}"
        )


if __name__ == "__main__":
    main()
