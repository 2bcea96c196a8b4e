"""@authmw/react as an app installs it before it is published: `npm pack` of js/, installed
into a fresh Vite + React + TypeScript app, which type-checks against the package's types and
builds with Vite (exports, types, peer dependencies and the optional subpaths, the languages
among them, all resolved). The app's folder with its node_modules is kept in
build/release-checks/ while the tarball and the app are unchanged (kept.py); the type check and
the build run every time."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .kept import ROOT, file_hash, kept, stamp_of

JS = ROOT / "js"

MAIN = """
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import { AuthHandler, AuthProvider, useUser } from "@authmw/react";
import { KnownError, isKnownError } from "@authmw/react/core";
import { PasswordTooShort, VerificationCodeError, VerificationCodeExpired } from "@authmw/react/errors";
import { codeChallenge, passkeysSupported } from "@authmw/react/protocol";
import { AuthProviderForTesting } from "@authmw/react/testing";
import de from "@authmw/react/locales/de";
import ja from "@authmw/react/locales/ja";

function Home() {
  const { status, user } = useUser();
  if (status === "loading") return null;
  return <p>{user ? `Signed in as ${user.primaryEmail ?? user.id}` : "Signed out"}</p>;
}

const isKnown = (error: unknown): boolean => error instanceof KnownError;

// The catalogue classes as apps use them: instanceof narrowing, typed detail getters, a subclass.
function explain(error: unknown): string {
  if (error instanceof PasswordTooShort) return `at least ${error.minLength ?? 8} characters`;
  if (error instanceof VerificationCodeExpired) return "expired";
  if (error instanceof VerificationCodeError) return `unusable code (${error.code})`;
  return "other";
}
class TooShortHere extends PasswordTooShort {}
// The same question without importing the classes: the code, its children included, narrowed.
function explainByCode(error: unknown): string {
  if (isKnownError(error, "PASSWORD_TOO_SHORT")) return `at least ${error.minLength ?? 8} characters`;
  if (isKnownError(error, "VERIFICATION_ERROR")) return `unusable code (${error.code})`;
  return "other";
}
const checks = [
  explain(new TooShortHere({ details: { min_length: 10 } })),
  explain(new VerificationCodeExpired()),
  explainByCode(new VerificationCodeExpired()),
  typeof codeChallenge === "function" && typeof passkeysSupported(),
];

createRoot(document.getElementById("root")!).render(
  <AuthProvider projectId="p" publishableClientKey="pck" baseUrl="http://localhost:8102">
    <BrowserRouter>
      <Routes>
        <Route path="/handler/*" element={<AuthHandler messages={de.messages} />} />
        <Route path="/ja/handler/*" element={<AuthHandler messages={ja.messages} />} />
        <Route path="/" element={<Home />} />
      </Routes>
    </BrowserRouter>
  </AuthProvider>,
);
export { AuthProviderForTesting, checks, isKnown };
"""

TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "ESNext",
        "moduleResolution": "bundler",
        "jsx": "react-jsx",
        "strict": True,
        "noEmit": True,
        "skipLibCheck": False,
        "lib": ["ES2022", "DOM", "DOM.Iterable"],
        "types": [],
    },
    "include": ["src"],
}


def _version(package: str) -> str:
    return json.loads((JS / "node_modules" / package / "package.json").read_text())["version"]


def _run(command: list[str], cwd: Path) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (JS / "dist" / "index.js").is_file():
        pytest.fail(
            "js/dist is missing: build the package first (bash scripts/test.sh does, or `cd js && npm run build`)"
        )
    out = tmp_path_factory.mktemp("pack")
    _run(["npm", "pack", "--silent", "--pack-destination", str(out)], JS)
    [packed] = out.glob("authmw-react-*.tgz")
    return packed


def test_the_package_holds_the_build_and_the_license_only(tarball: Path) -> None:
    listing = _run(["tar", "-tzf", str(tarball)], tarball.parent).split()
    assert "package/dist/index.js" in listing and "package/dist/index.d.ts" in listing
    assert "package/LICENSE" in listing and "package/package.json" in listing
    assert not [name for name in listing if name.startswith(("package/src/", "package/test/", "package/node_modules/"))]


def test_a_fresh_vite_react_app_type_checks_and_builds_with_it(tarball: Path) -> None:
    package = {
        "name": "fresh-app",
        "private": True,
        "type": "module",
        "dependencies": {
            "@authmw/react": "file:./authmw-react.tgz",
            "react": _version("react"),
            "react-dom": _version("react-dom"),
            "react-router": _version("react-router"),
        },
        "devDependencies": {
            "vite": _version("vite"),
            "typescript": _version("typescript"),
            "@types/react": _version("@types/react"),
            "@types/react-dom": _version("@types/react-dom"),
        },
    }

    def make(app: Path) -> None:
        (app / "src").mkdir()
        shutil.copy(tarball, app / "authmw-react.tgz")
        (app / "package.json").write_text(json.dumps(package, indent=2))
        (app / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2))
        (app / "index.html").write_text(
            '<!doctype html><html><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>'
        )
        (app / "src" / "main.tsx").write_text(MAIN)
        # Everything but the tarball is already in npm's cache from `npm ci` in js/.
        _run(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], app)

    stamp = stamp_of(file_hash(tarball), json.dumps(package), json.dumps(TSCONFIG), MAIN)
    app, _ = kept("vite-app", stamp, make)
    installed = json.loads((app / "node_modules" / "@authmw" / "react" / "package.json").read_text())
    assert installed["peerDependencies"]["react"] and installed["peerDependencies"]["react-router"]
    shutil.rmtree(app / "dist", ignore_errors=True)  # what an earlier run built
    _run([str(app / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json"], app)
    _run([str(app / "node_modules" / ".bin" / "vite"), "build", "--logLevel", "warn"], app)
    built = list((app / "dist" / "assets").glob("*.js"))
    assert built, "vite wrote no bundle"
    text = "".join(path.read_text() for path in built)
    assert "/handler" in text  # the handler routes are in the app's bundle


def test_the_lock_file_installs_from_a_clean_state(tmp_path: Path) -> None:
    """`npm ci` in a folder holding only package.json and package-lock.json (a fresh clone's
    state): the lock matches the manifest. The control: a dependency the lock lacks fails it."""
    for name in ("package.json", "package-lock.json"):
        shutil.copy(JS / name, tmp_path / name)
    command = ["npm", "ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"]
    _run(command, tmp_path)
    manifest = json.loads((tmp_path / "package.json").read_text())
    manifest["devDependencies"]["left-pad"] = "1.3.0"
    (tmp_path / "package.json").write_text(json.dumps(manifest))
    drifted = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert drifted.returncode != 0, "npm ci took a package.json its lock file does not match"


def test_the_tarball_passes_publint(tarball: Path, tmp_path: Path) -> None:
    """publint (a pinned dev dependency): exports, files, types and module fields as published."""
    _run(["tar", "-xzf", str(tarball), "-C", str(tmp_path)], tmp_path)
    out = _run(["npx", "--no-install", "publint", "--strict", "--pack", "false", str(tmp_path / "package")], JS)
    assert "All good" in out, out


@functools.cache  # one attw run for both tests below
def _types_problems(tarball: Path) -> list[dict[str, str]]:
    """The problems @arethetypeswrong/cli (a pinned dev dependency) finds in the tarball's types,
    for an ESM-only package (CommonJS `require` is not offered)."""
    # Into a file: node ends a process that exits with a piped stdout after 64 KB of it.
    out = tarball.parent / "attw.json"
    with out.open("w") as file:
        subprocess.run(
            ["npx", "--no-install", "attw", "--profile", "esm-only", "--format", "json", str(tarball)],
            cwd=JS, stdout=file, stderr=subprocess.DEVNULL, check=False,
        )
    report = json.loads(out.read_text())
    problems: list[dict[str, str]] = report["analysis"]["problems"]
    return [p for p in problems if _resolution(p) not in ("node10", "node16-cjs")]


def _resolution(problem: dict[str, str]) -> str:
    """The resolution a problem is of: node10, node16-cjs, node16-esm or node16 (both), bundler."""
    return problem.get("resolutionKind") or problem.get("resolutionOption") or ""


def test_the_types_resolve_for_bundlers(tarball: Path) -> None:
    """What Vite, webpack and TypeScript's `moduleResolution: "bundler"` read: no problem."""
    problems = [p for p in _types_problems(tarball) if _resolution(p) == "bundler"]
    assert problems == [], problems[:5]


def test_the_types_resolve_for_node16_esm(tarball: Path) -> None:
    """What TypeScript's node16/nodenext ESM resolution reads: relative imports need their '.js'
    extension, which js/src writes on every one."""
    problems = [p for p in _types_problems(tarball) if _resolution(p) in ("node16", "node16-esm")]
    assert problems == [], problems[:5]
