"""The core's two bounded maps (authmw/_bounded.py)."""

from __future__ import annotations

import threading

from authmw._bounded import LruMap, Memo


def test_a_memo_is_emptied_when_full_and_ignores_long_keys() -> None:
    memo: Memo[int] = Memo(size=3, max_key=10)
    for i in range(3):
        memo.put(f"k{i}", i)
    assert dict(memo) == {"k0": 0, "k1": 1, "k2": 2}
    memo.put("k3", 3)  # full: emptied, then kept
    assert dict(memo) == {"k3": 3}
    memo.put("x" * 11, 4)
    assert "x" * 11 not in memo and memo.get("k3") == 3


def test_an_lru_map_drops_the_least_recently_used() -> None:
    lru: LruMap[str] = LruMap(size=2)
    lru.put("a", "A")
    lru.put("b", "B")
    assert lru.get("a") == "A"  # "a" is now the most recent
    lru.put("c", "C")
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == ("A", None, "C")
    lru.pop("a")
    lru.pop("missing")
    assert len(lru) == 1 and lru.get("a") is None


def test_an_lru_map_stays_bounded_under_threads() -> None:
    lru: LruMap[int] = LruMap(size=50)
    start = threading.Barrier(4)

    def work(n: int) -> None:
        start.wait()
        for i in range(2000):
            lru.put(f"{n}-{i}", i)
            lru.get(f"{n}-{i // 2}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(lru) == 50
