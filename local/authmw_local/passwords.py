"""Password hashing: salted scrypt for passwords set here, bcrypt for imported hashes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re

import bcrypt

#: scrypt parameters of new hashes (stored with each hash, so they may change later).
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN = 2**14, 8, 1, 32

BCRYPT_HASH_RE = re.compile(r"^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$")

MIN_LENGTH = 8
MAX_LENGTH = 70


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=SCRYPT_DKLEN)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def is_valid_bcrypt_hash(value: str) -> bool:
    match = BCRYPT_HASH_RE.match(value)
    return match is not None and 4 <= int(match.group(1)) <= 16


def verify_password(password: str, stored: str | None) -> bool:
    """Constant-time check; an absent hash still costs one scrypt so timing reveals little."""
    if not stored:
        hashlib.scrypt(b"x", salt=b"0" * 16, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=SCRYPT_DKLEN)
        return False
    if stored.startswith("$2"):
        try:
            return bcrypt.checkpw(password.encode(), stored.encode())
        except ValueError:
            return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)
