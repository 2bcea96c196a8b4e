#!/usr/bin/env python3
"""A fault-injection HTTP server for transport tests (Python now, TypeScript later).

    python tests/faultserver.py --port 8765      # prints its URL, serves until killed

    with FaultServer() as server:                # in-process, on a free port
        api_url = f"{server.url}/drop:2/run-1"

Point a client's API URL at ``{url}/{scenario}/{run}``: every request under that prefix
(``.../api/v1/...``) is answered as the scenario says. ``run`` is any word; each
(scenario, run) pair counts its requests separately, so tests do not disturb each other.
Instead of the path, the header ``x-fault-scenario: <scenario>`` may choose the scenario
(the run is then ``x-fault-run`` or ``default``).

Scenarios (N = how many requests misbehave before the server answers normally):

    ok                      200 echo: {"ok": true, "method", "path", "attempt"}
    drop:N                  close the connection without an answer
    down                    drop everything, /health included
    429:N[:S]               429 with Retry-After: S seconds (default 0)
    429date:N[:S]           429 with Retry-After as an HTTP date S seconds ahead
    429bare:N               429 without Retry-After
    508:N                   508 whose body contains INFINITE_LOOP_DETECTED
    508plain:N              508 without the marker
    status:CODE[:N]         plain-text error CODE (N defaults to every request)
    known:CODE:STATUS       a known error; honours x-stack-override-error-status
    mismatch                x-stack-known-error disagrees with the body's code
    malformed               x-stack-known-error with a body that is not JSON
    badjson                 200 whose body is not JSON
    leaky:STATUS            STATUS whose body is not JSON and quotes a session's tokens
                            (LEAKED_ACCESS_TOKEN, LEAKED_REFRESH_TOKEN), as a broken proxy may
    slow:MS                 answer normally after MS milliseconds
    expired:N               the first N requests carrying x-stack-access-token get
                            ACCESS_TOKEN_EXPIRED; the refresh endpoints
                            (/auth/sessions/current/refresh, /auth/oauth/token) answer
                            {"access_token": <unsigned JWT valid 10 minutes>}

``{prefix}/health`` answers 200 {"status": "ok"} (except in ``down``). CORS preflights
are answered at once and not counted, so browser tests work too. Requests are
recorded: ``GET /__log/{scenario}/{run}`` returns them as JSON (method, path, headers).
"""

from __future__ import annotations

import argparse
import base64
import email.utils
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOP_MARKER = "INFINITE_LOOP_DETECTED"
LEAKED_REFRESH_TOKEN = "q8Zr2VbN4xK7mT1pW9sD3fH6jL0cY5gA"


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[tuple[str, str], int] = {}
        self.log: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def record(self, key: tuple[str, str], entry: dict[str, Any]) -> int:
        """Log a request and return its 0-based number within (scenario, run)."""
        with self.lock:
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
            self.log.setdefault(key, []).append(entry)
            return n


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = do_GET

    # -- answers ----------------------------------------------------------------------------

    def _send(self, status: int, body: bytes | str | Any = b"", headers: dict[str, str] | None = None) -> None:
        if isinstance(body, str):
            body, ctype = body.encode(), "text/plain; charset=utf-8"
        elif isinstance(body, bytes):
            ctype = "text/plain; charset=utf-8"
        else:
            body, ctype = json.dumps(body).encode(), "application/json; charset=utf-8"
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.send_header("access-control-allow-origin", "*")
        self.send_header("access-control-allow-headers", "*")
        self.send_header("access-control-allow-methods", "*")
        self.send_header(
            "access-control-expose-headers", "content-type, x-stack-actual-status, x-stack-known-error, retry-after"
        )
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """An error answer, turned into 200 + x-stack-actual-status when the client asks."""
        headers = dict(headers or {})
        if "x-stack-override-error-status" in self.headers:
            headers["x-stack-actual-status"] = str(status)
            status = 200
        self._send(status, body, headers)

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- routing ----------------------------------------------------------------------------

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.command == "OPTIONS" and "access-control-request-method" in self.headers:
            return self._send(204)  # a browser's CORS preflight: answered, not counted
        path = self.path.split("?", 1)[0]
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["__log"] and len(parts) == 3:
            with self.server.state.lock:
                entries = list(self.server.state.log.get((parts[1], parts[2]), []))
            return self._send(200, entries)
        if "x-fault-scenario" in self.headers:
            scenario, run, rest = self.headers["x-fault-scenario"], self.headers.get("x-fault-run", "default"), parts
        elif len(parts) >= 2:
            scenario, run, rest = parts[0], parts[1], parts[2:]
        else:
            return self._send(404, "Use /{scenario}/{run}/api/v1/... (see tests/faultserver.py).")
        kind, *args = scenario.split(":")
        if rest == ["health"]:
            return self._drop() if kind == "down" else self._send(200, {"status": "ok"})
        entry = {
            "method": self.command,
            "path": "/" + "/".join(rest),
            "headers": dict(self.headers.items()),
            "body": body.decode("utf-8", "replace"),
        }
        n = self.server.state.record((scenario, run), entry)
        try:
            self._answer(kind, args, n, entry, (scenario, run))
        except (ValueError, IndexError):
            self._send(400, f"Bad scenario {scenario!r} (see tests/faultserver.py).")

    def _answer(self, kind: str, args: list[str], n: int, entry: dict[str, Any], key: tuple[str, str]) -> None:
        def first(count_arg: int = 0, default: int | None = None) -> bool:
            """True while this request is among the first N that misbehave."""
            limit = int(args[count_arg]) if len(args) > count_arg else default
            return limit is None or n < limit

        ok = {"ok": True, "method": entry["method"], "path": entry["path"], "attempt": n + 1}
        if kind == "ok":
            return self._send(200, ok)
        if kind == "down" or (kind == "drop" and first()):
            return self._drop()
        if kind in ("429", "429date", "429bare") and first():
            seconds = float(args[1]) if len(args) > 1 else 0.0
            headers = {}
            if kind == "429":
                headers["retry-after"] = f"{seconds:g}"
            elif kind == "429date":
                headers["retry-after"] = email.utils.formatdate(time.time() + seconds, usegmt=True)
            return self._error(429, "Too many requests", headers)
        if kind == "508" and first():
            return self._error(508, f"Loop detected: {LOOP_MARKER}")
        if kind == "508plain" and first():
            return self._error(508, "Loop detected")
        if kind == "status" and first(1):
            return self._error(int(args[0]), f"Injected {args[0]}")
        if kind == "known":
            code, status = args[0], int(args[1])
            return self._error(status, {"code": code, "error": f"Injected {code}"}, {"x-stack-known-error": code})
        if kind == "mismatch":
            body = {"code": "USER_NOT_FOUND", "error": "User not found."}
            return self._error(404, body, {"x-stack-known-error": "TEAM_NOT_FOUND"})
        if kind == "malformed":
            return self._error(400, "this is not JSON", {"x-stack-known-error": "USER_NOT_FOUND"})
        if kind == "badjson":
            return self._send(200, "<html>not json</html>")
        if kind == "leaky":
            body = f"<pre>access_token={LEAKED_ACCESS_TOKEN}&refresh_token={LEAKED_REFRESH_TOKEN}</pre>"
            return self._send(int(args[0]), body) if args[0] == "200" else self._error(int(args[0]), body)
        if kind == "expired":
            if entry["path"].endswith(("/auth/sessions/current/refresh", "/auth/oauth/token")):
                return self._send(200, {"access_token": _unsigned_jwt(600)})
            if "x-stack-access-token" in self.headers:
                with self.server.state.lock:
                    token_key = (key[0] + "#with-token", key[1])
                    seen = self.server.state.counts.get(token_key, 0)
                    self.server.state.counts[token_key] = seen + 1
                if seen < int(args[0]):
                    body = {"code": "ACCESS_TOKEN_EXPIRED", "error": "Access token has expired."}
                    return self._error(401, body, {"x-stack-known-error": "ACCESS_TOKEN_EXPIRED"})
            return self._send(200, ok)
        if kind == "slow":
            time.sleep(int(args[0]) / 1000)
            return self._send(200, ok)
        if kind in ("drop", "429", "429date", "429bare", "508", "508plain", "status"):
            return self._send(200, ok)  # past the misbehaving requests
        raise ValueError(kind)


LEAKED_ACCESS_TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJsZWFrZWQifQ.c2lnbmF0dXJlLW9mLWEtdG9rZW4"


def _unsigned_jwt(seconds: int) -> str:
    def part(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    now = int(time.time())
    payload = {"sub": "fault-user", "iat": now, "exp": now + seconds, "nonce": time.perf_counter_ns()}
    return f"{part({'alg': 'ES256', 'kid': 'fault'})}.{part(payload)}.c2lnbmF0dXJl"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    state: _State


class FaultServer:
    """The fault server on a real socket, served from a daemon thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _Server((host, port), _Handler)
        self._server.state = _State()
        self.host, self.port = self._server.server_address[:2]
        self.url = f"http://{self.host}:{self.port}"
        self._thread: threading.Thread | None = None

    def api_url(self, scenario: str, run: str = "default") -> str:
        return f"{self.url}/{scenario}/{run}"

    def log(self, scenario: str, run: str = "default") -> list[dict[str, Any]]:
        with self._server.state.lock:
            return list(self._server.state.log.get((scenario, run), []))

    def start(self) -> FaultServer:
        self._thread = threading.Thread(target=self._server.serve_forever, name="faultserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fault-injection HTTP server for transport tests.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    server = FaultServer(args.host, args.port)
    print(server.url, flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
