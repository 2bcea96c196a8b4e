"""Every documentation block marked `tested` runs, so the docs cannot drift from the code.

A fenced block whose info string holds the word `tested` (```` ```bash tested ````, ```` ```python
tested file=main.py ````) is collected from README.md, docs/*.md and js/README.md. The blocks
of one page run in order in a fresh folder, as a reader would type them: `bash` blocks with
bash (the repository's .venv/bin first on PATH), `python` blocks with Python, and a block with
`file=NAME` is written to that file instead. Background processes a block starts (`&`) are
stopped at the end. The well-known ports of the docs (8102 for the local service, 8000-8002
for the apps) are replaced by free ones, so a page's test never meets another program.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "js" / "README.md"]
DOC_PORTS = ("8102", "8000", "8001", "8002")
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    language: str
    body: str
    file: str | None
    line: int


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        words = match["info"].split()
        if "tested" not in words:
            continue
        options = dict(word.split("=", 1) for word in words if "=" in word)
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(words[0], match["body"], options.get("file"), line))
    return blocks


TESTED = [page for page in PAGES if blocks_of(page)]


def test_the_readme_quick_start_is_tested() -> None:
    readme = blocks_of(ROOT / "README.md")
    assert [b.file for b in readme if b.file] == ["main.py", "django_app.py", "flask_app.py"]
    assert sum(b.language == "bash" for b in readme) >= 5


def _free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


@pytest.mark.parametrize("page", TESTED, ids=[str(p.relative_to(ROOT)) for p in TESTED])
def test_the_tested_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    ports = {port: _free_port() for port in DOC_PORTS}
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "AUTHMW_DEV_PORT": ports["8102"],
    }
    for name in list(env):
        if name.startswith(("AUTHMW_", "STACK_")) and name != "AUTHMW_DEV_PORT":
            del env[name]  # the page's own settings only
    groups: list[int] = []
    try:
        for block in blocks_of(page):
            body = block.body
            for doc_port, free in ports.items():
                body = re.sub(rf"\b{doc_port}\b", free, body)
            where = f"{page.relative_to(ROOT)} line {block.line}"
            if block.file:
                (tmp_path / block.file).write_text(body)
                continue
            if block.language == "bash":
                if "authmw dev" in body and "--port" not in body:
                    body = body.replace("authmw dev --background", f"authmw dev --background --port {ports['8102']}")
                command = ["bash", "-e", "-o", "pipefail", "-c", body]
            elif block.language == "python":
                command = [sys.executable, "-c", body]
            else:
                pytest.fail(f"{where}: cannot run a `{block.language}` block marked tested")
            # Output to a file, not a pipe: a process the block leaves running keeps a pipe open.
            log = tmp_path / f"block-{block.line}.log"
            with log.open("w") as out:
                process = subprocess.Popen(
                    command, cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
                )
                groups.append(process.pid)
                process.wait(timeout=180)
            output = log.read_text()
            assert process.returncode == 0, f"{where} failed ({process.returncode}):\n{body}\n--- output ---\n{output}"
    finally:
        subprocess.run(
            [sys.executable, "-m", "authmw", "dev", "--stop", "--data-dir", str(tmp_path / ".authmw")],
            capture_output=True,
            check=False,
        )
        for group in groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass
