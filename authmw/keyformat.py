"""The format of user and team API keys (102 characters ending in a CRC-32): recognised by the
middleware without a network call, and made in this format by the service (the local service's
``authmw_local.keys.make_api_key``).

    sk_<45 secret><32 id><user|team><flag>574ck4u7h<8 crc>     (102 characters)

``sk`` for secret keys, ``pk`` for public ones; the secret is lower-case Crockford base32 (224
random bits); the id is the key's uuid without dashes; the flag is the Crockford digit
``(self-hosted ? 1 : 0) + (public ? 2 : 0)``; the last 8 characters are the lower-case hex
CRC-32 of everything before them. A value that does not have this shape, or whose checksum is
wrong, is not an API key of the service: a typo or a made-up value, refused without asking.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["ALPHABET", "KEY_LENGTH", "MARKER", "SECRET_LENGTH", "KeyType", "ParsedApiKey", "checksum", "is_api_key", "parse_api_key"]

MARKER = "574ck4u7h"
KEY_LENGTH = 102
#: Crockford's base32 alphabet, lower-cased as the service writes it (the secret and the flag).
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
#: Characters of the random secret after ``sk_`` / ``pk_``.
SECRET_LENGTH = 45
_SHAPE = re.compile(
    r"^(?P<prefix>sk|pk)_(?P<secret>[0-9a-z]{45})(?P<id>[0-9a-f]{32})(?P<type>user|team)"
    r"(?P<flag>[0-9a-z])" + MARKER + r"(?P<crc>[0-9a-f]{8})$"
)

KeyType = Literal["user", "team"]


@dataclass(frozen=True)
class ParsedApiKey:
    """What a key's text says about it (never the secret)."""

    id: str
    type: KeyType
    is_public: bool


def checksum(text: str) -> str:
    """The last 8 characters of a key: the lower-case hex CRC-32 of the text before them."""
    return format(zlib.crc32(text.encode("ascii")) & 0xFFFFFFFF, "08x")


def parse_api_key(value: str) -> ParsedApiKey | None:
    """The key's id, type and visibility when ``value`` has the format and a right checksum,
    else None. Pure and cheap: no network, no database."""
    if len(value) != KEY_LENGTH:
        return None
    match = _SHAPE.match(value)
    if match is None or checksum(value[:-8]) != match["crc"]:
        return None
    raw = match["id"]
    key_id = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
    key_type: KeyType = "user" if match["type"] == "user" else "team"
    return ParsedApiKey(id=key_id, type=key_type, is_public=match["prefix"] == "pk")


def is_api_key(value: str) -> bool:
    """Whether ``value`` is shaped as a user or team API key (checksum included)."""
    return parse_api_key(value) is not None
