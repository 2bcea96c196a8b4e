"""Instructions per request, counted by valgrind: the figures a loaded machine cannot blur.

Wall and thread time on a shared 2-core machine move by tens of percent with the load; the
number of instructions a piece of code executes does not. This script counts them with
``valgrind --tool=cachegrind`` (``apt-get install -y valgrind``): each part runs in a child
process twice, once over N items and once stopping before them, after the same start-up and
warm-up work; the difference over N is the part's cost per item. Parts:

- ``es256``: the ES256 check alone (``cryptography``, the signature converted to DER
  beforehand), the unit of issue 38's first-seen target;
- ``read``: PyJWT's read of a token (``authmw._jwt.parse``);
- ``verifier``: ``TokenVerifier`` on a token it never saw (expiry read, then verify over
  a key set already in memory);
- ``floor``: the least any middleware must do with a first-seen cookie, written out straight
  (``bench/inprocess.py``'s ``floor_check``: the access token sliced out of the cookie, PyJWT's
  part, the verifier's claim checks, the cache entry); ``floor_without_pyjwt``, the same with
  the token read and its signature checked without PyJWT (a reference: authmw never does so);
- ``first_seen``: a whole ASGI request with a token the middleware never saw (the bare app
  included; ``bare`` is that app alone);
- ``repeated``: a whole ASGI request with the same session cookie again (this and ``bare``
  over 50 times as many items: they need no new token);
- ``pyjwt``: the recipe an app writes with PyJWT alone, on every request.

Tokens are real sessions minted by the local service; the clock is fixed just after they were
issued, the garbage collector is paused (as ``bench/inprocess.py`` times) and
``PYTHONHASHSEED=0`` makes runs repeatable. About 30 s per part on 2 cores.

    .venv/bin/python bench/instructions.py [--tokens 40] [--parts es256,first_seen,...]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

PARTS = ("es256", "read", "verifier", "floor", "floor_without_pyjwt", "bare", "first_seen", "repeated", "pyjwt")
#: Items every child runs before the counted ones, in both modes (code paths, caches, imports).
WARM = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=40, help="counted items per part (default 40)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument("--child", nargs=3, metavar=("PART", "MODE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        part, mode, data = args.child
        child(part, mode == "run", json.loads(Path(data).read_text()), args.tokens)
        return
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind: apt-get install -y valgrind")

    from _common import Stack, heading, row

    with Stack() as stack, tempfile.TemporaryDirectory(prefix="authmw-ir-") as tmp:
        import httpx

        config = stack.config
        first = stack.sign_up()
        pool = stack.mint(WARM + args.tokens, first.user_id)
        data = {
            "tokens": [s.access_token for s in pool],
            "cookies": [stack.cookie(s) for s in pool],
            "config": {
                "project_id": config.project_id,
                "api_url": config.api_url,
                "public_api_url": config.public_api_url,
                "publishable_client_key": config.publishable_client_key,
                "secret_server_key": config.secret_server_key,
            },
            "jwks": httpx.get(config.jwks_url, timeout=10).text,
        }
        path = Path(tmp) / "data.json"
        path.write_text(json.dumps(data))
        counts = {part: per_item(part, path, args.tokens) for part in parts}

    heading(
        f"Instructions per item (valgrind cachegrind; {args.tokens} items per part, {args.tokens * REPEATED_FACTOR} "
        f"for bare and repeated; after {WARM} warm-up items)"
    )
    labels = {
        "es256": "the ES256 check alone (cryptography, DER ready)",
        "read": "PyJWT's read of a token (authmw._jwt.parse)",
        "verifier": "TokenVerifier: expiry read + verify, new token",
        "floor": "the floor: cookie sliced, PyJWT's part, claims kept",
        "floor_without_pyjwt": "  the floor without PyJWT (a reference)",
        "bare": "the bare ASGI app alone",
        "first_seen": "first-seen token: whole ASGI request",
        "repeated": "repeated token: whole ASGI request",
        "pyjwt": "PyJWT by the book (jwt.decode, PyJWKSet)",
    }
    check = counts.get("es256")
    for part, count in counts.items():
        ratio = f"   {count / check:5.2f}x the check" if check and part != "es256" else ""
        row(labels[part], f"{count / 1000:9.1f} k{ratio}")
    if check and "first_seen" in counts:
        heading("Issue 38's first-seen target, by instructions")
        row("first-seen request / ES256 check (target <= 1.5x)", f"{counts['first_seen'] / check:5.2f}x")
    if "pyjwt" in counts and "verifier" in counts:
        row("PyJWT by the book / verifier (target >= 1.5x)", f"{counts['pyjwt'] / counts['verifier']:5.2f}x")


#: Parts whose items need no new token (the same request again): counted over this many times
#: more items, which makes their small per-item figure steady (over 40 items it moves by a few k).
REPEATED_FACTOR = 50


def per_item(part: str, data: Path, n: int) -> float:
    """Instructions per item of ``part``: (a run over ``n`` items) - (the same run without them)."""
    if part in ("bare", "repeated"):
        n *= REPEATED_FACTOR
    return (instructions(part, "run", data, n) - instructions(part, "skip", data, n)) / n


def instructions(part: str, mode: str, data: Path, n: int) -> int:
    out = Path(data).parent / f"cachegrind.{part}.{mode}"
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={out}",
        sys.executable,
        __file__,
        "--tokens",
        str(n),
        "--child",
        part,
        mode,
        str(data),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind run of {part} ({mode}) failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def child(part: str, counted: bool, data: dict[str, Any], n: int) -> None:
    """One measured process: set ``part`` up, warm it, then (``counted``) run its ``n`` items."""
    import jwt
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    from authmw import AuthConfig, _jwt
    from authmw._ops import SyncDriver
    from authmw._tokens import TokenVerifier, parse_jwks

    tokens: list[str] = data["tokens"][: WARM + n]
    config = AuthConfig(**data["config"])
    now = float(_jwt.parse(tokens[0]).payload["iat"]) + 1.0

    def clock() -> float:
        return now

    def verifier() -> TokenVerifier:
        made = TokenVerifier(config, clock=clock)
        made._keys = parse_jwks(data["jwks"].encode())  # the key set in memory: no I/O counted
        made._fetched_at = made._monotonic()
        return made

    items: list[Any]
    run: Callable[[list[Any]], None]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from inprocess import der_checks, floor_check, inner, receive, scope_headers, send

    if part == "es256":
        key = next(iter(parse_jwks(data["jwks"].encode()).values())).key
        algorithm = ec.ECDSA(hashes.SHA256())
        items = der_checks(tokens)

        def run(items: list[Any]) -> None:
            for der, signed in items:
                key.verify(der, signed, algorithm)

    elif part == "read":
        items = tokens

        def run(items: list[Any]) -> None:
            for token in items:
                _jwt.parse(token)

    elif part == "verifier":
        items, checker, driver = tokens, verifier(), SyncDriver()

        def run(items: list[Any]) -> None:
            for token in items:
                checker.expiry(token)
                driver.run(checker.verify(token))

    elif part in ("floor", "floor_without_pyjwt"):
        items = [scope_headers(cookie) for cookie in data["cookies"][: WARM + n]]
        key = next(iter(parse_jwks(data["jwks"].encode()).values()))
        floor = floor_check(verifier(), key, config.project_id, pyjwt=part == "floor")

        def run(items: list[Any]) -> None:
            for headers in items:
                floor(headers)

    elif part == "pyjwt":
        items = tokens
        keys = jwt.PyJWKSet.from_json(data["jwks"])
        claims = jwt.decode(tokens[0], options={"verify_signature": False})

        def run(items: list[Any]) -> None:
            for token in items:
                jwt.decode(
                    token,
                    keys[jwt.get_unverified_header(token)["kid"]],
                    algorithms=["ES256"],
                    audience=claims["aud"],
                    issuer=claims["iss"],
                    leeway=30,
                    options={"require": ["exp", "sub"], "verify_exp": False, "verify_iat": False},
                )

    else:  # an ASGI request: bare, first_seen, repeated
        from authmw.middleware import AuthMiddleware

        app: Any = inner if part == "bare" else AuthMiddleware(inner, config=config, verifier=verifier(), clock=clock)
        for thread in threading.enumerate():  # the start-up health call: finished in both modes
            if thread is not threading.main_thread():
                thread.join()
        if part == "first_seen":
            items = [scope_headers(cookie) for cookie in data["cookies"][: WARM + n]]
        else:  # the same request again (n is REPEATED_FACTOR times the tokens)
            items = [scope_headers(data["cookies"][0])] * (WARM + n)
        loop = asyncio.new_event_loop()

        async def requests(items: list[Any]) -> None:
            for headers in items:
                scope = {"type": "http", "method": "GET", "scheme": "http", "path": "/", "headers": headers}
                await app(scope, receive, send)

        def run(items: list[Any]) -> None:
            loop.run_until_complete(requests(items))

    gc.disable()
    run(items[:WARM])
    if counted:
        run(items[WARM:])


if __name__ == "__main__":
    main()
