"""Project permissions (API 2.8): permissions a user holds in the
project, without a team. Definitions are the admin tier's (``admin.project_permission_definitions``);
grants the server tier's; the client tier reads its own user's.
"""

from __future__ import annotations

import builtins

from .._ops import Op
from .._transport import segment
from ..models import ProjectPermission
from ._base import _Namespace, parse, parse_items
from ._binding import R, Twin, operation

__all__ = [
    "ClientProjectPermissions",
    "ServerProjectPermissions",
]


class _ProjectPermissionsOps(_Namespace):
    def _list(
        self, user_id: str | None, permission_id: str | None, recursive: bool
    ) -> Op[builtins.list[ProjectPermission]]:
        # As for team permissions, contained permissions are included unless told otherwise.
        query = {"user_id": user_id, "permission_id": permission_id, "recursive": "true" if recursive else "false"}
        body = yield from self._transport.call_json(
            "GET", "/project-permissions", query=query, session=self._session
        )
        return parse_items(ProjectPermission, body)


class _ClientOps(_ProjectPermissionsOps):
    @operation
    def list(self, *, recursive: bool = True) -> Op[builtins.list[ProjectPermission]]:
        """The signed-in user's project permissions, contained ones included
        (``recursive=False``: only those granted directly)."""
        return (yield from self._list("me", None, recursive))

    @operation
    def has(self, permission_id: str) -> Op[bool]:
        """Whether the signed-in user holds the project permission, directly or contained."""
        return bool((yield from self._list("me", permission_id, True)))


class _ServerOps(_ProjectPermissionsOps):
    @operation
    def list(
        self, user_id: str | None = None, *, permission_id: str | None = None, recursive: bool = True
    ) -> Op[builtins.list[ProjectPermission]]:
        """Grants of one user (or of every user), sorted by user id then permission id;
        contained permissions included unless ``recursive=False``."""
        return (yield from self._list(user_id, permission_id, recursive))

    @operation
    def has(self, user_id: str, permission_id: str) -> Op[bool]:
        """Whether the user holds the project permission, directly or contained."""
        return bool((yield from self._list(user_id, permission_id, True)))

    @operation
    def grant(self, user_id: str, permission_id: str) -> Op[ProjectPermission]:
        """Grant a project permission (again: harmless). ``PermissionNotFound`` for an unknown
        id, ``WrongPermissionScope`` for a team permission's, ``UserNotFound``."""
        path = f"/project-permissions/{segment(user_id)}/{segment(permission_id)}"
        answer = yield from self._transport.call_json("POST", path, json={})
        return parse(ProjectPermission, answer)

    @operation
    def revoke(self, user_id: str, permission_id: str) -> Op[None]:
        """Take back a directly granted permission (``PermissionNotFound`` if it was not)."""
        yield from self._transport.call("DELETE", f"/project-permissions/{segment(user_id)}/{segment(permission_id)}")


class ClientProjectPermissions(_ClientOps, Twin[R]):
    """``client.project_permissions``: the signed-in user's project permissions."""


class ServerProjectPermissions(_ServerOps, Twin[R]):
    """``server.project_permissions``: grant, revoke and list any user's project permissions."""
