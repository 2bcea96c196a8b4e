"""Binding operations to a driver: ``@operation``, ``paginated``, the sync and async runners,
and ``Twin`` (one class for both twins of a group of calls)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from .._ops import AsyncDriver, Op, SyncDriver
from ..errors import InvalidServerResponse
from ..models import Page

__all__ = ["AsyncRunner", "R", "SyncRunner", "Twin", "operation", "paginated"]

P = ParamSpec("P")
T = TypeVar("T")
C = TypeVar("C", bound=Callable[..., Any])


class SyncRunner:
    """Runs operations with blocking I/O."""

    _driver: SyncDriver

    def run_op(self, op: Op[T]) -> T:
        """Run an operation composed of this object's ``.op`` calls on its driver."""
        return self._driver.run(op)

    def _bind(self, op: operation[..., T]) -> Callable[..., T]:
        fn = op.fn

        def call(*args: Any, **kwargs: Any) -> T:
            return self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)

    def _bind_pages(self, op: operation[..., Page[T]], defaults: dict[str, Any]) -> Callable[..., Iterator[T]]:
        fn = op.fn

        def iterate(*args: Any, cursor: str | None = None, **kwargs: Any) -> Iterator[T]:
            kwargs = {**defaults, **kwargs}
            while True:
                page = self._driver.run(fn(self, *args, cursor=cursor, **kwargs))
                yield from page.items
                cursor = _next_cursor(page, cursor)
                if cursor is None:
                    return

        return iterate


class AsyncRunner:
    """Runs operations on the event loop."""

    _driver: AsyncDriver

    def run_op(self, op: Op[T]) -> Coroutine[Any, Any, T]:
        """Run an operation composed of this object's ``.op`` calls on its driver (awaitable)."""
        return self._driver.run(op)

    def _bind(self, op: operation[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
        fn = op.fn

        async def call(*args: Any, **kwargs: Any) -> T:
            return await self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)

    def _bind_pages(self, op: operation[..., Page[T]], defaults: dict[str, Any]) -> Callable[..., AsyncIterator[T]]:
        fn = op.fn

        async def iterate(*args: Any, cursor: str | None = None, **kwargs: Any) -> AsyncIterator[T]:
            kwargs = {**defaults, **kwargs}
            while True:
                page = await self._driver.run(fn(self, *args, cursor=cursor, **kwargs))
                for item in page.items:
                    yield item
                cursor = _next_cursor(page, cursor)
                if cursor is None:
                    return

        return iterate


#: The runner a :class:`Twin` is declared for: ``Group[SyncRunner]`` or ``Group[AsyncRunner]``.
R = TypeVar("R", SyncRunner, AsyncRunner)


class Twin(Generic[R]):
    """A group of calls declared once for both twins: ``ServerUsers[SyncRunner]`` returns
    results, ``ServerUsers[AsyncRunner]`` coroutines (and async iterators). The parameter is
    the type checker's; at run time the driver of the app the group belongs to decides."""

    _driver: Any

    @overload
    def run_op(self: Twin[SyncRunner], op: Op[T]) -> T: ...
    @overload
    def run_op(self: Twin[AsyncRunner], op: Op[T]) -> Coroutine[Any, Any, T]: ...
    def run_op(self, op: Op[T]) -> Any:
        """Run an operation composed of this group's ``.op`` calls on its driver (awaitable
        on an async app), as the runners' own ``run_op``."""
        return self._driver.run(op)

    def _runner(self) -> Any:
        return AsyncRunner if isinstance(self._driver, AsyncDriver) else SyncRunner

    def _bind(self, op: operation[..., T]) -> Callable[..., Any]:
        bound: Callable[..., Any] = self._runner()._bind(self, op)
        return bound

    def _bind_pages(self, op: operation[..., Page[T]], defaults: dict[str, Any]) -> Callable[..., Any]:
        iterate: Callable[..., Any] = self._runner()._bind_pages(self, op, defaults)
        return iterate


def _next_cursor(page: Page[Any], cursor: str | None) -> str | None:
    if page.next_cursor is not None and page.next_cursor == cursor:
        raise InvalidServerResponse(f"The service returned the same page cursor twice ({cursor!r}).")
    return page.next_cursor


class operation(Generic[P, T]):  # lower case: used as a decorator
    """Turns a generator method into a sync or async method depending on the class."""

    def __init__(self, fn: Callable[Concatenate[Any, P], Op[T]]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]
        signature = inspect.signature(fn)
        self.signature = signature.replace(
            parameters=list(signature.parameters.values())[1:], return_annotation=inspect.Signature.empty
        )

    def describe(self, call: C) -> C:
        """Give a bound call the operation's name, docs and signature (without self)."""
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(call, attr, getattr(self.fn, attr))
        call.__signature__ = self.signature  # type: ignore[attr-defined]
        return call

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> operation[P, T]: ...
    @overload
    def __get__(self, obj: SyncRunner | Twin[SyncRunner], owner: type | None = None) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, obj: AsyncRunner | Twin[AsyncRunner], owner: type | None = None
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._bind(self)

    def op(self, obj: Any, *args: P.args, **kwargs: P.kwargs) -> Op[T]:
        """The bare operation, for composing inside another operation."""
        return self.fn(obj, *args, **kwargs)


class paginated(Generic[P, T]):  # lower case: used like a decorator
    """Every item of every page of a list operation, fetched page by page by cursor.

    ``iter = paginated(list, limit=100)`` where ``list`` is an ``@operation`` that takes
    ``cursor=`` and returns a :class:`~authmw.models.Page`; keywords are defaults for the
    list's arguments. On a sync object ``iter(...)`` is an iterator, on an async one an
    async iterator; both take the list's arguments.
    """

    def __init__(self, page_op: operation[P, Page[T]], **defaults: Any) -> None:
        self.page_op = page_op
        self.defaults = defaults

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> paginated[P, T]: ...
    @overload
    def __get__(self, obj: SyncRunner | Twin[SyncRunner], owner: type | None = None) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, obj: AsyncRunner | Twin[AsyncRunner], owner: type | None = None) -> Callable[P, AsyncIterator[T]]: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        iterate = obj._bind_pages(self.page_op, self.defaults)
        iterate.__name__ = iterate.__qualname__ = getattr(self, "name", "iter")
        iterate.__doc__ = f"Every item of ``{self.page_op.fn.__name__}(...)``, page after page (by cursor)."
        iterate.__signature__ = self.page_op.signature  # the list's parameters
        return iterate
