"""Running the local service: in a background thread (`LocalService`) or in the foreground."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import uvicorn
from starlette.types import ASGIApp

from .api_version import DEFAULT_API, api_version
from .app import create_app
from .bootstrap import ENV_FILE_NAME, Bootstrap, env_values
from .host_check import HostCheck, is_loopback
from .inbucket import create_mail_api
from .seed import InternalKeys
from .webhooks import ensure_endpoint

DEFAULT_HOST = "127.0.0.1"
STARTUP_TIMEOUT_SECONDS = 20.0


def print_bootstrap(bootstrap: Bootstrap, out: TextIO | None = None) -> None:
    """The one place the keys are ever printed: the first start of a data folder."""
    out = out or sys.stderr
    keys = bootstrap.project
    print(
        "authmw local service: created a new project and its keys (kept in the data folder)\n"
        f"  project id:              {keys.project_id}\n"
        f"  publishable client key:  {keys.publishable_client_key}\n"
        f"  secret server key:       {keys.secret_server_key}\n"
        f"  super secret admin key:  {keys.super_secret_admin_key}",
        file=out,
        flush=True,
    )


class LocalService:
    """The local development service, served by uvicorn on a real socket.

        with LocalService(tmp_path) as service:      # or LocalService(...).start()
            httpx.get(service.url + "/health")

    `port=0` picks a free port; `.url` tells the real one. `clock` is the time requests see
    (`authmw_local.Clock` lets a test stop or move it). `api` is the backend version it answers
    as: "2.8" (2.8.86) or "2.7" (2.7.16); `.api` tells it. `internal_keys` (`authmw_local.seed`)
    add given keys to the `internal` project; `mail_api_port` (0: a free one) also serves the
    outbox through Inbucket's read API (inbucket.py) on that port, at `.mail_api_url`.
    `public_url` is the address clients reach it by, when not `http://<host>:<port>` (e.g.
    `http://localhost:<port>`): `.url`, `project.env`, token issuers and links in e-mails use it.
    `shared_oauth_server` is an OpenID Connect server that serves the `shared` OAuth providers
    instead of the built-in mock (e.g. Stack's mock OAuth server; outside_oauth.py).
    `project_name` is the local project's display name (the app's name on the cards and in the
    e-mails), set on every start; without it, a new project is named "authmw local project".
    `fixed_passkey_challenge=True` is for replaying recorded passkey ceremonies only (Stack's
    suite): every passkey challenge is then the fixed "MOCK" instead of random bytes.
    """

    def __init__(
        self,
        data_dir: str | Path,
        host: str = DEFAULT_HOST,
        port: int = 0,
        access_token_ttl: float = 600,
        *,
        quiet: bool = False,
        clock: Callable[[], float] = time.time,
        api: str = DEFAULT_API,
        internal_keys: InternalKeys | None = None,
        mail_api_port: int | None = None,
        public_url: str | None = None,
        shared_oauth_server: str | None = None,
        project_name: str | None = None,
        fixed_passkey_challenge: bool = False,
    ) -> None:
        self.api = api_version(api).name  # a clear error for an unknown version, before binding
        self.data_dir = Path(data_dir)
        self.host = host
        self.access_token_ttl = access_token_ttl
        self._sock = _bind(host, port)
        self.port: int = self._sock.getsockname()[1]
        url_host = f"[{host}]" if ":" in host else host
        if host in ("0.0.0.0", "::", ""):  # every address: clients on this machine use localhost
            url_host = "localhost"
        self.url = public_url.rstrip("/") if public_url else f"http://{url_host}:{self.port}"
        try:
            self.app = create_app(
                self.data_dir,
                access_token_ttl,
                api_url=self.url,
                on_first_start=None if quiet else print_bootstrap,
                clock=clock,
                api=self.api,
                internal_keys=internal_keys,
                shared_oauth_server=shared_oauth_server,
                project_name=project_name,
                fixed_passkey_challenge=fixed_passkey_challenge,
            )
        except BaseException:
            self._sock.close()
            raise
        self.bootstrap: Bootstrap = self.app.state.bootstrap
        # On loopback, names other than local ones are a DNS-rebinding page's (host_check.py).
        guard: Callable[[ASGIApp], ASGIApp] = (
            (lambda app: HostCheck(app, self.url)) if is_loopback(host) else (lambda app: app)
        )
        self._server = _server(guard(self.app))
        self._thread: threading.Thread | None = None
        self._mail_api: _Served | None = None
        self.mail_api_url: str | None = None
        if mail_api_port is not None:
            try:
                mail_sock = _bind(host, mail_api_port)
            except BaseException:
                self._close()
                raise
            self._mail_api = _Served(_server(guard(create_mail_api(self.app.state.service))), mail_sock, "authmw-dev-mail")
            self.mail_api_url = f"http://{url_host}:{mail_sock.getsockname()[1]}"

    @property
    def project_id(self) -> str:
        return self.bootstrap.project.project_id

    @property
    def publishable_client_key(self) -> str:
        return self.bootstrap.project.publishable_client_key

    @property
    def secret_server_key(self) -> str:
        return self.bootstrap.project.secret_server_key

    @property
    def super_secret_admin_key(self) -> str:
        return self.bootstrap.project.super_secret_admin_key

    @property
    def config(self) -> dict[str, str]:
        """The AUTHMW_* settings, as written to `<data_dir>/project.env`."""
        return env_values(self.url, self.bootstrap.project)

    def add_webhook(self, url: str, secret: str | None = None) -> dict[str, Any]:
        """Send the default project's webhooks to `url` (authmw/dev/webhooks.py); returns the
        endpoint `{"id", "url", "secret", ...}` (the same one when `url` already has one)."""
        return ensure_endpoint(self.app.state.service.db, self.project_id, url, secret)

    @property
    def env_file(self) -> Path:
        return self.data_dir / ENV_FILE_NAME

    def start(self) -> LocalService:
        """Serve in a daemon thread; returns once connections are accepted."""
        if self._thread is not None:
            raise RuntimeError("LocalService.start() was already called")
        self._thread = _serve_in_thread(self._server, self._sock, "authmw-dev")
        if self._mail_api is not None:
            self._mail_api.start()
        return self

    def run(self) -> None:
        """Serve in the current thread until interrupted (Ctrl-C)."""
        try:
            if self._mail_api is not None:
                self._mail_api.start()
            self._server.run(sockets=[self._sock])
        finally:
            self._close()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._thread = None
        self._close()

    def _close(self) -> None:
        if self._mail_api is not None:
            self._mail_api.stop()
        self._sock.close()
        self.app.state.webhook_sender.stop()
        self.app.state.service.db.close()

    def __enter__(self) -> LocalService:
        return self if self._thread is not None else self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _server(app: ASGIApp) -> uvicorn.Server:
    # server_header=False: Stack's backend sends no `server` header, and clients that compare
    # whole responses (Stack's own e2e suite) see none either.
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False, server_header=False)
    return uvicorn.Server(config)


def _serve_in_thread(server: uvicorn.Server, sock: socket.socket, name: str) -> threading.Thread:
    """Run `server` on `sock` in a daemon thread; return once it accepts connections."""
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the local service stopped while starting; see the log above")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the local service did not start within {STARTUP_TIMEOUT_SECONDS} s")
        time.sleep(0.01)
    return thread


class _Served:
    """A second server of the same process (the mail API), started and stopped with the service."""

    def __init__(self, server: uvicorn.Server, sock: socket.socket, name: str) -> None:
        self.server = server
        self.sock = sock
        self.name = name
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.thread is None:
            self.thread = _serve_in_thread(self.server, self.sock, self.name)

    def stop(self) -> None:
        if self.thread is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)
            self.thread = None
        self.sock.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it small responses wait ~40 ms for delayed ACKs.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
