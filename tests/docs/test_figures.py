"""docs/performance.md quotes the React bundles' budgets that js/scripts/bundle-size.mjs checks
in CI, so a raised budget cannot leave the page behind. (The sizes themselves need a build:
`cd js && npm run size` prints them.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The bundles of bundle-size.mjs, and the row of docs/performance.md that quotes each.
ROWS = {
    "AuthProvider + useUser": "| React, `AuthProvider` + `useUser` |",
    "every handler page (AuthHandler)": "| React, every handler page |",
    "AuthProvider + every component": "| React, `AuthProvider` + every component |",
}


def budgets() -> dict[str, str]:
    script = (ROOT / "js" / "scripts" / "bundle-size.mjs").read_text()
    found = {}
    for name in ROWS:
        start = script.index(f'name: "{name}"')
        found[name] = re.search(r"budgetKb: ([\d.]+)", script[start:])[1]  # type: ignore[index]
    return found


def test_the_performance_page_quotes_each_budget() -> None:
    page = (ROOT / "docs" / "performance.md").read_text()
    for name, budget in budgets().items():
        row = next((line for line in page.splitlines() if line.startswith(ROWS[name])), None)
        assert row is not None, f"docs/performance.md has no row for {name}"
        assert f"budget {budget} KB" in row, f"docs/performance.md: {name}'s budget is {budget} KB now: {row}"


def test_the_budgets_are_read() -> None:
    assert all(re.fullmatch(r"\d+\.\d+", budget) for budget in budgets().values())
