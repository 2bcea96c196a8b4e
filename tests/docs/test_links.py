"""The links between the docs resolve: every relative link names a file of the repository,
and every #anchor a heading (or an explicit anchor) of the page it points to, as GitHub
makes them. Also: the README's test command explains itself without running anything."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "js" / "README.md",
    ROOT / "js" / "CHANGELOG.md",
    *sorted(ROOT.glob("examples/*/README.md")),
]
FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor_of(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCED.sub("", page.read_text())
    found: set[str] = set(re.findall(r'<a (?:name|id)="([^"]+)"', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}\s+(.*)$", text, re.MULTILINE):
        anchor = anchor_of(heading)
        found.add(anchor if anchor not in seen else f"{anchor}-{seen[anchor]}")
        seen[anchor] = seen.get(anchor, 0) + 1
    return found


def test_anchors_are_made_as_github_makes_them() -> None:
    assert anchor_of("Sign in with OAuth (server-rendered)") == "sign-in-with-oauth-server-rendered"
    assert anchor_of("Service versions: 2.8 and 2.7 tokens") == "service-versions-28-and-27-tokens"
    assert anchor_of("`server.users`") == "serverusers"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_the_links_of_a_page_resolve(page: Path) -> None:
    broken = []
    for target in LINK.findall(FENCED.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not checked here
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor in {linked.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_links_are_found() -> None:
    links = [t for page in PAGES for t in LINK.findall(FENCED.sub("", page.read_text()))]
    assert len([t for t in links if "#" in t and not t.startswith("http")]) >= 20


def test_a_broken_anchor_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Two words\n\n```\n## not a heading\n```\n")
    assert anchors(page) == {"title", "two-words"}


def test_the_test_command_has_help_that_runs_nothing() -> None:
    """`bash scripts/test.sh --help` prints its usage and stops (no install, no test run)."""
    answer = subprocess.run(
        ["bash", "scripts/test.sh", "--no-browser", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=10
    )
    assert answer.returncode == 0, answer.stderr
    assert "Usage: bash scripts/test.sh [--no-browser] [pytest args...]" in answer.stdout
    assert "==" not in answer.stdout + answer.stderr  # no step of scripts/steps.sh ran
