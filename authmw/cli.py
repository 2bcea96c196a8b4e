"""`authmw` command line: `authmw dev` runs the local development service."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ._cli_admin import register as register_admin_commands


def _dev(args: argparse.Namespace) -> int:
    problem = _dev_problem(args)
    if problem:
        print(f"authmw dev: {problem}", file=sys.stderr)
        return 2
    try:
        from authmw.dev import LocalService
    except ImportError as error:  # starlette / uvicorn missing
        print(f"authmw dev needs the 'local' extra: pip install 'authmw[local]' ({error})", file=sys.stderr)
        return 2
    try:
        service = LocalService(args.data_dir, host=args.host, port=args.port, access_token_ttl=args.access_token_ttl)
    except OSError as error:
        print(
            f"authmw dev: cannot listen on {args.host}:{args.port} ({error.strerror or error}): another program may "
            "hold the port; pick another with --port (and point AUTHMW_API_URL at it), or stop that program.",
            file=sys.stderr,
        )
        return 2
    print(
        f"authmw local service on {service.url}\n  project id: {service.project_id}\n  settings:   {service.env_file}",
        file=sys.stderr,
        flush=True,
    )
    try:
        service.run()
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    return 0


def _dev_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options of `authmw dev`, in one line naming the fix; None if nothing."""
    if not 0 <= args.port <= 65535:
        return f"--port {args.port} is not a port: use 1-65535 (or 0 to pick a free one)."
    if not args.access_token_ttl > 0:
        return f"--access-token-ttl {args.access_token_ttl:g} must be a number of seconds above 0 (default 600)."
    folder = Path(args.data_dir)
    if folder.exists() and not folder.is_dir():
        return f"--data-dir {args.data_dir} is a file, not a folder: pass a folder (it is created when missing)."
    try:
        folder.mkdir(parents=True, exist_ok=True)
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
    dev.add_argument("--data-dir", default=".authmw", help="folder of the database and project.env (default .authmw)")
    dev.add_argument(
        "--access-token-ttl", type=float, default=600, help="access-token lifetime in seconds (default 600)"
    )
    dev.set_defaults(run=_dev)
    register_admin_commands(parser, commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
