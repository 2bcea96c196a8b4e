"""`authmw` command line: `authmw dev` runs the local development service."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from ._cli_admin import register as register_admin_commands

#: Files a running `authmw dev` keeps in its data folder (removed when it stops).
PID_FILE = "dev.pid"
URL_FILE = "dev.url"
LOG_FILE = "dev.log"
#: Where the local service shows the e-mails it sent.
MAILBOX_PATH = "/dev/mailbox"
#: Backend versions `authmw dev --api` answers as (authmw/dev/api_version.py, kept in step by a
#: test: importing the local service here would slow down every other command).
API_VERSIONS = ("2.7", "2.8")
DEFAULT_API_VERSION = "2.8"
#: How long `--background` and `--stop` wait for the service to come up or go away.
BACKGROUND_TIMEOUT_SECONDS = 60


def _dev(args: argparse.Namespace) -> int:
    if args.stop:
        return _stop(Path(args.data_dir))
    problem = _dev_problem(args)
    if problem:
        print(f"authmw dev: {problem}", file=sys.stderr)
        return 2
    running = _already_running(args)
    if running:
        print(f"authmw dev: {running}", file=sys.stderr)
        return 2
    if args.background:
        return _start_in_background(args)
    try:
        from authmw.dev import LocalService
    except ImportError as error:  # starlette / uvicorn missing
        print(f"authmw dev needs the 'local' extra: pip install 'authmw[local]' ({error})", file=sys.stderr)
        return 2
    from authmw_local.host_check import is_loopback
    from authmw_local.seed import SeedError, read_internal_keys

    try:
        internal_keys = None if args.internal_keys is None else read_internal_keys(args.internal_keys)
    except SeedError as error:
        print(f"authmw dev: --internal-keys: {error}", file=sys.stderr)
        return 2
    try:
        service = LocalService(
            args.data_dir,
            host=args.host,
            port=args.port,
            access_token_ttl=args.access_token_ttl,
            api=args.api,
            internal_keys=internal_keys,
            mail_api_port=args.mail_api_port,
            project_name=args.name,
            public_url=args.public_url,
            shared_oauth_server=args.shared_oauth_server,
            fixed_passkey_challenge=args.fixed_passkey_challenge,
        )
    except OSError as error:
        print(
            f"authmw dev: cannot listen on {args.host}:{args.port} ({error.strerror or error}): another program may "
            "hold the port; pick another with --port (and point AUTHMW_API_URL at it), or stop that program"
            " (with --mail-api-port: the same for that port).",
            file=sys.stderr,
        )
        return 2
    extra = f"\n  mail API:   {service.mail_api_url} (Inbucket's)" if service.mail_api_url else ""
    if args.shared_oauth_server:
        extra += f"\n  OAuth:      shared providers served by {args.shared_oauth_server}"
    if args.fixed_passkey_challenge:
        extra += "\n  passkeys:   every challenge is the fixed MOCK (--fixed-passkey-challenge: for tests only)"
    if not is_loopback(args.host):
        extra += (
            f"\n  WARNING:    listening on {args.host}, not only this machine: anyone who reaches the port reads"
            " the mailbox (every project's sign-in links and codes); use it on a network you trust, or leave"
            " --host at 127.0.0.1"
        )
    print(
        f"authmw local service on {service.url} (answers as API {service.api})\n"
        f"  project id: {service.project_id}\n  settings:   {service.env_file}\n"
        f"  mailbox:    {service.url}{MAILBOX_PATH} (the e-mails it sends)" + extra,
        file=sys.stderr,
        flush=True,
    )
    for url in args.webhook:
        endpoint = service.add_webhook(url)
        print(f"  webhooks:   {url} (signing secret {endpoint['secret']})", file=sys.stderr, flush=True)
    folder = Path(args.data_dir)
    (folder / URL_FILE).write_text(service.url + "\n")
    (folder / PID_FILE).write_text(f"{os.getpid()}\n")
    signal.signal(signal.SIGTERM, _interrupt)  # `authmw dev --stop`: the same graceful shutdown as Ctrl-C
    try:
        service.run()
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    finally:
        for name in (PID_FILE, URL_FILE):
            with contextlib.suppress(FileNotFoundError):
                (folder / name).unlink()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _running_pid(folder: Path) -> int | None:
    """The pid of the `authmw dev` serving this data folder, if one is alive."""
    try:
        pid = int((folder / PID_FILE).read_text().strip())
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    except PermissionError:  # alive, another user's
        pass
    # A pid file left by a service that was killed outright names whatever process got that
    # pid since: never signal it (or call it the service) unless it is an `authmw dev`.
    return pid if _is_authmw_dev(pid) else None


def _is_authmw_dev(pid: int) -> bool:
    """Whether process `pid` runs `authmw dev` (its command line, where the system shows it)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:  # gone, or no /proc (macOS): ask ps
        try:
            shown = subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return True  # nothing to ask: trust the pid file, as before
        words = shown.stdout.split()
    except OSError:
        return True
    return b"dev" in words and any(word.endswith((b"authmw", b"authmw/__main__.py")) for word in words)


def _already_running(args: argparse.Namespace) -> str | None:
    """What to say when an `authmw dev` already serves this data folder; None if none does."""
    folder = Path(args.data_dir)
    running = _running_pid(folder)
    if running is None:
        return None
    url = (folder / URL_FILE).read_text().strip() if (folder / URL_FILE).is_file() else "its port"
    return (
        f"the local service of {folder} is already running (pid {running}) on {url}, mailbox {url}{MAILBOX_PATH};"
        f" use it as it is, or stop it first: authmw dev --stop --data-dir {args.data_dir}"
    )


def _start_in_background(args: argparse.Namespace) -> int:
    """Start `authmw dev` as a detached process; return once it answers (its output goes to dev.log)."""
    folder = Path(args.data_dir)
    for name in (PID_FILE, URL_FILE):
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()
    command = [
        sys.executable,
        "-m",
        "authmw",
        "dev",
        "--host",
        args.host,
        "--port",
        str(args.port),
        "--data-dir",
        str(folder),
        "--access-token-ttl",
        repr(args.access_token_ttl),
        "--api",
        args.api,
        *(f"--webhook={url}" for url in args.webhook),
    ]
    if args.internal_keys is not None:
        command += ["--internal-keys", str(Path(args.internal_keys).resolve())]
    if args.mail_api_port is not None:
        command += ["--mail-api-port", str(args.mail_api_port)]
    if args.name is not None:
        command += ["--name", args.name]
    if args.public_url is not None:
        command += ["--public-url", args.public_url]
    if args.shared_oauth_server is not None:
        command += ["--shared-oauth-server", args.shared_oauth_server]
    if args.fixed_passkey_challenge:
        command.append("--fixed-passkey-challenge")
    # The first start prints the project's keys, so the log is its owner's only, as project.env.
    log_file = folder / LOG_FILE
    with os.fdopen(os.open(log_file, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600), "ab") as log:
        if log_file.stat().st_mode & 0o077:  # a log of an older version
            log_file.chmod(0o600)
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + BACKGROUND_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if child.poll() is not None:
            tail = (folder / LOG_FILE).read_text(errors="replace").strip().splitlines()[-3:]
            print(f"authmw dev: the service stopped while starting: {' '.join(tail)}", file=sys.stderr)
            return 2
        answering = _answering_url(folder, child.pid)
        if answering:
            print(
                f"authmw local service on {answering} (pid {child.pid}, log {folder / LOG_FILE})\n"
                f"  settings:   {folder / 'project.env'}\n"
                f"  mailbox:    {answering}{MAILBOX_PATH} (the e-mails it sends)\n"
                f"  stop it:    authmw dev --stop --data-dir {args.data_dir}",
                file=sys.stderr,
            )
            return 0
        time.sleep(0.1)
    child.terminate()
    print(
        f"authmw dev: the service did not answer within {BACKGROUND_TIMEOUT_SECONDS} s; see {folder / LOG_FILE}",
        file=sys.stderr,
    )
    return 2


def _answering_url(folder: Path, pid: int) -> str | None:
    """The service's URL once the process `pid` wrote it and answers /health there."""
    try:
        if int((folder / PID_FILE).read_text().strip()) != pid:
            return None
        url = (folder / URL_FILE).read_text().strip()
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return url if response.status == 200 else None
    except (OSError, ValueError):
        return None


def _stop(folder: Path) -> int:
    pid = _running_pid(folder)
    if pid is None:
        print(
            f"authmw dev: no local service is running for {folder} (no live pid in {folder / PID_FILE}).",
            file=sys.stderr,
        )
        return 1
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + BACKGROUND_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        # It removes its pid file as the last step of a graceful stop (a zombie left to a parent
        # that does not reap it would still answer os.kill(pid, 0)).
        if not (folder / PID_FILE).exists() or _running_pid(folder) is None:
            print(f"authmw dev: stopped the local service of {folder} (pid {pid}).", file=sys.stderr)
            return 0
        time.sleep(0.1)
    print(
        f"authmw dev: pid {pid} did not stop within {BACKGROUND_TIMEOUT_SECONDS} s; kill it yourself.", file=sys.stderr
    )
    return 2


def _dev_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options of `authmw dev`, in one line naming the fix; None if nothing."""
    if not 0 <= args.port <= 65535:
        return f"--port {args.port} is not a port: use 1-65535 (or 0 to pick a free one)."
    if args.mail_api_port is not None and not 0 <= args.mail_api_port <= 65535:
        return f"--mail-api-port {args.mail_api_port} is not a port: use 1-65535 (or 0 to pick a free one)."
    if args.mail_api_port is not None and args.mail_api_port == args.port != 0:
        return f"--mail-api-port {args.mail_api_port} is the service's own --port: pick another port."
    if args.name is not None and not args.name.strip():
        return "--name is empty: pass the app's name, e.g. --name \"Bookshop\"."
    if not args.access_token_ttl > 0:
        return f"--access-token-ttl {args.access_token_ttl:g} must be a number of seconds above 0 (default 600)."
    if args.shared_oauth_server is not None:
        parts = urllib.parse.urlsplit(args.shared_oauth_server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return (
                f"--shared-oauth-server {args.shared_oauth_server} is not an http(s) URL: pass the issuer URL"
                " of an OpenID Connect server, e.g. http://localhost:8114"
            )
    for url in args.webhook:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return (
                f"--webhook {url} is not an http(s) URL: pass where your app receives webhooks, "
                "e.g. http://localhost:8000/webhooks/authmw"
            )
    folder = Path(args.data_dir)
    if folder.exists() and not folder.is_dir():
        return f"--data-dir {args.data_dir} is a file, not a folder: pass a folder (it is created when missing)."
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # it will hold keys: its owner's only
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return f"cannot write to --data-dir {args.data_dir} ({reason}): pass a folder you can write to."
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="authmw")
    commands = parser.add_subparsers(dest="command", required=True)
    dev = commands.add_parser("dev", help="run the local development service")
    dev.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    dev.add_argument("--port", type=int, default=8102, help="port (default 8102; 0 picks a free one)")
    dev.add_argument(
        "--public-url",
        default=None,
        help="the address clients reach the service by (default http://<host>:<port>, localhost for 0.0.0.0); "
        "the base of token issuers, so tokens stay valid when the service restarts on another port",
    )
    dev.add_argument("--data-dir", default=".authmw", help="folder of the database and project.env (default .authmw)")
    dev.add_argument(
        "--access-token-ttl", type=float, default=600, help="access-token lifetime in seconds (default 600)"
    )
    dev.add_argument(
        "--webhook",
        action="append",
        default=[],
        metavar="URL",
        help="send the project's webhooks (user, team, membership and permission events) to URL; repeatable",
    )
    dev.add_argument(
        "--api",
        choices=API_VERSIONS,
        default=DEFAULT_API_VERSION,
        help=f"backend version to answer as: 2.8 (2.8.86) or 2.7 (2.7.16) (default {DEFAULT_API_VERSION})",
    )
    dev.add_argument(
        "--internal-keys",
        metavar="FILE",
        help="dotenv file whose STACK_INTERNAL_PROJECT_{CLIENT,SERVER,ADMIN}_KEY become keys of the internal"
        " project (e.g. Stack's apps/e2e/.env.development)",
    )
    dev.add_argument(
        "--mail-api-port",
        type=int,
        metavar="PORT",
        help="also serve the outbox through Inbucket's read API on this port (0 picks a free one)",
    )
    dev.add_argument(
        "--name",
        help="the project's display name, the app's name on the sign-in cards and in the e-mails"
        " (default for a new project: authmw local project)",
    )
    dev.add_argument(
        "--shared-oauth-server",
        metavar="URL",
        help="an OpenID Connect server (its issuer URL) that serves the projects' shared OAuth providers"
        " instead of the built-in mock sign-in page, e.g. Stack's mock OAuth server"
        " (default: the built-in mock)",
    )
    dev.add_argument(
        "--fixed-passkey-challenge",
        action="store_true",
        help="testing only: every passkey challenge is the fixed \"MOCK\" (as Stack's backend with"
        " STACK_ENABLE_HARDCODED_PASSKEY_CHALLENGE_FOR_TESTING), so recorded passkey ceremonies verify;"
        " never for real use (default: random challenges)",
    )
    mode = dev.add_mutually_exclusive_group()
    mode.add_argument(
        "--background",
        action="store_true",
        help="start in the background and return once it answers (output in <data-dir>/dev.log)",
    )
    mode.add_argument("--stop", action="store_true", help="stop the service running for --data-dir")
    dev.set_defaults(run=_dev)
    register_admin_commands(parser, commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.run(args))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`authmw users list | head -1`): nothing more to say to it. Python's
        # final flush of stdout would fail again, so stdout goes to /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
