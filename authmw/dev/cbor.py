"""A minimal CBOR decoder (RFC 8949) for WebAuthn attestation objects and COSE keys."""

from __future__ import annotations

import struct
from typing import Any


class CBORError(ValueError):
    pass


def decode(data: bytes) -> Any:
    value, end = decode_prefix(data)
    if end != len(data):
        raise CBORError("trailing bytes after the CBOR value")
    return value


def decode_prefix(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """The first CBOR value in `data[pos:]` and the offset just after it."""
    if pos >= len(data):
        raise CBORError("truncated CBOR")
    initial = data[pos]
    major, info = initial >> 5, initial & 0x1F
    pos += 1
    if major == 7:
        return _simple(data, pos, info)
    length, pos = _argument(data, pos, info)
    if major == 0:
        return length, pos
    if major == 1:
        return -1 - length, pos
    if major in (2, 3):
        chunk = data[pos : pos + length]
        if len(chunk) != length:
            raise CBORError("truncated CBOR string")
        return (bytes(chunk) if major == 2 else chunk.decode("utf-8")), pos + length
    if major == 4:
        items = []
        for _ in range(length):
            item, pos = decode_prefix(data, pos)
            items.append(item)
        return items, pos
    if major == 5:
        mapping: dict[Any, Any] = {}
        for _ in range(length):
            key, pos = decode_prefix(data, pos)
            mapping[key], pos = decode_prefix(data, pos)
        return mapping, pos
    if major == 6:  # a tag: the tagged value is all we need
        return decode_prefix(data, pos)
    raise CBORError(f"unsupported CBOR major type {major}")


def _argument(data: bytes, pos: int, info: int) -> tuple[int, int]:
    if info < 24:
        return info, pos
    sizes = {24: 1, 25: 2, 26: 4, 27: 8}
    if info not in sizes:
        raise CBORError("indefinite lengths are not supported")
    size = sizes[info]
    if pos + size > len(data):
        raise CBORError("truncated CBOR")
    return int.from_bytes(data[pos : pos + size], "big"), pos + size


def _simple(data: bytes, pos: int, info: int) -> tuple[Any, int]:
    if info in (20, 21):
        return info == 21, pos
    if info in (22, 23):
        return None, pos
    formats = {25: (">e", 2), 26: (">f", 4), 27: (">d", 8)}
    if info in formats:
        fmt, size = formats[info]
        if pos + size > len(data):
            raise CBORError("truncated CBOR")
        return struct.unpack(fmt, data[pos : pos + size])[0], pos + size
    raise CBORError("unsupported CBOR simple value")
