from __future__ import annotations

import asyncio

from authmw._ops import AsyncDriver, Shared, Sleep, SyncDriver


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


def slow():
    yield Sleep(0.2)
    return 7


def shared_slow():
    return (yield Shared("slow", slow))


async def test_a_cancelled_caller_does_not_cancel_the_shared_work_for_others():
    # The shared work's Sleep waits for the test's go-ahead, not for 0.2 s of real time: the
    # cancellation always lands while the work is still running, however loaded the machine.
    go = asyncio.Event()

    async def gated_sleep(seconds: float) -> None:
        await go.wait()

    async def settle() -> None:
        for _ in range(10):  # let the tasks run up to their waits (loop turns, no clock)
            await asyncio.sleep(0)

    driver = AsyncDriver(sleep=gated_sleep)
    first = asyncio.ensure_future(driver.run(shared_slow()))
    await settle()
    second = asyncio.ensure_future(driver.run(shared_slow()))
    await settle()
    first.cancel()
    await settle()
    go.set()
    assert await asyncio.wait_for(second, 60) == 7
    assert first.cancelled()
    assert await asyncio.wait_for(driver.run(shared_slow()), 60) == 7
    await driver.aclose()


async def test_shared_failure_reaches_every_caller():
    def failing():
        yield Sleep(0.01)
        raise RuntimeError("boom")

    def op():
        return (yield Shared("f", failing))

    driver = AsyncDriver()
    results = await asyncio.gather(driver.run(op()), driver.run(op()), return_exceptions=True)
    assert [type(r) for r in results] == [RuntimeError, RuntimeError]
    await driver.aclose()


# -- AtOnce: the operation fails where it would wait to retry (guards answer 503 at once) ----


def _retrying():
    """Sends once; on a network error waits and answers "retried" (as the transport retries)."""
    from authmw._ops import Request, Send
    from authmw.errors import NetworkError

    try:
        yield Send(Request("GET", "http://service.invalid/"))
    except NetworkError:
        yield Sleep(30)
        return "retried"
    return "answered"


def _refusing_transport(request):  # type: ignore[no-untyped-def]
    import httpx

    raise httpx.ConnectError("refused", request=request)


def test_at_once_raises_the_error_instead_of_sleeping_and_the_plain_run_retries():
    import httpx
    import pytest

    from authmw._ops import AtOnce
    from authmw.errors import NetworkError

    slept: list[float] = []
    driver = SyncDriver(httpx.Client(transport=httpx.MockTransport(_refusing_transport)), sleep=slept.append)

    def guard():
        return (yield AtOnce(_retrying()))

    with pytest.raises(NetworkError):
        driver.run(guard())
    assert slept == []
    assert driver.run(_retrying()) == "retried" and slept == [30]  # the control: waits, retries
    driver.close()


async def test_async_at_once_raises_the_error_instead_of_sleeping():
    import httpx
    import pytest

    from authmw._ops import AtOnce
    from authmw.errors import NetworkError

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    driver = AsyncDriver(httpx.AsyncClient(transport=httpx.MockTransport(_refusing_transport)), sleep=sleep)

    def guard():
        return (yield AtOnce(_retrying()))

    with pytest.raises(NetworkError):
        await driver.run(guard())
    assert slept == []
    assert await driver.run(_retrying()) == "retried" and slept == [30]
    await driver.aclose()
