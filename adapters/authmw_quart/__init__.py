"""Quart: the session's user as ``current_user``, and the ``user_required`` guard (docs/quart.md)."""

from ._extension import AuthMW, current_user, get_user, user_required

__all__ = ["AuthMW", "current_user", "get_user", "user_required"]
