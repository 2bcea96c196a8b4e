"""Password hashing and checking for request handlers, done outside the request's database
transaction (``RequestContext.outside``): scrypt takes about 40 ms of CPU, and other requests
use the database meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .passwords import hash_password, verify_password

if TYPE_CHECKING:
    from .endpoint import RequestContext


def hash_outside(ctx: RequestContext, password: str) -> str:
    """A new hash of ``password``, made outside the request's transaction."""
    new_hash: str = ctx.outside(("hash", password), lambda: hash_password(password))
    return new_hash


def matches_outside(ctx: RequestContext, password: str, stored: str | None) -> bool:
    """Whether ``password`` matches the stored hash, checked outside the request's transaction
    (keyed by the stored hash, so a hash changed meanwhile is checked again)."""
    matches: bool = ctx.outside(("verify", password, stored), lambda: verify_password(password, stored))
    return matches
