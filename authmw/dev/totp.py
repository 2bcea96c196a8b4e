"""TOTP (RFC 6238): HMAC-SHA-1, 6 digits, 30-second steps; only the current step counts (6.8)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time

STEP_SECONDS = 30
DIGITS = 6


def totp(secret: bytes, at: float | None = None) -> str:
    counter = int((time.time() if at is None else at) // STEP_SECONDS)
    digest = hmac.new(secret, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**DIGITS).zfill(DIGITS)


def verify_totp(secret_base64: str, submitted: str) -> bool:
    try:
        secret = base64.b64decode(secret_base64, validate=True)
    except ValueError:
        return False
    return hmac.compare_digest(totp(secret), submitted)
