"""API key sets of the project (admin tier)."""

from __future__ import annotations

import datetime as _dt

from .._ops import Op
from .._transport import segment
from ..models import ApiKey, NewApiKey
from ._base import _Namespace, parse, parse_items
from ._binding import R, Twin, operation

__all__ = ["AdminApiKeys"]


def _millis(when: int | _dt.datetime) -> int:
    if isinstance(when, _dt.datetime):
        if when.tzinfo is None:
            raise ValueError(
                "expires_at must be an aware datetime (say datetime.now(timezone.utc) + timedelta(days=30))."
            )
        return int(when.timestamp() * 1000)
    if isinstance(when, bool) or not isinstance(when, int):
        raise TypeError(f"expires_at_millis must be milliseconds since the epoch (int), not {type(when).__name__}.")
    return when


class _ApiKeysOps(_Namespace):
    @operation
    def create(
        self,
        *,
        description: str,
        expires_at_millis: int | _dt.datetime,
        has_publishable_client_key: bool = True,
        has_secret_server_key: bool = True,
        has_super_secret_admin_key: bool = False,
    ) -> Op[NewApiKey]:
        """Create a key set; the answer holds the full keys, shown this once only.

        ``expires_at_millis``: milliseconds since the epoch, or an aware ``datetime``.
        """
        body = {
            "description": description,
            "expires_at_millis": _millis(expires_at_millis),
            "has_publishable_client_key": has_publishable_client_key,
            "has_secret_server_key": has_secret_server_key,
            "has_super_secret_admin_key": has_super_secret_admin_key,
        }
        answer = yield from self._transport.call_json("POST", "/internal/api-keys", json=body)
        return parse(NewApiKey, answer)

    @operation
    def list(self) -> Op[list[ApiKey]]:
        """Every key set of the project, newest first (keys as their last four characters)."""
        answer = yield from self._transport.call_json("GET", "/internal/api-keys")
        return parse_items(ApiKey, answer)

    @operation
    def get(self, api_key_id: str) -> Op[ApiKey]:
        """One key set (``ApiKeyNotFound`` for an unknown id)."""
        answer = yield from self._transport.call_json("GET", f"/internal/api-keys/{segment(api_key_id)}")
        return parse(ApiKey, answer)

    @operation
    def revoke(self, api_key_id: str) -> Op[ApiKey]:
        """Revoke a key set: its keys stop working at once. Revoking twice is harmless."""
        path = f"/internal/api-keys/{segment(api_key_id)}"
        answer = yield from self._transport.call_json("PATCH", path, json={"revoked": True})
        return parse(ApiKey, answer)


class AdminApiKeys(_ApiKeysOps, Twin[R]):
    """``admin.api_keys``: the project's API key sets."""
