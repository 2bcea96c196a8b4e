"""The admin tier (project owners, super secret admin key): for now the team permission
definitions (contract 5.11) on top of everything the server tier does."""

from __future__ import annotations

from collections.abc import Sequence

from .._ops import Op
from .._transport import segment
from ..models import PermissionDefinition
from ._base import UNSET, _Namespace, changes, namespace, parse, parse_items
from ._binding import AsyncRunner, SyncRunner, operation
from ._server import AsyncServerApp, ServerApp

__all__ = ["AdminApp", "AdminPermissionDefinitions", "AsyncAdminApp", "AsyncAdminPermissionDefinitions"]


class _PermissionDefinitionsOps(_Namespace):
    @operation
    def create(
        self, permission_id: str, *, description: str = UNSET, contained_permission_ids: Sequence[str] = UNSET
    ) -> Op[PermissionDefinition]:
        """Define a team permission (id: lower-case letters, digits, ``_`` and ``:``).

        Holding it also grants every permission in ``contained_permission_ids`` (and what
        they contain); raises ``ContainedPermissionNotFound`` for an unknown one.
        """
        body = {"id": permission_id, **changes(description=description)}
        if contained_permission_ids is not UNSET:
            body["contained_permission_ids"] = list(contained_permission_ids)
        answer = yield from self._transport.call_json("POST", "/team-permission-definitions", json=body)
        return parse(PermissionDefinition, answer)

    @operation
    def update(
        self,
        permission_id: str,
        *,
        new_id: str = UNSET,
        description: str = UNSET,
        contained_permission_ids: Sequence[str] = UNSET,
    ) -> Op[PermissionDefinition]:
        """Rename (``new_id``), describe, or replace the contained permissions."""
        body = changes(id=new_id, description=description)
        if contained_permission_ids is not UNSET:
            body["contained_permission_ids"] = list(contained_permission_ids)
        path = f"/team-permission-definitions/{segment(permission_id)}"
        answer = yield from self._transport.call_json("PATCH", path, json=body)
        return parse(PermissionDefinition, answer)

    @operation
    def delete(self, permission_id: str) -> Op[None]:
        """Delete a definition (``PermissionNotFound`` if there is none)."""
        yield from self._transport.call("DELETE", f"/team-permission-definitions/{segment(permission_id)}")

    @operation
    def list(self) -> Op[list[PermissionDefinition]]:
        """Every definition, system permissions (``$...``) included, sorted by id."""
        body = yield from self._transport.call_json("GET", "/team-permission-definitions")
        return parse_items(PermissionDefinition, body)


class AdminPermissionDefinitions(_PermissionDefinitionsOps, SyncRunner):
    """``admin.permission_definitions``: the project's team permissions."""


class AsyncAdminPermissionDefinitions(_PermissionDefinitionsOps, AsyncRunner):
    """``admin.permission_definitions`` of an async app."""


class AdminApp(ServerApp):
    """A project owner's access with the super secret admin key.

    Everything :class:`ServerApp` does, plus ``permission_definitions``.
    """

    _tier = "admin"
    permission_definitions = namespace(AdminPermissionDefinitions)


class AsyncAdminApp(AsyncServerApp):
    """:class:`AdminApp` for asyncio: every call returns a coroutine."""

    _tier = "admin"
    permission_definitions = namespace(AsyncAdminPermissionDefinitions)
