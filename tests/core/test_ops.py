from __future__ import annotations

import asyncio

from authmw._ops import AsyncDriver, Shared, SyncDriver


def inner():
    return (yield Shared("k", lambda: leaf()))


def leaf():
    if False:
        yield
    return 42


def outer():
    # A wrapper sharing the same key as the call it wraps must not wait on itself.
    return (yield Shared("k", inner))


def test_sync_shared_is_reentrant():
    driver = SyncDriver()
    assert driver.run(outer()) == 42
    assert driver.run(outer()) == 42  # and leaves no flight behind
    driver.close()


async def test_async_shared_is_reentrant():
    driver = AsyncDriver()
    assert await asyncio.wait_for(driver.run(outer()), 2) == 42
    assert await asyncio.gather(driver.run(outer()), driver.run(outer())) == [42, 42]
    await driver.aclose()
