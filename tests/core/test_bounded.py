"""The core's one bounded map (authmw/_bounded.py)."""

from __future__ import annotations

import threading

from authmw._bounded import BoundedMap


def test_the_oldest_entry_goes_first_and_long_keys_are_not_kept() -> None:
    m: BoundedMap[int] = BoundedMap(size=3, max_key=10)
    for i in range(3):
        m.put(f"k{i}", i)
    assert m.get("k0") == 0  # a read does not reorder
    m.put("k3", 3)
    assert list(m) == ["k1", "k2", "k3"]
    m.put("k1", 11)  # a new value for a key keeps its place
    m.put("k4", 4)
    assert dict(m) == {"k2": 2, "k3": 3, "k4": 4}
    m.put("x" * 11, 5)
    assert "x" * 11 not in m
    m.drop("k3")
    m.drop("missing")
    assert list(m) == ["k2", "k4"]


def test_a_map_without_a_key_limit_keeps_any_key() -> None:
    m: BoundedMap[int] = BoundedMap(size=2)
    m.put("y" * 10_000, 1)
    assert len(m) == 1


def test_it_stays_bounded_under_threads() -> None:
    m: BoundedMap[int] = BoundedMap(size=50)
    start = threading.Barrier(4)

    def work(n: int) -> None:
        start.wait()
        for i in range(2000):
            m.put(f"{n}-{i}", i)
            m.get(f"{n}-{i // 2}")
            if i % 7 == 0:
                m.drop(f"{n}-{i - 1}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(m) == 50
