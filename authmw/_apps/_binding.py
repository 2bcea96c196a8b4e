"""Binding operations to a driver: ``@operation`` and the sync and async runners."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from .._ops import AsyncDriver, Op, SyncDriver

__all__ = ["AsyncRunner", "SyncRunner", "operation"]

P = ParamSpec("P")
T = TypeVar("T")
C = TypeVar("C", bound=Callable[..., Any])


class SyncRunner:
    """Runs operations with blocking I/O."""

    _driver: SyncDriver

    def _bind(self, op: operation[..., T]) -> Callable[..., T]:
        fn = op.fn

        def call(*args: Any, **kwargs: Any) -> T:
            return self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)


class AsyncRunner:
    """Runs operations on the event loop."""

    _driver: AsyncDriver

    def _bind(self, op: operation[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
        fn = op.fn

        async def call(*args: Any, **kwargs: Any) -> T:
            return await self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)


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
    def __get__(self, obj: SyncRunner, owner: type | None = None) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: AsyncRunner, owner: type | None = None) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._bind(self)

    def op(self, obj: Any, *args: P.args, **kwargs: P.kwargs) -> Op[T]:
        """The bare operation, for composing inside another operation."""
        return self.fn(obj, *args, **kwargs)
