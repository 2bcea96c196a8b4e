"""What every benchmark script needs: the local service behind a counting proxy, real
sessions, servers in subprocesses, wrk, and a little formatting.

Everything listens on 127.0.0.1 only. Every loop here is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import quote

import httpx
import uvicorn

from authmw import AuthConfig

HOST = "127.0.0.1"
BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PYTHON = sys.executable
PASSWORD = "correct horse battery"
REFRESH_PATHS = ("/auth/sessions/current/refresh", "/auth/oauth/token")
JWKS_SUFFIX = "/.well-known/jwks.json"
#: Longest any server may take to accept connections.
START_TIMEOUT = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((HOST, 0))
    sock.listen(1024)
    return sock


# -- a counting reverse proxy in front of the local service ----------------------------


class CountingProxy:
    """Forwards every request to ``upstream`` and counts them by path.

    The middleware under test talks to the service only through this proxy, so its counts
    are the refresh calls and key-set fetches that reached the service.
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.paths: Counter[str] = Counter()
        #: How long each refresh call took at the service, as seen from the proxy.
        self.refresh_ms: list[float] = []
        self._lock = threading.Lock()
        self._client: httpx.AsyncClient | None = None
        self._sock = _listening_socket()
        self.url = f"http://{HOST}:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name="counting-proxy", daemon=True
        )

    async def _app(self, scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        assert scope["type"] == "http"
        with self._lock:
            self.paths[scope["path"]] += 1
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self._client is None:
            self._client = httpx.AsyncClient(base_url=self.upstream, timeout=30)
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k not in (b"host", b"content-length")
        ]
        url = scope["path"] + (("?" + scope["query_string"].decode()) if scope["query_string"] else "")
        start = time.perf_counter()
        r = await self._client.request(scope["method"], url, headers=headers, content=body)
        if scope["path"].endswith(REFRESH_PATHS):
            with self._lock:
                self.refresh_ms.append((time.perf_counter() - start) * 1e3)
        out = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in r.headers.multi_items()
            if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding")
        ]
        out.append((b"content-length", str(len(r.content)).encode()))
        await send({"type": "http.response.start", "status": r.status_code, "headers": out})
        await send({"type": "http.response.body", "body": r.content})

    def start(self) -> CountingProxy:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the counting proxy did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    def reset(self) -> None:
        with self._lock:
            self.paths.clear()
            self.refresh_ms.clear()

    @property
    def refreshes(self) -> int:
        with self._lock:
            return sum(n for path, n in self.paths.items() if path.endswith(REFRESH_PATHS))

    @property
    def jwks_fetches(self) -> int:
        with self._lock:
            return sum(n for path, n in self.paths.items() if path.endswith(JWKS_SUFFIX))


# -- the local service and sessions ------------------------------------------------------


@dataclass(frozen=True)
class Session:
    user_id: str
    access_token: str
    refresh_token: str


class Stack:
    """A local service in a temporary folder, a counting proxy in front of it, and the
    project's configuration pointing at the proxy."""

    def __init__(self, access_token_ttl: float = 600) -> None:
        from authmw.dev import LocalService

        self._tmp = tempfile.TemporaryDirectory(prefix="authmw-bench-")
        self.data_dir = Path(self._tmp.name)
        self._ttl = access_token_ttl
        self.service = LocalService(self.data_dir, port=0, access_token_ttl=access_token_ttl, quiet=True).start()
        self.proxy = CountingProxy(self.service.url).start()
        self._http = httpx.Client(timeout=30)

    @property
    def config(self) -> AuthConfig:
        return AuthConfig(
            project_id=self.service.project_id,
            api_url=self.proxy.url,
            # API 2.8 tokens carry the service's own URL in their iss, not the proxy's
            public_api_url=self.service.url,
            publishable_client_key=self.service.publishable_client_key,
            secret_server_key=self.service.secret_server_key,
        )

    @property
    def env(self) -> dict[str, str]:
        """Settings for an app in a subprocess (it reads them with AuthConfig.from_env())."""
        config = self.config
        return {
            "AUTHMW_PROJECT_ID": config.project_id,
            "AUTHMW_API_URL": config.api_url,
            "AUTHMW_PUBLIC_API_URL": config.public_api_url or "",
            "AUTHMW_PUBLISHABLE_CLIENT_KEY": config.publishable_client_key or "",
            "AUTHMW_SECRET_SERVER_KEY": config.secret_server_key or "",
        }

    def restart(self, access_token_ttl: float) -> None:
        """The same project (keys, users, refresh tokens) served with another token lifetime."""
        from authmw.dev import LocalService

        self.service.stop()
        self.service = LocalService(self.data_dir, port=0, access_token_ttl=access_token_ttl, quiet=True).start()
        self.proxy.upstream = self.service.url
        self.proxy._client = None  # the next request connects to the new port

    def _headers(self) -> dict[str, str]:
        return {
            "x-stack-project-id": self.service.project_id,
            "x-stack-access-type": "client",
            "x-stack-publishable-client-key": self.service.publishable_client_key,
        }

    def sign_up(self) -> Session:
        email = f"bench-{uuid.uuid4().hex[:12]}@example.com"
        r = self._http.post(
            f"{self.service.url}/api/v1/auth/password/sign-up",
            headers=self._headers(),
            json={"email": email, "password": PASSWORD, "verification_callback_url": "http://localhost/verify"},
        )
        r.raise_for_status()
        body = r.json()
        return Session(body["user_id"], body["access_token"], body["refresh_token"])

    def mint(self, count: int, user_id: str | None = None) -> list[Session]:
        """``count`` new sessions of one user (``POST /auth/sessions`` with the server key):
        a distinct refresh token and a freshly signed access token each, without the
        password hashing of a sign-up. For benchmarks that need first-seen tokens."""
        user_id = user_id or self.sign_up().user_id
        headers = {
            "x-stack-project-id": self.service.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": self.service.secret_server_key,
        }
        sessions = []
        for _ in range(count):
            r = self._http.post(f"{self.service.url}/api/v1/auth/sessions", headers=headers, json={"user_id": user_id})
            r.raise_for_status()
            body = r.json()
            sessions.append(Session(user_id, body["access_token"], body["refresh_token"]))
        if len({s.access_token for s in sessions}) != count:
            raise RuntimeError("the service minted the same access token twice")
        return sessions

    def cookie(self, session: Session, access_token: str | None = None) -> str:
        """The session cookies exactly as the browser store writes them."""
        access = access_token or session.access_token
        pair = json.dumps([session.refresh_token, access], separators=(",", ":"))
        return (
            f"stack-refresh-{self.service.project_id}={quote(session.refresh_token, safe='')}; "
            f"stack-access={quote(pair, safe='')}"
        )

    def close(self) -> None:
        self._http.close()
        self.proxy.stop()
        self.service.stop()
        self._tmp.cleanup()

    def __enter__(self) -> Stack:  # noqa: PYI034 (Python 3.10 has no typing.Self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- servers in subprocesses ---------------------------------------------------------------


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} while starting")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not accept connections within {START_TIMEOUT} s")


def server_command(server: str, app: str, port: int, *, threads: int = 8, workers: int = 1) -> list[str]:
    """``server`` is uvicorn (ASGI, app = factory name) or gunicorn (WSGI, gthread); ``workers``
    processes share the one listening port."""
    if server == "uvicorn":
        return [
            PYTHON,
            "-m",
            "uvicorn",
            f"apps:{app}",
            "--factory",
            "--app-dir",
            str(BENCH),
            "--host",
            HOST,
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            "--no-access-log",
            "--lifespan",
            "on",
        ]
    if server == "gunicorn":
        return [
            PYTHON,
            "-m",
            "gunicorn",
            f"apps:{app}()",
            "--chdir",
            str(BENCH),
            "--bind",
            f"{HOST}:{port}",
            "--workers",
            str(workers),
            "--worker-class",
            "gthread",
            "--threads",
            str(threads),
            "--keep-alive",
            "30",
            "--backlog",
            "2048",
            "--log-level",
            "warning",
        ]
    raise ValueError(server)


@dataclass(frozen=True)
class Server:
    url: str
    pid: int

    def _processes(self) -> Iterator[str]:
        """The /proc entries of every process of the server (the session started below)."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[2]) == self.pid:  # process group
                yield entry

    def cpu_seconds(self) -> float:
        """User + system CPU time of every process of the server (gunicorn: master and worker)."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for entry in self._processes():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])
        return total / tick

    def memory_mib(self) -> float:
        """Resident memory of every process of the server (master and workers)."""
        total_kib = 0
        for entry in self._processes():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            total_kib += sum(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return total_kib / 1024


@contextmanager
def served(
    server: str, app: str, env: dict[str, str] | None = None, *, threads: int = 8, workers: int = 1
) -> Iterator[Server]:
    """Serve ``apps:<app>`` in a subprocess on a free port; stops it after."""
    port = free_port()
    proc = subprocess.Popen(
        server_command(server, app, port, threads=threads, workers=workers),
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        cwd=str(BENCH),  # not the repository root, so PYTHONPATH can point at another authmw
        start_new_session=True,
    )
    try:
        _wait_for_port(port, proc, f"{server} {app}")
        yield Server(f"http://{HOST}:{port}", proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def get(url: str, headers: dict[str, str] | None = None) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.get(url, headers=headers or {})


# -- wrk ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    rps: float
    latency_avg_ms: float
    errors: int  # socket errors and non-2xx/3xx responses

    @property
    def us_per_request(self) -> float:
        return 1e6 / self.rps if self.rps else float("nan")


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else float("nan")


def wrk(
    url: str, *, headers: dict[str, str] | None = None, threads: int, connections: int, duration: float
) -> WrkResult:
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install -y wrk")
    seconds = max(1, round(duration))  # wrk takes whole seconds
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    done = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 60, check=False)
    if done.returncode != 0:  # the command line holds session tokens: not repeated here
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    out = done.stdout
    m = re.search(r"(\d+) requests in ([\d.]+)(ms|s|m)", out)
    if not m:
        raise RuntimeError(f"cannot read wrk's output:\n{out}")
    requests = int(m.group(1))
    seconds = _ms(m.group(2) + m.group(3)) / 1e3
    lat = re.search(r"Latency\s+(\S+)", out)
    errors = 0
    for pattern in (
        r"Non-2xx or 3xx responses: (\d+)",
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
    ):
        e = re.search(pattern, out)
        if e:
            errors += sum(int(g) for g in e.groups())
    return WrkResult(requests, seconds, requests / seconds, _ms(lat.group(1)) if lat else float("nan"), errors)


# -- timing and printing ------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def heading(title: str) -> None:
    print(f"\n== {title}", flush=True)


def row(label: str, value: str) -> None:
    print(f"  {label:<52} {value}", flush=True)


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = []
    for name in (
        "authmw",
        "starlette",
        "uvicorn",
        "h11",
        "httpx",
        "PyJWT",
        "cryptography",
        "Flask",
        "Werkzeug",
        "gunicorn",
    ):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    wrk_version = "missing"
    if shutil.which("wrk"):
        done = subprocess.run(["wrk", "-v"], check=False, capture_output=True, text=True)
        wrk_version = (done.stdout or done.stderr).splitlines()[0] if (done.stdout or done.stderr) else "wrk"
    return {
        "cores": str(os.cpu_count()),
        "cpu": cpu,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "libraries": ", ".join(versions),
        "wrk": wrk_version,
    }


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)
