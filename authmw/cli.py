"""`authmw` command line: `authmw dev` runs the local development service."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._cli_admin import register as register_admin_commands


def _dev(args: argparse.Namespace) -> int:
    try:
        from authmw.dev import LocalService
    except ImportError as error:  # starlette / uvicorn missing
        print(f"authmw dev needs the 'local' extra: pip install 'authmw[local]' ({error})", file=sys.stderr)
        return 2
    try:
        service = LocalService(args.data_dir, host=args.host, port=args.port, access_token_ttl=args.access_token_ttl)
    except OSError as error:
        print(f"authmw dev: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 1
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
