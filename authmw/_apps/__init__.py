"""The public apps: ``ClientApp``, ``ServerApp`` and their ``Async`` twins.

Every API call is written once, as a generator method decorated with ``@operation``. On a
sync app the decorated method runs the generator under the sync driver and returns the
result; on an async app it returns a coroutine that runs it under the async driver::

    class _ClientOps(_CommonOps):
        @operation
        def get_project(self) -> Op[Project]:
            body = yield from self._transport.call_json("GET", "/projects/current")
            return Project.model_validate(body)

    class ClientApp(_ClientOps, SyncRunner): ...          # app.get_project()
    class AsyncClientApp(_ClientOps, AsyncRunner): ...    # await app.get_project()

Namespaces (``server.users``) are built the same way: a class of operations per resource,
declared once for both twins (``class ServerUsers(_ServerUsersOps, Twin[R])``) and attached
with ``namespace(ServerUsers[SyncRunner])`` on a sync app, ``namespace(ServerUsers[AsyncRunner])``
on an async one. A list that
pages by cursor gets an iterator with ``iter = paginated(list)``: a sync iterator on sync
objects, an async one on async objects, from the same page operation.

Layout: ``_binding`` (``@operation``, ``paginated``, the runners), ``_base``
(construction, closing, namespaces, calls of every tier), one module per resource
(``_users``, ``_teams``, ``_team_members``, ``_invitations``, ``_contact_channels``,
``_connected_accounts``, ``_client_flows``) and one per tier (``_client``, ``_server``,
``_admin``).
"""

from ._admin import AdminApp, AsyncAdminApp
from ._binding import AsyncRunner, SyncRunner, operation, paginated
from ._client import AsyncClientApp, ClientApp
from ._server import AsyncServerApp, ServerApp
from ._users import ServerUsers

__all__ = [
    "AdminApp",
    "AsyncAdminApp",
    "AsyncClientApp",
    "AsyncRunner",
    "AsyncServerApp",
    "ClientApp",
    "ServerApp",
    "ServerUsers",
    "SyncRunner",
    "operation",
    "paginated",
]
