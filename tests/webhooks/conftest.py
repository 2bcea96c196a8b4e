"""A local service on a frozen clock per test, for the sender and whole-loop tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from webhook_loop import Loop


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[Loop]:
    loop = Loop(tmp_path)
    try:
        yield loop
    finally:
        loop.close()
