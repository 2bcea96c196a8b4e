"""Moved to :mod:`authmw.keyformat` (public: the local service uses it too). This name stays
until the middleware's imports are updated."""

from authmw.keyformat import MARKER, KeyType, ParsedApiKey, is_api_key, parse_api_key

__all__ = ["MARKER", "KeyType", "ParsedApiKey", "is_api_key", "parse_api_key"]
