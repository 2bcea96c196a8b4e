"""Every documentation block marked `tested` runs, so the docs cannot drift from the code.

A fenced block whose info string holds the word `tested` (```` ```bash tested ````, ```` ```python
tested file=main.py ````) is collected from README.md, docs/*.md, js/README.md and the
examples' READMEs. The blocks of one page run in order in a fresh folder, as a reader would
type them into one terminal and one Python prompt:
- `bash` blocks run with bash (the repository's .venv/bin first on PATH); what a block
  exports (`set -a; . .authmw/project.env`) is seen by the later blocks, as in one terminal;
- `console` blocks run each `$ ` command (its shown output is not compared); a command must
  exit 0, or N when its comment says `exit N`;
- `python` blocks run in one Python session per page, so a later block uses the names an
  earlier one defined;
- a block with `file=NAME` is written to that file instead, one with `append=NAME` is added to
  the end of that file (a setting added to the `settings.py` an earlier block made);
- a `python tested twice` block runs twice (a reader runs it again: it must not fail then).
Background processes a block starts (`&`) are stopped at the end. The well-known ports of the
docs (8102 for the local service, 8000-8002 for the apps) are replaced by free ones, so a
page's test never meets another program.

Every other block is checked without running it (see test_every_block_of_the_docs_is_checked).
The TypeScript blocks marked `tested` are type-checked and run by vitest (js/scripts/doc-blocks.mjs).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from ports import another_program_on_a_port, free_port

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "js" / "README.md",
    *sorted(ROOT.glob("examples/*/README.md")),
]
#: Folders a build writes (ignored by git): a block may name what is in them before it exists.
BUILT = frozenset({"dist", "build", "node_modules"})
DOC_PORTS = ("8102", "8000", "8001", "8002")
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    language: str
    body: str
    file: str | None
    line: int
    append: bool = False
    info: tuple[str, ...] = ()


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        words = match["info"].split()
        if "tested" not in words or words[0] in ("ts", "tsx"):
            continue  # the TypeScript blocks are run by vitest (js/scripts/doc-blocks.mjs)
        options = dict(word.split("=", 1) for word in words if "=" in word)
        line = text.count("\n", 0, match.start()) + 1
        target = options.get("file") or options.get("append")
        blocks.append(Block(words[0], match["body"], target, line, append="append" in options, info=tuple(words)))
    return blocks


TESTED = [page for page in PAGES if blocks_of(page)]


def test_the_readme_quick_start_is_tested() -> None:
    readme = blocks_of(ROOT / "README.md")
    assert [b.file for b in readme if b.file] == ["main.py", "django_app.py", "flask_app.py"]
    assert sum(b.language == "bash" for b in readme) >= 5


#: The Python session of a page: reads blocks (a length line, then the code) from stdin, runs
#: each in one namespace, and answers "ok" or the traceback, as a length line and the text.
SESSION = """
import sys, traceback
namespace = {"__name__": "__main__"}
while True:
    size = sys.stdin.readline()
    if not size:
        break
    code = sys.stdin.read(int(size))
    try:
        exec(compile(code, "<block>", "exec"), namespace)
        answer = "ok"
    except BaseException:
        answer = traceback.format_exc()
    sys.stdout.flush()
    sys.__stdout__.write(f"\\0{len(answer)}\\n{answer}")
    sys.__stdout__.flush()
"""


class PythonSession:
    def __init__(self, cwd: Path, env: dict[str, str], python: str = sys.executable) -> None:
        self.log = cwd / "python-session.log"
        self.process = subprocess.Popen(
            [python, "-u", "-c", SESSION],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log.open("w"),
            text=True,
            start_new_session=True,
        )

    def run(self, code: str) -> tuple[bool, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{len(code)}\n{code}")
        self.process.stdin.flush()
        printed = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                return False, "".join(printed) + "\n(the Python session ended)\n" + self.log.read_text()
            if line.startswith("\0"):
                answer = self.process.stdout.read(int(line[1:]))
                return answer == "ok", "".join(printed) + ("" if answer == "ok" else answer)
            printed.append(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _console_script(body: str) -> str:
    """A bash script running the `$ ` commands of a console block, each checked for its exit."""
    lines = ["set -o pipefail"]
    for raw in body.splitlines():
        if not raw.startswith("$ "):
            continue
        command = raw[2:]
        allowed = re.search(r"#.*\bexit (\d+)", command)
        codes = {"0", allowed[1]} if allowed else {"0"}
        test = " || ".join(f"[ $status = {code} ]" for code in sorted(codes))
        lines.append(
            f'{command}\nstatus=$?; if ! ( {test} ); then echo "exit $status: "{shlex_quote(command)} >&2; exit 1; fi'
        )
    return "\n".join(lines)


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


#: Variables of the shell itself, not of the reader's session.
SHELL_OWN = {"PWD", "OLDPWD", "SHLVL", "_", "BASH_EXECUTION_STRING"}


@pytest.mark.parametrize("page", TESTED, ids=[str(p.relative_to(ROOT)) for p in TESTED])
def test_the_tested_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    run_blocks(page, tmp_path, {port: str(free_port()) for port in DOC_PORTS})


def run_blocks(page: Path, tmp_path: Path, ports: dict[str, str], interpreter: str = sys.executable) -> None:
    """Run the tested blocks of ``page`` in ``tmp_path``, each doc port replaced by ``ports``'s,
    with ``interpreter`` (and the commands beside it: ``authmw``, ``uvicorn``) first on the PATH."""
    env = {
        **os.environ,
        "PATH": f"{Path(interpreter).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "AUTHMW_DEV_PORT": ports["8102"],
    }
    for name in list(env):
        if name.startswith(("AUTHMW_", "STACK_")) and name != "AUTHMW_DEV_PORT":
            del env[name]  # the page's own settings only
    groups: list[int] = []
    python: PythonSession | None = None
    exported = tmp_path / ".exported-env"
    try:
        for block in blocks_of(page):
            body = block.body
            for doc_port, free in ports.items():
                body = re.sub(rf"\b{doc_port}\b", free, body)
            where = f"{page.relative_to(ROOT)} line {block.line}"
            if block.file:
                target = tmp_path / block.file
                if block.append:
                    assert target.exists(), f"{where}: appends to {block.file}, which no earlier block made"
                    body = f"{target.read_text().rstrip()}\n\n{body}"
                target.write_text(body)
                continue
            if block.language == "python":
                if python is None:
                    python = PythonSession(tmp_path, env, interpreter)
                    groups.append(python.process.pid)
                for time in ("", " (run a second time)") if "twice" in block.info else ("",):
                    ok, output = python.run(body)
                    assert ok, f"{where} failed{time}:\n{body}\n--- output ---\n{output}"
                continue
            if block.language in ("bash", "console"):
                if "authmw dev" in body and "--port" not in body:
                    body = body.replace("authmw dev --background", f"authmw dev --background --port {ports['8102']}")
                script = _console_script(body) if block.language == "console" else f"set -e -o pipefail\n{body}"
                script += f'\nenv -0 > "{exported}"'
                command = ["bash", "-c", script]
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
            if exported.exists():  # the block's exports, for the blocks after it
                pairs = (item.split("=", 1) for item in exported.read_text().split("\0") if "=" in item)
                env = {name: value for name, value in pairs if name not in SHELL_OWN}
                exported.unlink()
    finally:
        if python is not None:
            python.close()
        subprocess.run(
            [interpreter, "-m", "authmw", "dev", "--stop", "--data-dir", str(tmp_path / ".authmw")],
            capture_output=True,
            check=False,
        )
        for group in groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass


def test_the_quick_start_and_the_example_use_other_ports() -> None:
    """`bash scripts/run_example.sh` can run beside the quick start: no port in common."""
    script = (ROOT / "scripts" / "run_example.sh").read_text()
    example = set(re.findall(r"(?:AUTHMW_DEV_PORT|PORT):-(\d+)\}", script))
    readme = (ROOT / "README.md").read_text()
    quick_start = readme[readme.index("## Quick start") : readme.index("## What works today")]
    used = {port for block in blocks_of(ROOT / "README.md") for port in re.findall(r"\b8\d{3}\b", block.body)}
    assert len(example) == 2 and used == set(DOC_PORTS)
    assert not example & used, f"the example's ports {sorted(example)} are the quick start's too"
    for port in example:
        assert port in quick_start  # the quick start names them, so a reader knows


def test_the_quick_start_stops_when_another_program_answers_on_its_port(tmp_path: Path) -> None:
    """The issue's case: the example (or anything) answers on 8000 and uvicorn cannot listen
    there; the quick start must not look done. Its port check stops it before the app starts."""
    with another_program_on_a_port() as held:
        taken = str(held)
        ports = {port: str(free_port()) for port in DOC_PORTS} | {"8000": taken}
        with pytest.raises(AssertionError) as failed:
            run_blocks(ROOT / "README.md", tmp_path, ports)
    assert f"port {taken} is taken: stop that program first" in str(failed.value)
    assert "uvicorn main:app" in str(failed.value)  # the block that starts the FastAPI app


# Every other block is checked without running it: the names it imports from authmw exist, the
# `authmw` commands it shows parse with the real command line, its JSON parses, its shell is
# valid bash, the repository files it names exist. (The TypeScript blocks are checked by
# js/test/docs.test.tsx.) A block of code that is not run says why in its info string:
#   install          installs authmw (the packaging test installs the built wheel into a fresh
#                    venv); the extras it names must exist
#   long-running     a server, the example app or a benchmark; the scripts it names must exist
#   own-deployment   needs a deployment of your own
#   excerpt=PATH     lines of the source file PATH: each line (but `...`) is found there, in order
# Data (json, text, ini, css) is an example of a format, not a program.
REASONS = {"install", "long-running", "own-deployment"}

ALL_BLOCK = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
CHECKED_LANGUAGES = {"python", "bash", "sh", "console", "json"}
NOT_CODE = {"", "text", "css", "ts", "tsx", "ini"}


def every_block() -> list[tuple[str, Block, bool]]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in ALL_BLOCK.finditer(text):
            words = match["info"].split() or [""]
            line = text.count("\n", 0, match.start()) + 1
            block = Block(words[0], match["body"], None, line, info=tuple(words[1:]))
            found.append((f"{page.relative_to(ROOT)}:{line}", block, "tested" in words))
    return found


def _authmw_commands(block: Block) -> list[list[str]]:
    """The `authmw ...` command lines of a shell or console block, as argument lists."""
    import shlex

    commands = []
    for raw in block.body.splitlines():
        line = raw.strip()
        if block.language == "console":
            if not line.startswith("$ "):
                continue  # output
            line = line[2:]
        line = re.split(r"\s#|\s&&|\s\|\s|\s>>?\s|\s&$|\s&\s", f"{line} ")[0].strip()
        if line.startswith(("authmw ", "python -m authmw ")):
            words = shlex.split(line)
            commands.append(words[words.index("authmw") + 1 :] if "authmw" in words else words[3:])
    return commands


def _check_python(where: str, body: str) -> None:
    import ast
    import importlib

    try:
        tree = ast.parse(body)
    except SyntaxError as error:
        pytest.fail(f"{where}: not valid Python ({error})")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0].startswith("authmw"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{where}: {node.module} has no {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0].startswith("authmw"):
                    importlib.import_module(alias.name)


BLOCKS = every_block()


@pytest.mark.parametrize(("where", "block", "tested"), BLOCKS, ids=[where for where, _, _ in BLOCKS])
def test_every_block_of_the_docs_is_checked(where: str, block: Block, tested: bool) -> None:
    import json

    from authmw.cli import build_parser

    assert block.language in CHECKED_LANGUAGES | NOT_CODE, f"{where}: unknown block language {block.language!r}"
    for arguments in _authmw_commands(block):
        try:
            build_parser().parse_args(arguments)
        except SystemExit as exit:
            if exit.code == 0:  # --version, --help
                continue
            pytest.fail(f"{where}: `authmw {' '.join(arguments)}` is not a valid command")
    if block.language == "python":
        _check_python(where, block.body)
    elif block.language in ("bash", "sh"):
        result = subprocess.run(["bash", "-n", "-c", block.body], capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{where}: not valid bash: {result.stderr}"
    elif block.language == "json":
        json.loads(block.body)
    if tested or block.language in NOT_CODE | {"json"}:
        return
    excerpts = [word.split("=", 1)[1] for word in block.info if word.startswith("excerpt=")]
    reasons = REASONS.intersection(block.info)
    assert excerpts or reasons, (
        f"{where}: a {block.language} block that is not run must say why: `tested`, or one of "
        f"{sorted(REASONS)} or excerpt=PATH in its info string (see tests/docs/test_snippets.py)"
    )
    for path in excerpts:
        _check_excerpt(where, block.body, ROOT / path)
    for named in re.findall(r"(?<![\w./-])((?:scripts|bench|examples|tests|adapters|authmw)/[\w./-]*\w)", block.body):
        if BUILT.intersection(Path(named).parts):
            continue  # what a build writes (examples/web/dist/...): not in a fresh clone
        assert (ROOT / named).exists(), f"{where}: names {named}, which is not in the repository"
    if "install" in reasons:
        import tomllib

        extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
        for named in re.findall(r"authmw\[([\w,]+)\]", block.body):
            unknown = set(named.split(",")) - extras
            assert not unknown, f"{where}: installs the extras {sorted(unknown)}, which pyproject.toml does not define"
        # authmw is not on PyPI yet: an install names the clone (../authmw[...]), as the README does
        bare = re.findall(r"""pip install [^\n#]*?(?<![\w./])["']?authmw\[""", block.body)
        assert not bare, f"{where}: installs authmw from PyPI, where it is not yet: install from the clone (../authmw[...])"


def _check_excerpt(where: str, body: str, source: Path) -> None:
    assert source.is_file(), f"{where}: excerpt of {source.relative_to(ROOT)}, which does not exist"
    lines = [line.strip() for line in source.read_text().splitlines()]
    at = 0
    for raw in body.splitlines():
        code = re.split(r"\s+#\s", raw.strip(), maxsplit=1)[0].strip()
        if not code or code == "...":
            continue
        found = next((i for i in range(at, len(lines)) if code in lines[i]), None)
        assert found is not None, f"{where}: `{code}` is not in {source.relative_to(ROOT)} (after line {at})"
        at = found + 1


def test_the_command_check_sees_the_commands() -> None:
    commands = [c for _, block, _ in BLOCKS for c in _authmw_commands(block)]
    assert ["keys", "revoke", "$staging"] in commands and ["project", "check"] in commands
    assert len(commands) >= 15


def test_an_excerpt_that_drifted_from_its_source_is_caught() -> None:
    source = ROOT / "authmw" / "_apps" / "_client.py"
    _check_excerpt("here", "def get_user(self) -> Op[User | None]:\n    ...\n    return parse(User, body)\n", source)
    with pytest.raises(AssertionError, match="is not in authmw/_apps/_client.py"):
        _check_excerpt("here", "def get_user(self) -> Op[CurrentUser | None]:\n", source)
    with pytest.raises(AssertionError, match="after line"):  # in order
        _check_excerpt("here", "return parse(User, body)\ndef get_user(self) -> Op[User | None]:\n", source)
