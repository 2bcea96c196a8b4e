"""The two bounded maps of the core, so that every cache has one of two stated policies.

- :class:`Memo`: request values (a ``Cookie`` or ``x-stack-auth`` header) mapped to what was
  made of them. A client repeats its values, so the map is simply emptied when full and the
  live ones come back with their next requests; keys longer than ``max_key`` are never kept,
  which bounds the memory. A hit is a plain ``dict.get`` (about 60 ns).
- :class:`LruMap`: tokens mapped to what they gave (a verification, a refresh), least recently
  used dropped first, under a lock (threads share it). A hit costs about twice a dict lookup.

cachetools' ``LRUCache.get`` measured 279 ns and ``TTLCache.get`` 1,514 ns against 59 ns for
``dict.get`` and 124 ns for ``OrderedDict`` get + ``move_to_end`` (docs/performance.md), so
the per-request maps are these; cachetools keeps the refused refresh tokens, which are looked
up only when there are any.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(dict[str, V]):
    """At most ``size`` entries, emptied when full; keys over ``max_key`` characters not kept."""

    def __init__(self, size: int, max_key: int) -> None:
        super().__init__()
        self.size = size
        self.max_key = max_key

    def put(self, key: str, value: V) -> None:
        if len(key) > self.max_key:
            return
        if len(self) >= self.size:
            self.clear()
        self[key] = value


class LruMap(Generic[V]):
    """At most ``size`` entries, the least recently used dropped first; thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> V | None:
        """The value of ``key`` (marked as just used), else None."""
        value = self._items.get(key)
        if value is not None:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
        return value

    def put(self, key: str, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def pop(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)
