"""Identifiers, random codes and the clock."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from . import clock

#: Lower-case Crockford base32 (no i, l, o, u).
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def random_code(length: int = 45) -> str:
    """Refresh tokens, key bodies and verification codes: 45 chars = 225 random bits."""
    return "".join(secrets.choice(CROCKFORD) for _ in range(length))


def new_uuid() -> str:
    return str(uuid.uuid4())


def is_uuid(value: object) -> bool:
    if not isinstance(value, str) or len(value) != 36:
        return False
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def now_millis() -> int:
    return int(clock.now() * 1000)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
