"""Paging through 250 users by cursor, sync and async (service-api A5.5), on a fresh service."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import deployment
import pytest

from authmw import AsyncServerApp, dev

from .conftest import Apps, LiveService

USERS = 250
PAGE = 100


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveService, list[str]]]:
    """A service holding exactly USERS users, created concurrently; and their ids."""
    deployment.needs_local("a project with no users but this test's")
    with dev.LocalService(tmp_path_factory.mktemp("paging"), quiet=True) as running:
        live = LiveService(running)

        async def create_all() -> list[str]:
            async with AsyncServerApp(live.config) as server:
                users = await asyncio.gather(*(server.users.create(display_name=f"Paged {i:03}") for i in range(USERS)))
            return [user.id for user in users]

        yield live, asyncio.run(create_all())


@pytest.fixture
def server(flavour, crowded):
    apps = Apps(flavour, crowded[0])
    yield apps.server
    apps.close()


@pytest.mark.parametrize("desc", [False, True], ids=["oldest-first", "newest-first"])
def test_pages_of_100_give_every_user_once_in_sign_up_order(flavour, server, crowded, desc):
    _, created = crowded
    pages, cursor = [], None
    while True:
        page = flavour(server.users.list(limit=PAGE, cursor=cursor, desc=desc))
        pages.append(page)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert [len(page.items) for page in pages] == [100, 100, 50]
    users = [user for page in pages for user in page.items]
    ids = [user.id for user in users]
    assert len(ids) == len(set(ids)) == USERS and set(ids) == set(created)
    times = [user.signed_up_at for user in users]
    assert times == sorted(times, reverse=desc)


def test_iter_walks_every_page(flavour, server, crowded):
    _, created = crowded
    oldest_first = flavour.collect(server.users.iter(limit=PAGE))
    newest_first = flavour.collect(server.users.iter(limit=PAGE, desc=True))
    assert [user.id for user in oldest_first] == [user.id for user in reversed(newest_first)]
    assert sorted(user.id for user in oldest_first) == sorted(created)


def test_iter_default_page_size_and_filters(flavour, server):
    assert len(flavour.collect(server.users.iter())) == USERS
    matching = flavour.collect(server.users.iter(query="Paged 10", limit=3))
    assert sorted(user.display_name for user in matching) == [f"Paged {i}" for i in range(100, 110)]


def test_without_a_limit_one_page_holds_everyone(flavour, server):
    page = flavour(server.users.list())
    assert len(page.items) == USERS and page.next_cursor is None
