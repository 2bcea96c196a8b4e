"""Run Stack Auth's own end-to-end API suite against the local service (called by stack_e2e.sh).

    python scripts/stack_e2e.py prepare STACK_DIR          lockfile fixes before the install
    python scripts/stack_e2e.py run STACK_DIR [options] [TEST PATH ...]

`run` starts the suite's mock OAuth server (apps/mock-oauth-server, on port <prefix>14, where the
suite expects it) and a LocalService (fresh data folder, the `internal` project seeded with the
keys of `apps/e2e/.env.development`, the Inbucket-compatible mail API on a free port, the mock
OAuth server serving the `shared` OAuth providers as the real backend's development setup
has it, and the fixed passkey challenge of the backend's test mode), runs vitest on
the given paths (default: every area under tests/backend/endpoints/api/v1 whose endpoints the
local service offers, see EXCLUDED), prints passed/total per directory, and stops the service.
A developer tool, not part of the test suite: it needs a copy of stack-auth/stack-auth and
its node_modules (stack_e2e.sh makes both).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

SUITE = "tests/backend/endpoints/api/v1"
#: The checkout this script belongs to: its authmw is the one tested.
REPO = Path(__file__).resolve().parent.parent

#: Areas left out by default, with why (`--all` runs them too). Paths are relative to SUITE.
EXCLUDED: dict[str, str] = {
    "payments": "payments (Stripe, products, purchases): not offered beyond the internal project's team seats",
    "internal/payments": "payments: not offered",
    "stripe-webhooks.test.ts": "payments: not offered",
    "internal/transactions.test.ts": "payments: not offered",
    "internal/transactions-refund.test.ts": "payments: not offered",
    "integrations": "Neon/custom OAuth integrations and project transfers: not offered",
    "data-vault.test.ts": "data vault: not offered",
    "ai-query.test.ts": "AI query: not offered (needs OpenAI)",
    "internal/wysiwyg-edit.test.ts": "AI e-mail editing: not offered (needs OpenAI)",
    "analytics-config.test.ts": "analytics (ClickHouse): not offered",
    "analytics-events.test.ts": "analytics (ClickHouse): not offered",
    "analytics-events-batch.test.ts": "analytics (ClickHouse): not offered",
    "analytics-query.test.ts": "analytics (ClickHouse): not offered",
    "token-refresh-events.test.ts": "analytics events of token refreshes (ClickHouse): not offered",
    "session-replays.test.ts": "session replays: not offered",
    "external-db-sync-advanced.test.ts": "external database sync (needs Postgres targets): not offered",
    "external-db-sync-basics.test.ts": "external database sync: not offered",
    "external-db-sync-high-volume.test.ts": "external database sync: not offered",
    "external-db-sync-race.test.ts": "external database sync: not offered",
    "emails": "e-mail queue, drafts, themes rendered by React Email (Freestyle sandbox): not offered",
    "internal/email-queue-step.test.ts": "the e-mail queue worker: not offered",
    "internal/email.test.ts": "e-mail server onboarding (managed domains): not offered",
    "internal/failed-emails-digest.test.ts": "the e-mail queue's failure digest: not offered",
    "internal/managed-email-onboarding.test.ts": "managed e-mail domains (DNSimple, Resend): not offered",
    "internal/feedback.test.ts": "dashboard feedback form: not offered",
    "internal/component-versions.test.ts": "dashboard component versions: not offered",
    "internal/config-local-emulator.test.ts": "Stack's local emulator: not offered",
    "internal/local-emulator-project.test.ts": "Stack's local emulator: not offered",
    "internal/sign-up-rules-stats.test.ts": "sign-up rule statistics (ClickHouse): not offered",
    "internal-metrics.test.ts": "dashboard metrics with geo and analytics data (ClickHouse): not offered",
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: The root importer's entry of `codebuff`, whose pinned version the npm registry answers 404.
_CODEBUFF_IMPORTER = re.compile(r"\n      codebuff:\n        specifier: [^\n]*\n        version: [^\n]*")


def prepare(stack: Path) -> None:
    """Drop `codebuff` (an AI CLI among the root devDependencies, unpublished version) from the
    root package.json and the lockfile's root importer, so a frozen install can fetch the rest."""
    package_json = stack / "package.json"
    package = json.loads(package_json.read_text(encoding="utf-8"))
    if package.get("devDependencies", {}).pop("codebuff", None) is not None:
        package_json.write_text(json.dumps(package, indent=2) + "\n", encoding="utf-8")
    lockfile = stack / "pnpm-lock.yaml"
    text = lockfile.read_text(encoding="utf-8")
    fixed = _CODEBUFF_IMPORTER.sub("", text, count=1)
    if fixed != text:
        lockfile.write_text(fixed, encoding="utf-8")


#: Written by the backend's own build (`pnpm run codegen` -> generate-private-sign-up-risk-engine):
#: the entry point of the sign-up risk engine, the private one when its submodule is checked out,
#: else the public fallback. `risk-scores.test.ts` reads it to know which scores to expect.
RISK_ENGINE_ENTRY = "apps/backend/src/private/implementation.generated.ts"


def ensure_risk_engine_entry(stack: Path) -> None:
    """Write the risk engine's generated entry point as the backend's build would (a copy made with
    `git archive` lacks it: the file is ignored by git). The private engine is a private submodule,
    so a public copy gets the fallback; the file is left alone when it exists."""
    entry = stack / RISK_ENGINE_ENTRY
    if entry.exists() or not entry.parent.is_dir():
        return
    private = (entry.parent / "implementation" / "index.ts").exists()
    engine = "implementation" if private else "implementation-fallback"
    entry.write_text(
        "// Written by authmw's scripts/stack_e2e.py, as the backend's codegen writes it.\n"
        f'export * from "../private/{engine}/index";\n',
        encoding="utf-8",
    )


def _excluded(path: str) -> str | None:
    for prefix, why in EXCLUDED.items():
        if path == prefix or path.startswith(prefix.rstrip("/") + "/"):
            return why
    return None


def _all_test_files(e2e: Path) -> list[str]:
    root = e2e / SUITE
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.test.ts") if "node_modules" not in p.parts)


def _area(path: str, depth: int) -> str:
    parts = path.split("/")
    return "/".join(parts[:depth]) if len(parts) > depth else path


def _env_file_values(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def _free_port_prefix() -> str:
    """Two digits P such that port P02 (the backend's place in the suite's port scheme) is free.
    Stack's own services use 81; the search starts elsewhere so as not to meet a developer's."""

    for prefix in range(31, 65):
        if all(_port_free(int(f"{prefix}{suffix}")) for suffix in ("02", "14")):
            return str(prefix)
    raise SystemExit("stack_e2e: no free port P02 for P in 31-64; pass --port-prefix")


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _start_mock_oauth(stack: Path, prefix: str, log: Path) -> subprocess.Popen[bytes] | None:
    """The suite's mock OAuth server on port <prefix>14, once its discovery document answers;
    None when the copy has no such app or its dependencies are not installed."""
    app = stack / "apps" / "mock-oauth-server"
    tsx = app / "node_modules" / ".bin" / "tsx"
    if not tsx.exists():
        print(f"stack_e2e: {tsx} is missing: the OAuth tests will fail (run stack_e2e.sh to install it).", file=sys.stderr)
        return None
    env = {**os.environ, "NEXT_PUBLIC_STACK_PORT_PREFIX": prefix}
    env.pop("PORT", None)
    with log.open("wb") as out:
        child = subprocess.Popen([str(tsx), "src/index.ts"], cwd=app, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://localhost:{prefix}14/.well-known/openid-configuration"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if child.poll() is not None:
                print(f"stack_e2e: the mock OAuth server stopped (see {log}).", file=sys.stderr)
                return None
            try:
                with urllib.request.urlopen(url, timeout=5) as answer:
                    if answer.status == 200:
                        return child
            except OSError:
                pass
            time.sleep(0.5)  # polling a starting process for readiness, not a test's synchronisation
    except BaseException:
        _stop(child)
        raise
    _stop(child)
    print(f"stack_e2e: the mock OAuth server did not answer at {url} (see {log}).", file=sys.stderr)
    return None


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        os.killpg(child.pid, signal.SIGTERM)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def run(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO))
    from authmw_local.seed import read_internal_keys

    stack = Path(args.stack).resolve()
    e2e = stack / "apps" / "e2e"
    vitest = stack / "node_modules" / ".bin" / "vitest"
    if not vitest.exists():
        print(f"stack_e2e: {vitest} is missing: run scripts/stack_e2e.sh (it installs the suite).", file=sys.stderr)
        return 2
    every = _all_test_files(e2e)
    if args.paths:
        selected = [f for f in every if any(f == p or f.startswith(p.rstrip("/") + "/") for p in args.paths)]
    else:
        selected = [f for f in every if args.all or _excluded(f) is None]
    if not selected:
        print(f"stack_e2e: no test file under {SUITE} matches {args.paths}.", file=sys.stderr)
        return 2
    ensure_risk_engine_entry(stack)
    api = args.api
    if api == "auto":  # the backend version of the copy: 2.7.x -> "2.7", else "2.8"
        version = json.loads((e2e / "package.json").read_text(encoding="utf-8"))["version"]
        api = "2.7" if version.startswith("2.7.") else "2.8"
    env_file = e2e / ".env.development"
    keys = read_internal_keys(env_file)
    dev_env = _env_file_values(env_file)

    prefix = args.port_prefix or _free_port_prefix()
    # The suite expects the backend at http://localhost:<prefix>02 (its snapshots write that
    # origin as <$NEXT_PUBLIC_STACK_PORT_PREFIX>02, and its OAuth helper checks the callback's
    # origin), so the service listens there and knows itself by that name.
    backend_url = f"http://localhost:{prefix}02"
    with tempfile.TemporaryDirectory(prefix="authmw-stack-e2e-") as data_dir:
        report = Path(data_dir) / "vitest-report.json"
        mock_oauth = _start_mock_oauth(stack, prefix, Path(data_dir) / "mock-oauth-server.log")
        try:
            return _run_suite(args, selected, api, keys, dev_env, prefix, backend_url, data_dir, report, mock_oauth is not None, e2e, vitest)
        finally:
            if mock_oauth is not None:
                _stop(mock_oauth)


def _run_suite(
    args: argparse.Namespace,
    selected: list[str],
    api: str,
    keys: object,
    dev_env: dict[str, str],
    prefix: str,
    backend_url: str,
    data_dir: str,
    report: Path,
    with_mock_oauth: bool,
    e2e: Path,
    vitest: Path,
) -> int:
    from authmw.dev import LocalService

    with LocalService(
        Path(data_dir) / "service",
        port=int(f"{prefix}02"),
        public_url=backend_url,
        quiet=True,
        internal_keys=keys,
        mail_api_port=0,
        access_token_ttl=args.access_token_ttl,
        api=api,
        shared_oauth_server=f"http://localhost:{prefix}14" if with_mock_oauth else None,
        # The suite replays recorded passkey ceremonies signed over the challenge "MOCK", which
        # the real backend gives when STACK_ENABLE_HARDCODED_PASSKEY_CHALLENGE_FOR_TESTING is set.
        fixed_passkey_challenge=True,
    ) as service:
        env = {
            **os.environ,
            "CI": "true",
            "NEXT_PUBLIC_STACK_PORT_PREFIX": prefix,
            "STACK_BACKEND_BASE_URL": backend_url,
            "STACK_INBUCKET_API_URL": str(service.mail_api_url),
            "INBUCKET_API_URL": str(service.mail_api_url),  # its name up to 2.7
            # Nothing listens there: the webhook tests fail (the local service has no Svix).
            "STACK_SVIX_SERVER_URL": args.svix_url,
            "STACK_DASHBOARD_BASE_URL": args.dashboard_url,
            "STACK_INTERNAL_PROJECT_ID": dev_env.get("STACK_INTERNAL_PROJECT_ID", "internal"),
        }
        command = [
            str(vitest),
            "run",
            # From the repository's root, as its CI runs the suite (`pnpm test run`): a test
            # reads a backend file relative to the working directory.
            f"--root={e2e}",
            *[f"{SUITE}/{f}" for f in selected],
            "--reporter=json",
            f"--outputFile={report}",
            "--reporter=dot",
            "--pool=forks",
            f"--poolOptions.forks.maxForks={args.workers}",
            f"--poolOptions.forks.minForks={min(args.workers, 1)}",
        ]
        print(
            f"stack_e2e: {len(selected)} test files against {backend_url} answering as API {service.api}"
            f" (mail API {service.mail_api_url})",
            file=sys.stderr,
            flush=True,
        )
        child = subprocess.Popen(command, cwd=e2e.parent.parent, env=env, start_new_session=True)
        try:
            child.wait(timeout=args.timeout_minutes * 60)
        except subprocess.TimeoutExpired:
            print(f"stack_e2e: stopped vitest after {args.timeout_minutes} minutes.", file=sys.stderr)
        except KeyboardInterrupt:
            pass
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
                child.wait(timeout=30)
    if not report.exists():
        print("stack_e2e: vitest wrote no report (see its output above).", file=sys.stderr)
        return 2
    results = json.loads(report.read_text(encoding="utf-8"))
    return _print_table(results, e2e / SUITE, args)


def _print_table(results: dict[str, object], suite_root: Path, args: argparse.Namespace) -> int:
    passed: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    failures: list[str] = []
    for file_result in results.get("testResults", []):  # type: ignore[union-attr]
        path = str(Path(file_result["name"]).resolve().relative_to(suite_root))
        area = _area(path, args.depth)
        assertions = file_result.get("assertionResults", [])
        if not assertions and file_result.get("status") == "failed":
            total[area] += 1  # the file did not load: count it as one failure
            failures.append(f"{path}: {file_result.get('message', '')[:200]}")
        for assertion in assertions:
            if assertion["status"] in ("skipped", "pending", "todo"):
                continue
            total[area] += 1
            if assertion["status"] == "passed":
                passed[area] += 1
            else:
                message = _ANSI.sub("", "\n".join(assertion.get("failureMessages") or []))
                lines = [line for line in message.splitlines() if line.strip()][: args.failure_lines]
                failures.append("\n    ".join([f"{path} > {assertion['fullName']}", *lines]))
    width = max((len(area) for area in total), default=10)
    print(f"\n{'area'.ljust(width)}  passed/total")
    for area in sorted(total):
        print(f"{area.ljust(width)}  {passed[area]}/{total[area]}")
    all_passed, all_total = sum(passed.values()), sum(total.values())
    print(f"{'ALL'.ljust(width)}  {all_passed}/{all_total}")
    if args.failures:
        Path(args.failures).write_text("\n".join(failures) + "\n", encoding="utf-8")
        print(f"(failed tests and their messages in {args.failures})")
    if not args.paths and not args.all:
        print("\nexcluded (run them with --all):")
        for prefix, why in EXCLUDED.items():
            print(f"  {prefix}: {why}")
    return 0 if all_passed == all_total else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stack_e2e.py")
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare")
    prep.add_argument("stack")
    go = commands.add_parser("run")
    go.add_argument("stack", help="the copy of stack-auth/stack-auth with its node_modules")
    go.add_argument("paths", nargs="*", help=f"test files or folders relative to {SUITE} (default: every offered area)")
    go.add_argument("--all", action="store_true", help="also run the excluded areas")
    go.add_argument("--depth", type=int, default=1, help="path components per row of the table (default 1)")
    go.add_argument("--workers", type=int, default=2, help="vitest worker processes (default 2)")
    go.add_argument("--timeout-minutes", type=float, default=60, help="stop vitest after this long (default 60)")
    go.add_argument("--access-token-ttl", type=float, default=600)
    go.add_argument(
        "--api",
        choices=("auto", "2.7", "2.8"),
        default="auto",
        help="the version the service answers as (default auto: the suite's own, 2.7 for a 2.7.x copy, else 2.8)",
    )
    go.add_argument(
        "--port-prefix",
        help="the suite's NEXT_PUBLIC_STACK_PORT_PREFIX: the service listens on port <prefix>02 (default: the first free one from 31)",
    )
    go.add_argument("--failures", help="write the failed tests, each with its message, to this file")
    go.add_argument("--failure-lines", type=int, default=40, help="lines of each failure message kept (default 40)")
    go.add_argument("--svix-url", default="http://127.0.0.1:9")
    go.add_argument("--dashboard-url", default="http://127.0.0.1:9")
    args, extra = parser.parse_known_args(argv)
    # Test paths after an option (`run STACK --workers 1 auth/otp`): argparse gives the paths
    # positional nothing once an option came between, and leaves them over.
    if extra:
        if args.command != "run" or any(item.startswith("-") for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.paths = [*args.paths, *extra]
    if args.command == "prepare":
        prepare(Path(args.stack))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
